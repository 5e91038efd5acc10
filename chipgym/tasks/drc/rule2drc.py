"""Reading and writing the Rule2DRC on-disk task format.

Layout of one problem (``filename`` columns are relative to the folder holding ``problems/``)::

    problems/{id}/spec.yaml          id, title, nl_description, layers, thresholds, rules,
                                     categories, deck, data_dir (+ chipgym keys below)
    problems/{id}/gold/{id}.drc
    problems/{id}/data/gds/labels.csv   filename,<category>...  (0/1 per category)
    problems/{id}/data/gds/{pass,fail}/*.gds

Layouts are read into memory (``Testcase.gds`` is bytes; a task's layouts are small).

Public/hidden split: Rule2DRC has a single labelled set.  chipgym adds an optional
``public_examples`` spec key listing the ``filename`` values an agent may see; every
other row of ``labels.csv`` is hidden.  Without the key (upstream data) all rows are
hidden.  Optional keys ``group``, ``split`` and ``metadata`` round-trip the rest of
:class:`~chipgym.tasks.drc.task.DrcTask`.

>>> import tempfile
>>> from chipgym.tasks.drc.task import DrcTask, Testcase
>>> tasks = []  # write_rule2drc(tasks, out) then load_rule2drc(out) == tasks
>>> load_rule2drc(write_rule2drc(tasks, tempfile.mkdtemp()))
[]
"""
from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any, Iterable

import yaml

from chipgym.errors import Rule2DrcFormatError
from chipgym.tasks.drc.task import DrcTask, Testcase

REQUIRED_KEYS = ("id", "title", "nl_description", "layers", "thresholds", "rules", "categories", "deck", "data_dir")
DATA_DIR = "data/gds"


def load_rule2drc(path: str | Path) -> list[DrcTask]:
    """Load every problem under ``path``: a ``problems/`` folder, its parent, or one problem folder.

    Works from any working directory; tasks are sorted by id.
    """
    path = Path(path).resolve()
    if (path / "spec.yaml").is_file():
        problem_dirs = [path]
    else:
        problems = path / "problems" if (path / "problems").is_dir() else path
        if not problems.is_dir():
            raise Rule2DrcFormatError(f"{path}: not a Rule2DRC problems folder")
        problem_dirs = sorted(p.parent for p in problems.glob("*/spec.yaml"))
    tasks: dict[str, tuple[DrcTask, Path]] = {}
    for problem_dir in problem_dirs:
        task = _load_problem(problem_dir)
        if task.id in tasks:
            raise Rule2DrcFormatError(f"{tasks[task.id][1]} and {problem_dir}: both define the problem id {task.id!r}")
        tasks[task.id] = (task, problem_dir)
    return [task for _, (task, _) in sorted(tasks.items())]


def _load_problem(problem_dir: Path) -> DrcTask:
    spec_path = problem_dir / "spec.yaml"
    try:
        spec = yaml.safe_load(spec_path.read_text())
    except yaml.YAMLError as exc:
        raise Rule2DrcFormatError(f"{spec_path}: invalid YAML: {exc}") from exc
    if not isinstance(spec, dict):
        raise Rule2DrcFormatError(f"{spec_path}: expected a mapping")
    missing = [k for k in REQUIRED_KEYS if k not in spec]
    if missing:
        raise Rule2DrcFormatError(f"{spec_path}: missing key(s) {', '.join(missing)}")
    task_id = str(spec["id"])
    root = problem_dir.parent.parent
    deck_path = _first_existing([problem_dir / spec["deck"], root / spec["deck"],
                                 problem_dir / "gold" / f"{task_id}.drc"])
    if deck_path is None:
        raise Rule2DrcFormatError(f"{problem_dir / spec['deck']}: gold deck not found")
    categories = tuple(str(c) for c in spec["categories"])
    data_dir = problem_dir / spec["data_dir"]
    rows = _read_labels(data_dir / "labels.csv", categories)
    cases = {}
    for filename, labels in rows:
        gds = _first_existing([root / filename, problem_dir / filename, data_dir / filename])
        if gds is None:
            raise Rule2DrcFormatError(f"{data_dir / 'labels.csv'}: layout {filename} not found")
        _check_gds(gds)
        cases[filename] = Testcase(name=Path(filename).stem, gds=gds.read_bytes(), labels=labels)
    names = [c.name for c in cases.values()]
    if len(set(names)) != len(names):
        raise Rule2DrcFormatError(f"{data_dir / 'labels.csv'}: layout file names are not unique")
    public = [str(f) for f in spec.get("public_examples", [])]
    unknown = [f for f in public if f not in cases]
    if unknown:
        raise Rule2DrcFormatError(f"{spec_path}: public_examples not in labels.csv: {', '.join(unknown)}")
    return DrcTask(
        id=task_id,
        title=str(spec["title"]),
        description=str(spec["nl_description"]),
        layers={str(k): (int(v[0]), int(v[1])) for k, v in spec["layers"].items()},
        rules=tuple((str(r["text"]), str(r["category"])) for r in spec["rules"]),
        categories=categories,
        gold_deck=deck_path.read_text(),
        public_examples=tuple(cases[f] for f in public),
        hidden_testcases=tuple(c for f, c in cases.items() if f not in public),
        group=str(spec.get("group", "rule2drc")),
        thresholds={str(k): float(v) for k, v in (spec["thresholds"] or {}).items()},
        split=spec.get("split", "test"),
        metadata=spec.get("metadata", {}) or {},
    )


