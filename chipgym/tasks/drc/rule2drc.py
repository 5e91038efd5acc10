"""Reading and writing the Rule2DRC on-disk task format.

Layout of one problem, as published::

    problems/{id}/spec.yaml             id, categories (+ optional keys below)
    problems/{id}/gold/{id}.drc
    problems/{id}/data/gds/labels.csv   filename,<category>...  (0/1 per category)
    problems/{id}/data/gds/{pass,fail}/*.gds

Only ``categories`` and the labels are needed. Optional spec keys and their defaults: ``id`` (the
folder name), ``title`` (the id), ``nl_description`` (empty), ``layers`` and ``thresholds`` (none),
``rules`` (one per category, its text the category name), ``deck`` (``gold/{id}.drc``), ``data_dir``
(``data/gds``).

Paths are read as the published evaluator reads them, and in the other forms it accepts: ``deck``,
``data_dir`` and the ``filename`` column may be relative to the folder holding ``problems/`` (the
published data: ``problems/{id}/data/gds/fail/x.gds``), to the problem folder (``data/gds/fail/x.gds``,
or the flat ``data_dir: data`` with rows ``data/x.gds``), and a ``filename`` also to the data folder
(``x.gds``). :func:`write_rule2drc` writes the published form, which that evaluator grades when run
from the folder holding ``problems/``.

Loading is lenient by default: a broken problem is reported as an error :class:`Issue` (naming the
problem folder and the file or field at fault) and the others load; ``strict=True`` raises at the
first one. Some loaded problems come with a warning: a category labelled 0 on every layout (the
published metric never succeeds on it) and GDS files with no label row (the published precheck fails
the task; :attr:`DrcTask.unlabelled_layouts`, and :func:`chipgym.scoring.drc.grade` fails it too).
Layouts are keyed by their path: two files of one stem (``pass/x.gds``, ``fail/x.gds``) are two
testcases, named by their path in the data folder (``pass/x``, ``fail/x``); other testcases are named
by their stem. Layouts are read into memory (``Testcase.gds`` is bytes; a task's layouts are small).

Public/hidden split: Rule2DRC has a single labelled set.  chipgym adds an optional
``public_examples`` spec key listing the ``filename`` values an agent may see; every
other row of ``labels.csv`` is hidden.  Without the key (published data) all rows are
hidden.  Optional keys ``group``, ``split`` and ``metadata`` round-trip the rest of
:class:`~chipgym.tasks.drc.task.DrcTask`; without ``split`` a task has none (``None``).

>>> import tempfile
>>> folder = load_rule2drc(write_rule2drc([], tempfile.mkdtemp()))
>>> folder.tasks, folder.issues
((), ())
"""
from __future__ import annotations

import csv
import io
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, TypeVar

import yaml

from chipgym.errors import Rule2DrcFormatError
from chipgym.tasks.drc.task import DrcTask, Split, Testcase

DATA_DIR = "data/gds"
T = TypeVar("T")


@dataclass(frozen=True)
class Issue:
    """Something wrong with one problem folder: an ``error`` kept it from loading, a ``warning`` did not."""

    problem: Path
    severity: Literal["error", "warning"]
    message: str  # names the file or the spec key at fault

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


@dataclass(frozen=True)
class Rule2DrcFolder:
    """The tasks of a Rule2DRC folder, sorted by id, and the issues of its problems, in folder order."""

    tasks: tuple[DrcTask, ...]
    issues: tuple[Issue, ...]


