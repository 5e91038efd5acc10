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
by their stem. Layouts are read into memory (``Testcase.gds`` is bytes): at most ``MAX_PROBLEM_LAYOUT_BYTES`` a
problem and ``MAX_FOLDER_LAYOUT_BYTES`` a folder (a problem that would take it over is an error issue), and no
other resource is kept per file.

A folder is untrusted (``docs/rule2drc.md``, "What a folder may be"): only regular files under a size cap
are read, YAML has no alias and a bounded depth, every path resolves inside the problem folder (no
absolute path, no ``..`` or symlink out of it), ids are 1 to 128 of ``A-Za-z0-9._-``, and a layout is
checked for a GDSII stream's first and last records but never parsed here (the sandbox parses it).

Public/hidden split: Rule2DRC has a single labelled set.  chipgym adds an optional
``public_examples`` spec key listing the ``filename`` values an agent may see; every
other row of ``labels.csv`` is hidden.  Without the key (published data) all rows are
hidden.  Optional keys ``group``, ``split`` and ``metadata`` round-trip the rest of
:class:`~chipgym.tasks.drc.task.DrcTask`; without ``split`` a task has none (``None``).  chipgym's optional
``training_dir`` key names a folder of the problem beside its data folder (``problems/{id}/training``, with
its own ``labels.csv``) holding the task's training layouts (``DrcTask.training_testcases``, graded in the
env's training regime); the published evaluator never reads it. Without it a task has no training layouts.