def _first_existing(candidates: Iterable[Path]) -> Path | None:
    return next((c for c in candidates if c.is_file()), None)


def _read_labels(csv_path: Path, categories: tuple[str, ...]) -> list[tuple[str, dict[str, int]]]:
    if not csv_path.is_file():
        raise Rule2DrcFormatError(f"{csv_path}: labels file not found")
    reader = csv.reader(io.StringIO(csv_path.read_text()))
    header = next(reader, [])
    if not header or header[0] != "filename":
        raise Rule2DrcFormatError(f"{csv_path}: header must start with 'filename'")
    columns = header[1:]
    missing = [c for c in categories if c not in columns]
    extra = [c for c in columns if c not in categories]
    if missing or extra:
        raise Rule2DrcFormatError(f"{csv_path}: label columns differ from categories "
                                  f"(missing {missing}, extra {extra})")
    rows = []
    for line_no, row in enumerate(reader, start=2):
        if not row:
            continue
        if len(row) != len(header) or any(v not in ("0", "1") for v in row[1:]):
            raise Rule2DrcFormatError(f"{csv_path}:{line_no}: expected a filename and 0/1 per category")
        rows.append((row[0], {c: int(v) for c, v in zip(columns, row[1:])}))
    for category in categories:
        values = {labels[category] for _, labels in rows}
        if values != {0, 1}:
            kind = "positive (1)" if 1 not in values else "negative (0)"
            raise Rule2DrcFormatError(f"{csv_path}: category {category!r} has no {kind} label")
    return rows


def _check_gds(path: Path) -> None:
    import klayout.db as kdb

    try:
        kdb.Layout().read(str(path))
    except RuntimeError as exc:
        raise Rule2DrcFormatError(f"{path}: unreadable layout: {exc}") from exc


def write_rule2drc(tasks: Iterable[DrcTask], out_dir: str | Path) -> Path:
    """Write tasks under ``out_dir/problems`` (byte-identical for equal tasks); returns that folder."""
    problems = Path(out_dir) / "problems"
    for task in tasks:
        _write_problem(task, problems / task.id)
    problems.mkdir(parents=True, exist_ok=True)
    return problems


def testcase_filename(task_id: str, case: Testcase) -> str:
    """The ``labels.csv`` filename of a testcase, relative to the folder holding ``problems/``."""
    return f"problems/{task_id}/{DATA_DIR}/{'fail' if case.failing else 'pass'}/{case.name}.gds"


def _write_problem(task: DrcTask, problem_dir: Path) -> None:
    if problem_dir.exists():
        shutil.rmtree(problem_dir)
    (problem_dir / "gold").mkdir(parents=True)
    (problem_dir / "gold" / f"{task.id}.drc").write_text(task.gold_deck)
    data_dir = problem_dir / DATA_DIR
    cases = sorted(task.public_examples + task.hidden_testcases, key=lambda c: testcase_filename(task.id, c))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["filename", *task.categories])
    for case in cases:
        filename = testcase_filename(task.id, case)
        target = problem_dir.parent.parent / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(case.gds_bytes())
        writer.writerow([filename, *(int(case.labels[c]) for c in task.categories)])
    (data_dir / "labels.csv").write_text(out.getvalue())
    (problem_dir / "spec.yaml").write_text(yaml.safe_dump(_spec(task), sort_keys=False, allow_unicode=True, width=100))


def _spec(task: DrcTask) -> dict[str, Any]:
    return {
        "id": task.id,
        "title": task.title,
        "nl_description": task.description,
        "layers": {name: list(task.layers[name]) for name in sorted(task.layers)},
        "thresholds": {name: task.thresholds[name] for name in sorted(task.thresholds)},
        "rules": [{"text": text, "category": category} for text, category in task.rules],
        "categories": list(task.categories),
        "deck": f"gold/{task.id}.drc",
        "data_dir": DATA_DIR,
        "group": task.group,
        "split": task.split,
        "public_examples": [testcase_filename(task.id, c) for c in task.public_examples],
        "metadata": _plain(task.metadata),
    }


def _plain(value: Any) -> Any:
    """Sorted, YAML-safe copy of nested metadata."""
    if isinstance(value, dict):
        return {str(k): _plain(value[k]) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