def load_rule2drc(path: str | Path, strict: bool = False) -> Rule2DrcFolder:
    """Load every problem under ``path``: a ``problems/`` folder, its parent, or one problem folder.

    Works from any working directory. A problem that cannot be loaded becomes an error :class:`Issue`
    and the others still load; with ``strict`` it raises :class:`Rule2DrcFormatError` instead.
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
    issues: list[Issue] = []
    for problem_dir in problem_dirs:
        try:
            task, warnings = _load_problem(problem_dir)
            if task.id in tasks:
                raise Rule2DrcFormatError(f"{tasks[task.id][1]} and {problem_dir}: both define the problem id "
                                          f"{task.id!r}")
        except Rule2DrcFormatError as exc:
            if strict:
                raise
            issues.append(Issue(problem_dir, "error", str(exc)))
            continue
        tasks[task.id] = (task, problem_dir)
        issues += [Issue(problem_dir, "warning", warning) for warning in warnings]
    return Rule2DrcFolder(tuple(task for _, (task, _) in sorted(tasks.items())), tuple(issues))


def _load_problem(problem_dir: Path) -> tuple[DrcTask, list[str]]:
    """One problem's task and the warnings about it; raises Rule2DrcFormatError naming the file or key at fault."""
    spec_path = problem_dir / "spec.yaml"
    try:
        spec = yaml.safe_load(spec_path.read_text())
    except yaml.YAMLError as exc:
        raise Rule2DrcFormatError(f"{spec_path}: invalid YAML: {exc}") from exc
    if not isinstance(spec, dict):
        raise Rule2DrcFormatError(f"{spec_path}: expected a mapping")
    if not spec.get("categories"):
        raise Rule2DrcFormatError(f"{spec_path}: missing key categories")

    def field(key: str, parse: Callable[[Any], T], default: T) -> T:
        """``parse(spec[key])``, or ``default`` when the key is absent or null."""
        if spec.get(key) is None:
            return default
        try:
            return parse(spec[key])
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
            raise Rule2DrcFormatError(f"{spec_path}: key {key}: unexpected value ({problem})") from exc

    task_id = field("id", str, problem_dir.name)
    categories = field("categories", lambda v: tuple(str(c) for c in v), ())
    root = problem_dir.parent.parent  # the published evaluator's working directory
    deck = field("deck", str, f"gold/{task_id}.drc")
    deck_path = _first_existing([problem_dir / deck, root / deck, problem_dir / "gold" / f"{task_id}.drc"])
    if deck_path is None:
        raise Rule2DrcFormatError(f"{problem_dir / deck}: gold deck not found")
    data_key = field("data_dir", str, DATA_DIR)
    data_dirs = [problem_dir / data_key, root / data_key]
    data_dir = next((d for d in data_dirs if (d / "labels.csv").is_file()), None)
    if data_dir is None:
        raise Rule2DrcFormatError(f"{spec_path}: key data_dir {data_key!r}: labels file not found "
                                  f"({' nor '.join(str(d / 'labels.csv') for d in data_dirs)})")
    labels_csv = data_dir / "labels.csv"
    by_filename: dict[str, Path] = {}
    labels: dict[Path, dict[str, int]] = {}
    for filename, row_labels in _read_labels(labels_csv, categories):
        gds = _first_existing([root / filename, problem_dir / filename, data_dir / filename])
        if gds is None:
            raise Rule2DrcFormatError(f"{labels_csv}: layout {filename} not found")
        gds = gds.resolve()
        if gds in labels:
            raise Rule2DrcFormatError(f"{labels_csv}: layout {filename} has more than one row")
        _check_gds(gds)
        by_filename[filename], labels[gds] = gds, row_labels
    filenames = {gds: filename for filename, gds in by_filename.items()}
    stems = Counter(gds.stem for gds in labels)
    cases = {
        gds: Testcase(
            name=gds.stem if stems[gds.stem] == 1 else Path(os.path.relpath(gds, data_dir)).with_suffix("").as_posix(),
            gds=gds.read_bytes(),
            labels=row_labels,
            filename=filenames[gds],
        )
        for gds, row_labels in labels.items()
    }
    public = field("public_examples", lambda v: [str(f) for f in v], [])
    if unknown := [f for f in public if f not in by_filename]:
        raise Rule2DrcFormatError(f"{spec_path}: public_examples not in labels.csv: {', '.join(unknown)}")
    public_paths = [by_filename[f] for f in public]
    unlabelled = tuple(sorted(
        p.relative_to(data_dir).as_posix()
        for p in data_dir.rglob("*") if p.suffix.lower() == ".gds" and p.resolve() not in labels
    ))
    warnings = [f"{labels_csv}: category {c!r} is labelled 0 on every layout; the published metric never "
                "succeeds on this task" for c in categories if not any(row[c] for row in labels.values())]
    if unlabelled:
        warnings.append(f"{data_dir}: {len(unlabelled)} GDS file(s) without a row in labels.csv "
                        f"({', '.join(unlabelled[:3])}{', ...' if len(unlabelled) > 3 else ''}); "
                        "the published precheck fails this task")
    task = DrcTask(
        id=task_id,
        title=field("title", str, task_id),
        description=field("nl_description", str, ""),
        layers=field("layers", lambda v: {str(k): (int(x[0]), int(x[1])) for k, x in v.items()}, {}),
        rules=field("rules", lambda v: tuple((str(r["text"]), str(r["category"])) for r in v),
                    tuple((c, c) for c in categories)),
        categories=categories,
        gold_deck=deck_path.read_text(),
        public_examples=tuple(cases[p] for p in public_paths),
        hidden_testcases=tuple(c for p, c in cases.items() if p not in public_paths),
        group=field("group", str, "rule2drc"),
        thresholds=field("thresholds", lambda v: {str(k): float(x) for k, x in v.items()}, {}),
        split=field("split", _split, None),
        metadata=field("metadata", dict, {}),
        unlabelled_layouts=unlabelled,
    )
    return task, warnings


