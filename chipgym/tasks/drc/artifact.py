"""A built dataset's files: one labelled task as ``<id>.json`` beside ``<id>.gds``, read without any generator.

``<id>.json`` holds everything of a :class:`~chipgym.tasks.drc.task.DrcTask` but its layouts, and for each
pool (``public``, ``training``, ``evaluation``) each layout's name, labels, and offset and size in
``<id>.gds``, which holds the pools' GDS streams one after another. Both are written to a temporary name and
renamed, so a build that is interrupted leaves whole tasks only.

The artifact lies in a cache anyone with the user's rights can write, so it is read as untrusted: each file
regular and under a size cap, and, for a frozen suite, the task's content (:func:`content_hash`) equal to the
hash pinned in code (``chipgym/tasks/drc/suites/<name>.sha256``) before anything in it is parsed.

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

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from chipgym.errors import DataError
from chipgym.files import read_regular_file
from chipgym.tasks.drc.task import DrcTask, Testcase

POOLS = {"public": "public_examples", "training": "training_testcases", "evaluation": "hidden_testcases"}
MAX_RECORD_BYTES = 64 << 20  # of <id>.json (drc-v1's largest: a few hundred KiB)
MAX_LAYOUTS_BYTES = 256 << 20  # of <id>.gds, as of a Rule2DRC problem's layouts


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


def read_task(folder: Path, task_id: str, pinned: str | None = None) -> DrcTask:
    """The task ``task_id`` of an artifact folder; with ``pinned``, only if its content hash is that."""
    path = folder / f"{task_id}.json"
    try:
        record_bytes = read_regular_file(path, MAX_RECORD_BYTES)
        blob = read_regular_file(folder / f"{task_id}.gds", MAX_LAYOUTS_BYTES)
        if pinned is not None and (found := _digest(record_bytes, blob)) != pinned:
            raise ArtifactError(f"{path}: not the content pinned for it (sha256 {found[:16]}..., pinned "
                                f"{pinned[:16]}...): the artifact was changed after it was built; delete "
                                f"{folder.parent} and build it again")
        record = json.loads(record_bytes)
        pools = {attribute: tuple(_case(entry, blob) for entry in record["pools"][pool])
                 for pool, attribute in POOLS.items()}
        return DrcTask(
            id=record["id"], title=record["title"], description=record["description"],
            layers={name: (int(pair[0]), int(pair[1])) for name, pair in record["layers"].items()},
            rules=tuple((text, category) for text, category in record["rules"]),
            categories=tuple(record["categories"]), gold_deck=record["gold_deck"], group=record["group"],
            split=record["split"], thresholds=record["thresholds"], metadata=record["metadata"], built=True, **pools,
        )
    except ArtifactError:
        raise
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as error:
        raise ArtifactError(f"{path}: unreadable dataset artifact ({type(error).__name__}: {str(error)[:300]}); "
                            f"delete {folder.parent} and build it again") from None


def content_hash(folder: Path, task_id: str) -> str:
    """The sha256 of a built task's two files, as a frozen suite pins it."""
    return _digest(read_regular_file(folder / f"{task_id}.json", MAX_RECORD_BYTES),
                   read_regular_file(folder / f"{task_id}.gds", MAX_LAYOUTS_BYTES))


def _digest(record: bytes, blob: bytes) -> str:
    digest = hashlib.sha256(len(record).to_bytes(8, "big"))
    digest.update(record)
    digest.update(blob)
    return digest.hexdigest()


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
