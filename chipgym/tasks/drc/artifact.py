"""A built dataset's files: one labelled task as ``<id>.json`` beside ``<id>.gds``, read without any generator.

``<id>.json`` holds everything of a :class:`~chipgym.tasks.drc.task.DrcTask` but its layouts, and for each
pool (``public``, ``training``, ``evaluation``) each layout's name, labels, and offset and size in
``<id>.gds``, which holds the pools' GDS streams one after another. Both are written to a temporary name and
renamed, so a build that is interrupted leaves whole tasks only.

>>> import tempfile
>>> from pathlib import Path
>>> from chipgym.tasks.drc.task import DrcTask, Testcase
>>> case = Testcase("t0", b"GDS", {"m1": 1})
>>> task = DrcTask(id="t", title="t", description="", layers={"met1": (68, 20)}, rules=(("w", "m1"),),
...                categories=("m1",), gold_deck="deck", public_examples=(), hidden_testcases=(case,),
...                training_testcases=(case, case), group="sky130", split="train")
>>> folder = Path(tempfile.mkdtemp())
>>> write_task(task, folder)
>>> read_task(folder, "t") == task
True
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from chipgym.errors import DataError
from chipgym.tasks.drc.task import DrcTask, Testcase

POOLS = {"public": "public_examples", "training": "training_testcases", "evaluation": "hidden_testcases"}


class ArtifactError(DataError):
    """A dataset artifact that cannot be read: it is chipgym's own cache, so delete it and build again."""


def write_task(task: DrcTask, folder: Path) -> None:
    """Writes ``task`` as ``folder/<id>.json`` and ``folder/<id>.gds``."""
    blob, pools = bytearray(), {}
    for pool, attribute in POOLS.items():
        pools[pool] = []
        for case in getattr(task, attribute):
            data = case.gds_bytes()
            pools[pool].append({"name": case.name, "labels": dict(case.labels), "offset": len(blob),
                                "size": len(data)})
            blob += data
    record = {
        "id": task.id, "title": task.title, "description": task.description,
        "layers": {name: list(pair) for name, pair in task.layers.items()},
        "rules": [list(rule) for rule in task.rules], "categories": list(task.categories),
        "gold_deck": task.gold_deck, "group": task.group, "split": task.split,
        "thresholds": dict(task.thresholds), "metadata": dict(task.metadata), "pools": pools,
    }
    _write_atomic(folder / f"{task.id}.gds", bytes(blob))
    _write_atomic(folder / f"{task.id}.json", json.dumps(record, sort_keys=True).encode())


def read_task(folder: Path, task_id: str) -> DrcTask:
    """The task ``task_id`` of an artifact folder."""
    path = folder / f"{task_id}.json"
    try:
        record = json.loads(path.read_bytes())
        blob = (folder / f"{task_id}.gds").read_bytes()
        pools = {attribute: tuple(_case(entry, blob) for entry in record["pools"][pool])
                 for pool, attribute in POOLS.items()}
        return DrcTask(
            id=record["id"], title=record["title"], description=record["description"],
            layers={name: (int(pair[0]), int(pair[1])) for name, pair in record["layers"].items()},
            rules=tuple((text, category) for text, category in record["rules"]),
            categories=tuple(record["categories"]), gold_deck=record["gold_deck"], group=record["group"],
            split=record["split"], thresholds=record["thresholds"], metadata=record["metadata"], built=True, **pools,
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError) as error:
        raise ArtifactError(f"{path}: unreadable dataset artifact ({type(error).__name__}: {error}); "
                            f"delete {folder.parent} and build it again") from None


def has_task(folder: Path, task_id: str) -> bool:
    return (folder / f"{task_id}.json").is_file()


def _case(entry: dict[str, Any], blob: bytes) -> Testcase:
    start, size = int(entry["offset"]), int(entry["size"])
    if start < 0 or size < 0 or start + size > len(blob):
        raise ValueError(f"layout {entry['name']!r} lies outside the layout file")
    return Testcase(entry["name"], blob[start:start + size], {c: int(v) for c, v in entry["labels"].items()})


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