>>> import tempfile
>>> folder = load_rule2drc(write_rule2drc([], tempfile.mkdtemp()))
>>> folder.tasks, folder.issues
((), ())
"""
from __future__ import annotations

import csv
import io
import math
import os
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Sequence, TypeVar

import yaml
from yaml.composer import ComposerError

from chipgym.errors import Rule2DrcFormatError
from chipgym.files import FileRefused, read_regular_file
from chipgym.tasks.drc.task import DrcTask, Split, Testcase

DATA_DIR = "data/gds"
TRAINING_DIR = "training"  # chipgym's own: a problem's training layouts, beside (never inside) its data folder
T = TypeVar("T")

# What a folder can make this process read: regular files of at most these sizes (a problem's layouts are
# held in memory), YAML without aliases (a few lines of them expand to a billion nodes) and nested at most
# MAX_YAML_DEPTH deep.
MAX_SPEC_BYTES = 1 << 20
MAX_LABELS_BYTES = 16 << 20
MAX_DECK_BYTES = 1 << 20
MAX_LAYOUT_BYTES = 16 << 20
MAX_PROBLEM_LAYOUT_BYTES = 256 << 20
MAX_FOLDER_LAYOUT_BYTES = 4 << 30  # drc-v1's export, training pools included, holds about 0.5 GiB
MAX_YAML_DEPTH = 32
TASK_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
TASK_ID_RULE = "1 to 128 of A-Z a-z 0-9 . _ -, not starting with . or -"
GDS_HEADER = b"\x00\x06\x00\x02"  # a HEADER record: 6 bytes long, type 0x00, two-byte integer
GDS_ENDLIB = b"\x00\x04\x04"  # an ENDLIB record without its last byte, a zero like the padding that may follow


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
    if (path / "spec.yaml").exists():
        problem_dirs = [path]
    else:
        problems = path / "problems" if (path / "problems").is_dir() else path
        if not problems.is_dir():
            raise Rule2DrcFormatError(f"{path}: not a Rule2DRC problems folder")
        problem_dirs = sorted(p.parent for p in problems.glob("*/spec.yaml"))
    tasks: dict[str, tuple[DrcTask, Path]] = {}
    issues: list[Issue] = []
    held = 0  # bytes of layouts held by the tasks loaded so far
    for problem_dir in problem_dirs:
        try:
            try:
                task, warnings = _load_problem(problem_dir)
            except MemoryError:  # the caps per problem and folder are below what most machines have
                raise Rule2DrcFormatError(f"{problem_dir}: this process ran out of memory loading it") from None
            if task.id in tasks:
                raise Rule2DrcFormatError(f"{tasks[task.id][1]} and {problem_dir}: both define the problem id "
                                          f"{task.id!r}")
            size = sum(len(c.gds) for c in task.public_examples + task.hidden_testcases + task.training_testcases)
            if held + size > MAX_FOLDER_LAYOUT_BYTES:
                raise Rule2DrcFormatError(f"{problem_dir}: its layouts ({size} bytes) would take the folder's over "
                                          f"its limit of {MAX_FOLDER_LAYOUT_BYTES} bytes ({held} loaded before it)")
            held += size
        except Rule2DrcFormatError as exc:
            if strict:
                raise
            issues.append(Issue(problem_dir, "error", str(exc)))
            continue
        tasks[task.id] = (task, problem_dir)
        issues += [Issue(problem_dir, "warning", warning) for warning in warnings]
    return Rule2DrcFolder(tuple(task for _, (task, _) in sorted(tasks.items())), tuple(issues))


def _load_problem(problem_dir: Path) -> tuple[DrcTask, list[str]]:
    """One problem's task and the warnings about it; raises Rule2DrcFormatError naming the file or key at fault.

    Every file it reads is inside the problem folder, once symlinks and ``..`` are resolved.
    """
    folder = _resolve(problem_dir, str(problem_dir))
    if folder.parent != _resolve(problem_dir.parent, str(problem_dir)):
        raise Rule2DrcFormatError(f"{problem_dir}: a symlink to {folder}, outside its problems folder")
    spec_path = problem_dir / "spec.yaml"
    spec = _read_spec(_contained(_resolve(spec_path, str(spec_path)), folder, str(spec_path), "spec.yaml"), spec_path)
    if not spec.get("categories"):
        raise Rule2DrcFormatError(f"{spec_path}: missing key categories")

    def field(key: str, parse: Callable[[Any], T], default: T) -> T:
        """``parse(spec[key])``, or ``default`` when the key is absent or null."""
        if spec.get(key) is None:
            return default
        try:
            return parse(spec[key])
        except (AttributeError, IndexError, KeyError, TypeError, ValueError, OverflowError) as exc:
            problem = f"{type(exc).__name__}: {exc}"[:300]
            raise Rule2DrcFormatError(f"{spec_path}: key {key}: unexpected value ({problem})") from exc

    task_id = field("id", _task_id, problem_dir.name)
    if not TASK_ID.fullmatch(task_id):  # the folder's name: the spec gives no id
        raise Rule2DrcFormatError(f"{problem_dir}: no key id, and the folder's name is not an id ({TASK_ID_RULE})")
    categories = field("categories", lambda v: tuple(str(c) for c in v), ())
    root = folder.parent.parent  # the published evaluator's working directory
    deck = field("deck", str, f"gold/{task_id}.drc")
    deck_path = (_locate(folder, [folder, root], deck, f"{spec_path}: key deck")
                 or _locate(folder, [folder], f"gold/{task_id}.drc", f"{problem_dir}: gold deck"))
    if deck_path is None:
        raise Rule2DrcFormatError(f"{problem_dir / deck}: gold deck not found")
    data_key = field("data_dir", str, DATA_DIR)
    data_dir = _locate(folder, [folder, root], data_key, f"{spec_path}: key data_dir", "labels.csv")
    if data_dir is None:
        raise Rule2DrcFormatError(f"{spec_path}: key data_dir {data_key!r}: labels file not found "
                                  f"({' nor '.join(str(d / data_key / 'labels.csv') for d in (folder, root))})"[:1000])
    labels_csv, cases = _labelled_layouts(folder, root, data_dir, categories)
    by_filename = {case.filename: gds for gds, case in cases.items()}
    training: tuple[Testcase, ...] = ()
    if (training_key := field("training_dir", str, None)) is not None:
        training_dir = _locate(folder, [folder, root], training_key, f"{spec_path}: key training_dir", "labels.csv")
        if training_dir is None:
            raise Rule2DrcFormatError(f"{spec_path}: key training_dir {training_key!r}: labels file not found"[:1000])
        training_cases = _labelled_layouts(folder, root, training_dir, categories)[1]
        evaluation_bytes = {case.gds: case.filename for case in cases.values()}
        for gds, case in training_cases.items():
            if gds in cases or case.gds in evaluation_bytes:
                shared = cases[gds].filename if gds in cases else evaluation_bytes[case.gds]
                raise Rule2DrcFormatError(f"{spec_path}: key training_dir: training layout {case.filename} is the "
                                          f"layout {shared} of labels.csv (training never grades a layout of the "
                                          "data folder)"[:1000])
        training = tuple(training_cases.values())
    public = field("public_examples", lambda v: [str(f) for f in v], [])
    if unknown := [f for f in public if f not in by_filename]:
        raise Rule2DrcFormatError(f"{spec_path}: public_examples not in labels.csv: {', '.join(unknown)}"[:1000])
    public_paths = [by_filename[f] for f in public]
    unlabelled = tuple(sorted(  # rglob enters no symlinked folder, so only a file's own link needs resolving
        p.relative_to(data_dir).as_posix() for p in data_dir.rglob("*")
        if p.suffix.lower() == ".gds" and (p.resolve() if p.is_symlink() else p) not in cases
    ))
    warnings = [f"{labels_csv}: category {c!r} is labelled 0 on every layout; the published metric never "
                "succeeds on this task" for c in categories if not any(case.labels[c] for case in cases.values())]
    if unlabelled:
        warnings.append(f"{data_dir}: {len(unlabelled)} GDS file(s) without a row in labels.csv "
                        f"({', '.join(unlabelled[:3])}{', ...' if len(unlabelled) > 3 else ''}); "
                        "the published precheck fails this task")
    task = DrcTask(
        id=task_id,
        title=field("title", str, task_id),
        description=field("nl_description", str, ""),
        layers=field("layers", lambda v: {str(k): _layer(x) for k, x in v.items()}, {}),
        rules=field("rules", lambda v: tuple((str(r["text"]), str(r["category"])) for r in v),
                    tuple((c, c) for c in categories)),
        categories=categories,
        gold_deck=_read_text(deck_path, MAX_DECK_BYTES),
        public_examples=tuple(cases[p] for p in public_paths),
        hidden_testcases=tuple(c for p, c in cases.items() if p not in public_paths),
        training_testcases=training,
        group=field("group", str, "rule2drc"),
        thresholds=field("thresholds", lambda v: {str(k): _finite(x) for k, x in v.items()}, {}),
        split=field("split", _split, None),
        metadata=field("metadata", dict, {}),
        unlabelled_layouts=unlabelled,
    )
    return task, warnings


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses aliases and nesting deeper than ``MAX_YAML_DEPTH``."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        mark = self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not allowed", mark)
        if self.depth >= MAX_YAML_DEPTH:
            raise ComposerError(None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _read_spec(path: Path, shown: Path) -> dict[str, Any]:
    try:
        spec = yaml.load(_read_text(path, MAX_SPEC_BYTES, shown), _BoundedLoader)
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: an integer of more than 4300 digits
        raise Rule2DrcFormatError(f"{shown}: invalid YAML: {exc}"[:1000]) from exc
    if not isinstance(spec, dict):
        raise Rule2DrcFormatError(f"{shown}: expected a mapping")
    return spec


def _read_bytes(path: Path, limit: int, shown: Path | None = None) -> bytes:
    """A regular file of at most ``limit`` bytes (:func:`chipgym.files.read_regular_file`); errors name ``shown``
    (``path`` by default)."""
    try:
        return read_regular_file(path, limit)
    except FileRefused as exc:
        raise Rule2DrcFormatError(f"{shown or path}: {exc}") from exc


def _read_text(path: Path, limit: int, shown: Path | None = None) -> str:
    try:
        return _read_bytes(path, limit, shown).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rule2DrcFormatError(f"{shown or path}: not UTF-8 text (byte {exc.start})") from exc


def _read_gds(path: Path) -> bytes:
    """The layout's bytes, checked only for a GDSII stream's first and last records: it is parsed in the
    sandbox, where a hostile layout (an array of a billion instances, a recursive hierarchy) cannot crash
    this process."""
    data = _read_bytes(path, MAX_LAYOUT_BYTES)
    if not (data.startswith(GDS_HEADER) and data.rstrip(b"\0").endswith(GDS_ENDLIB)):
        raise Rule2DrcFormatError(f"{path}: unreadable layout: not a GDSII stream (a HEADER record first, "
                                  "ENDLIB last)")
    return data


def _resolve(path: Path, where: str) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: a symlink loop; ValueError: a NUL byte
        raise Rule2DrcFormatError(f"{where}: {str(path)[:200]!r} cannot be resolved ({exc})"[:1000]) from exc


def _locate(folder: Path, bases: Sequence[Path], value: str, where: str, probe: str = "") -> Path | None:
    """The first ``base / value`` (resolved) for which ``probe`` in it exists, or None. An absolute ``value``,
    or a first match outside ``folder`` (by ``..`` or a symlink), is refused."""
    if os.path.isabs(value):
        raise Rule2DrcFormatError(f"{where}: {value[:200]!r}: an absolute path is refused (paths are relative "
                                  "to the problem folder or the folder holding problems/)")
    found = next((base / value for base in bases if (base / value / probe).exists()), None)
    return found and _contained(_resolve(found, where), folder, where, value)


def _contained(path: Path, folder: Path, where: str, value: str) -> Path:
    if not path.is_relative_to(folder):
        raise Rule2DrcFormatError(f"{where}: {value[:200]!r} leads outside the problem folder {folder} (to {path})"
                                  [:1000])
    return path


def _task_id(value: Any) -> str:
    if not TASK_ID.fullmatch(text := str(value)):
        raise ValueError(f"{text[:200]!r} is not an id ({TASK_ID_RULE})")
    return text


def _layer(value: Any) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"expected [layer, datatype], got {repr(value)[:80]}")
    return _layer_number(value[0]), _layer_number(value[1])


def _layer_number(value: Any) -> int:
    """A GDSII layer or datatype number: an integer from 0 to 65535 (as a float only when integral: 68.0)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ValueError(f"expected an integer from 0 to 65535, got {repr(value)[:80]}")
    return value