def _split(value: Any) -> Split:
    if value not in ("train", "test"):
        raise ValueError(f"expected train or test, got {value!r}")
    return value


def _first_existing(candidates: Iterable[Path]) -> Path | None:
    return next((c for c in candidates if c.is_file()), None)


def _read_labels(csv_path: Path, categories: tuple[str, ...]) -> list[tuple[str, dict[str, int]]]:
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
    if not rows:
        raise Rule2DrcFormatError(f"{csv_path}: no labelled layouts")
    return rows


def _check_gds(path: Path) -> None:
    import klayout.db as kdb

    try:
        kdb.Layout().read(str(path))
    except RuntimeError as exc:
        raise Rule2DrcFormatError(f"{path}: unreadable layout: {exc}") from exc


def write_rule2drc(tasks: Iterable[DrcTask], out_dir: str | Path) -> Path:
    """Write tasks under ``out_dir/problems`` (byte-identical for equal tasks); returns that folder.

    Every path in them is relative to ``out_dir``, the published evaluator's working directory.
    """
    problems = Path(out_dir) / "problems"
    for task in tasks:
        _write_problem(task, problems / task.id)
    problems.mkdir(parents=True, exist_ok=True)
    return problems


def testcase_filename(task_id: str, case: Testcase) -> str:
    """The ``labels.csv`` filename of a testcase, relative to the folder holding ``problems/``.

    A name that is a path in the data folder (``pass/x``, given to layouts that share a stem) is kept;
    other layouts go to ``pass/`` or ``fail/`` by their labels.

    >>> [testcase_filename("0001", Testcase(name, b"", {"a": 1})) for name in ("x", "pass/x")]
    ['problems/0001/data/gds/fail/x.gds', 'problems/0001/data/gds/pass/x.gds']
    """
    where = case.name if "/" in case.name else f"{'fail' if case.failing else 'pass'}/{case.name}"
    return f"problems/{task_id}/{DATA_DIR}/{where}.gds"


def labels_filename(task_id: str, case: Testcase) -> str:
    """How the published evaluator names a layout: its ``labels.csv`` filename as read, or as
    :func:`write_rule2drc` would write it."""
    return case.filename or testcase_filename(task_id, case)


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
    problem = f"problems/{task.id}"
    return {
        "id": task.id,
        "title": task.title,
        "nl_description": task.description,
        "layers": {name: list(task.layers[name]) for name in sorted(task.layers)},
        "thresholds": {name: task.thresholds[name] for name in sorted(task.thresholds)},
        "rules": [{"text": text, "category": category} for text, category in task.rules],
        "categories": list(task.categories),
        "deck": f"{problem}/gold/{task.id}.drc",
        "data_dir": f"{problem}/{DATA_DIR}",
        "group": task.group,
        **({"split": task.split} if task.split else {}),
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