def _finite(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {repr(value)[:80]}")
    return number


def _split(value: Any) -> Split:
    if value not in ("train", "test"):
        raise ValueError(f"expected train or test, got {value!r}")
    return value


def _read_labels(csv_path: Path, categories: tuple[str, ...]) -> list[tuple[str, dict[str, int]]]:
    try:
        return _parse_labels(csv_path, _read_text(csv_path, MAX_LABELS_BYTES), categories)
    except csv.Error as exc:
        raise Rule2DrcFormatError(f"{csv_path}: not a CSV file ({exc})") from exc


def _parse_labels(csv_path: Path, text: str, categories: tuple[str, ...]) -> list[tuple[str, dict[str, int]]]:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    if not header or header[0] != "filename":
        raise Rule2DrcFormatError(f"{csv_path}: header must start with 'filename'")
    columns = header[1:]
    missing = [c for c in categories if c not in columns]
    extra = [c for c in columns if c not in categories]
    if missing or extra:
        raise Rule2DrcFormatError(f"{csv_path}: label columns differ from categories "
                                  f"(missing {missing}, extra {extra})"[:1000])
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


def _labelled_layouts(folder: Path, root: Path, data_dir: Path,
                      categories: tuple[str, ...]) -> tuple[Path, dict[Path, Testcase]]:
    """The ``labels.csv`` of ``data_dir`` and its layouts as testcases, by path; raises Rule2DrcFormatError."""
    labels_csv = _contained(_resolve(data_dir / "labels.csv", str(data_dir)), folder, str(data_dir), "labels.csv")
    rows: dict[Path, tuple[str, dict[str, int]]] = {}
    layouts: dict[Path, bytes] = {}
    total = 0
    for filename, row_labels in _read_labels(labels_csv, categories):
        gds = _locate(folder, [root, folder, data_dir], filename, f"{labels_csv}: layout")
        if gds is None:
            raise Rule2DrcFormatError(f"{labels_csv}: layout {filename} not found")
        if gds in rows:
            raise Rule2DrcFormatError(f"{labels_csv}: layout {filename} has more than one row")
        layouts[gds] = _read_gds(gds)
        total += len(layouts[gds])
        if total > MAX_PROBLEM_LAYOUT_BYTES:
            raise Rule2DrcFormatError(f"{labels_csv}: the layouts add up to over {MAX_PROBLEM_LAYOUT_BYTES} bytes")
        rows[gds] = (filename, row_labels)
    stems = Counter(gds.stem for gds in rows)
    return labels_csv, {
        gds: Testcase(
            name=gds.stem if stems[gds.stem] == 1 else Path(os.path.relpath(gds, data_dir)).with_suffix("").as_posix(),
            gds=layouts[gds],
            labels=row_labels,
            filename=filename,
        )
        for gds, (filename, row_labels) in rows.items()
    }


def write_rule2drc(tasks: Iterable[DrcTask], out_dir: str | Path) -> Path:
    """Write tasks under ``out_dir/problems`` (byte-identical for equal tasks); returns that folder.

    Every path in them is relative to ``out_dir``, the published evaluator's working directory.
    """
    problems = Path(out_dir) / "problems"
    for task in tasks:
        _write_problem(task, problems / task.id)
    problems.mkdir(parents=True, exist_ok=True)
    return problems


def testcase_filename(task_id: str, case: Testcase, data_dir: str = DATA_DIR) -> str:
    """The ``labels.csv`` filename of a testcase, relative to the folder holding ``problems/`` (in ``data_dir``
    of the problem folder: the data folder, or the training folder).

    A name that is a path in the data folder (``pass/x``, given to layouts that share a stem) is kept;
    other layouts go to ``pass/`` or ``fail/`` by their labels.

    >>> [testcase_filename("0001", Testcase(name, b"", {"a": 1})) for name in ("x", "pass/x")]
    ['problems/0001/data/gds/fail/x.gds', 'problems/0001/data/gds/pass/x.gds']
    """
    where = case.name if "/" in case.name else f"{'fail' if case.failing else 'pass'}/{case.name}"
    return f"problems/{task_id}/{data_dir}/{where}.gds"


def labels_filename(task_id: str, case: Testcase) -> str:
    """How the published evaluator names a layout: its ``labels.csv`` filename as read, or as
    :func:`write_rule2drc` would write it."""
    return case.filename or testcase_filename(task_id, case)


def _write_problem(task: DrcTask, problem_dir: Path) -> None:
    """Writes one problem; nothing is removed or written unless every path stays inside ``problem_dir``."""
    if not TASK_ID.fullmatch(task.id):
        raise Rule2DrcFormatError(f"task id {task.id[:200]!r}: not an id ({TASK_ID_RULE})")
    pools = [(DATA_DIR, task.public_examples + task.hidden_testcases)]
    if task.training_testcases:
        pools.append((TRAINING_DIR, task.training_testcases))
    folder = problem_dir.resolve()
    planned = []
    for data_dir, pool in pools:
        cases = sorted(pool, key=lambda c: testcase_filename(task.id, c, data_dir))
        filenames = [testcase_filename(task.id, case, data_dir) for case in cases]
        targets = [_contained(_resolve(folder.parent.parent / f, f), folder, f"task {task.id}: testcase", f)
                   for f in filenames]
        planned.append((problem_dir / data_dir, list(zip(cases, filenames, targets))))
    if problem_dir.exists():
        shutil.rmtree(problem_dir)
    (problem_dir / "gold").mkdir(parents=True)
    (problem_dir / "gold" / f"{task.id}.drc").write_text(task.gold_deck)
    for data_dir, rows in planned:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["filename", *task.categories])
        for case, filename, target in rows:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(case.gds_bytes())
            writer.writerow([filename, *(int(case.labels[c]) for c in task.categories)])
        data_dir.mkdir(parents=True, exist_ok=True)
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
        **({"training_dir": f"{problem}/{TRAINING_DIR}"} if task.training_testcases else {}),
        "metadata": _plain(task.metadata),
    }


def _plain(value: Any) -> Any:
    """Sorted, YAML-safe copy of nested metadata."""
    if isinstance(value, dict):
        return {str(k): _plain(value[k]) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
