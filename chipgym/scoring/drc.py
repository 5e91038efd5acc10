"""Grade a DRC deck against a task's hidden layouts, by one of two metrics.

``metric="chipgym"`` (the default): a deck succeeds when it runs without error on every hidden layout,
emits no category the task does not define (even one without markers), and its verdict per category (at
least one marker, or none) matches the label on every layout. ``metric="rule2drc"`` decides as the published
Rule2DRC evaluator does (``docs/rule2drc.md`` lists every difference): every layout of the data folder is run
(public ones too), a category's verdict is read under the name KLayout writes in the report (quoted unless
it is a word), every category's F1 must be 1.0 (with no positive label or prediction it is 0), a layout the
deck failed on counts as predicting 0 and fails the run, and an undefined category counts only when it fires.
Under both, a task whose data folder holds layouts with no label fails before any deck runs
(``Grade.precheck`` says why), as the published evaluator's precheck fails it.
``mode="markers"`` (chipgym's metric only) asks more: the marker geometry itself must equal the gold deck's,
whose results were computed beforehand on another pool (never beside the deck being graded).

A :class:`Grade` keeps nothing that the graded deck controls: not its error messages, not the names of
the categories it made up, only error classes and counts. Layouts are named as the task's ``labels.csv``
names them. When the engine or the gold results fail, the grade is ``unavailable``, never a pass or the
deck's zero.

>>> from chipgym.scoring.drc import grade                                   # doctest: +SKIP
>>> result = grade(task, deck_text, pool, metric="rule2drc")                # doctest: +SKIP
>>> result.success, result.compile_rate, result.mismatches[:1]              # doctest: +SKIP
(False, 1.0, (Mismatch(layout='problems/0001/data/gds/fail/notch_1.gds', category='m1.1', expected=1, got=0),))
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

import numpy as np

from chipgym.engines.klayout import DrcJob, DrcPool, DrcResult, DrcStatus, Marker
from chipgym.results import JsonResult
from chipgym.tasks.drc.rule2drc import labels_filename
from chipgym.tasks.drc.task import DrcTask, Testcase

Metric = Literal["chipgym", "rule2drc"]
METRICS: tuple[Metric, ...] = ("chipgym", "rule2drc")
KLAYOUT_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
"""a category name KLayout writes into a report as it is; it quotes any other"""


@dataclass(frozen=True)
class Mismatch:
    """One layout and category where the deck ran but disagrees with the label (or the gold markers)."""

    layout: str
    category: str
    expected: int
    got: int


@dataclass(frozen=True)
class LayoutError:
    """One layout the deck failed on, and how (a :class:`DrcStatus` value: compile, runtime, timeout, ...)."""

    layout: str
    error: str


@dataclass(frozen=True)
class CategoryScore:
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class Grade(JsonResult):
    """The outcome of grading one deck on one task's layouts."""

    success: bool
    error: str | None  # the error class of the first layout the deck failed on, None when it ran everywhere
    error_counts: dict[str, int]
    layouts_matched: float  # fraction of layouts where the deck ran and every category matched
    categories: dict[str, CategoryScore]
    f1: float  # mean of the per-category F1
    mismatches: tuple[Mismatch, ...]  # on layouts the deck ran on
    errors: tuple[LayoutError, ...] = ()  # the layouts the deck failed on
    extra_categories: int = 0  # how many categories the deck made up (their names are not kept)
    compile_rate: float = 0.0  # fraction of layouts the deck ran on without error
    n_cases: int = 0  # layouts the deck was run on
    metric: Metric = "chipgym"
    unavailable: str = ""  # why grading could not be done: not the deck's fault, and no verdict
    precheck: str = ""  # why the task fails the published evaluator's precheck: a fail whatever the deck, not run

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Grade:
        return cls(**{**data, "categories": {c: CategoryScore(**s) for c, s in data["categories"].items()},
                      "mismatches": tuple(Mismatch(**m) for m in data["mismatches"]),
                      "errors": tuple(LayoutError(**e) for e in data.get("errors", ()))})


def grade(
    task: DrcTask,
    deck: str,
    pool: DrcPool,
    gold: Sequence[DrcResult] | None = None,
    metric: Metric = "chipgym",
) -> Grade:
    """Runs ``deck`` on the task's layouts through ``pool`` and compares it with the labels (and with ``gold``,
    the gold deck's results on the hidden layouts, for markers mode), unless the task fails its precheck."""
    return grade_many([(task, deck)], pool, {task.id: gold} if gold is not None else None, metric=metric)[0]


def grade_many(
    pairs: Sequence[tuple[DrcTask, str]],
    pool: DrcPool,
    gold: Mapping[str, Sequence[DrcResult]] | None = None,
    progress: bool = False,
    metric: Metric = "chipgym",
) -> list[Grade]:
    """The grades of many (task, deck) pairs, run as one batch spread over the pool (how Best-of-N candidates
    are graded); ``gold`` maps a task id to the gold deck's results, for markers mode."""
    check_metric(metric, markers=gold is not None)
    prechecked = [precheck(task, metric) for task, _ in pairs]
    jobs = [DrcJob(deck, [case.gds for case in graded_cases(task, metric)])
            for (task, deck), failed in zip(pairs, prechecked) if failed is None]
    results = iter(pool.run_batch(jobs, progress=progress))
    return [failed if failed is not None else _compare_task(task, next(results), gold, metric)
            for (task, _), failed in zip(pairs, prechecked)]


def check_metric(metric: str, markers: bool = False) -> None:
    """Raises ValueError for an unknown metric, or for markers mode beside the published metric."""
    if metric not in METRICS:
        raise ValueError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
    if markers and metric == "rule2drc":
        raise ValueError("metric 'rule2drc' compares verdicts only, as the published evaluator does; "
                         "markers mode needs metric 'chipgym'")


TRAINING_DRAW = 12  # training layouts per submit (more only to hold a passing and a failing one of every category):
# a coin-flip deck passes one task in 4096 or fewer; the same for every task, so that no count in training tells
# the size of the evaluation pool


def grading_rng(secret: int, task_id: str, *purpose: int) -> np.random.Generator:
    """The random draws of grading one task: from the grading secret, the task and what is drawn, never from a
    seed the agent chooses."""
    return np.random.default_rng([secret, int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:8]), *purpose])


def evaluation_order(task: DrcTask, cases: Sequence[Testcase], secret: int) -> list[Testcase]:
    """``cases`` in the order a deck meets them at evaluation, which only the grading secret tells."""
    return [cases[int(i)] for i in grading_rng(secret, task.id, 0).permutation(len(cases))]


def training_draw(task: DrcTask, secret: int, index: int) -> list[Testcase]:
    """The training layouts of the secret's ``index``-th draw for the task: ``TRAINING_DRAW`` of them (or all there
    are), more only where it takes more to hold a passing and a failing one of every category the pool has, in a
    random order, all drawn from the grading secret. Nothing about the evaluation layouts changes it."""
    pool = task.training_testcases
    rng = grading_rng(secret, task.id, 1, index)
    order = [int(i) for i in rng.permutation(len(pool))]
    chosen: list[int] = []
    for category in task.categories:
        for verdict in (0, 1):
            if not any(pool[i].labels.get(category) == verdict for i in chosen):
                chosen += [i for i in order if pool[i].labels.get(category) == verdict][:1]
    chosen += [i for i in order if i not in chosen][:max(0, TRAINING_DRAW - len(chosen))]
    return [pool[chosen[int(i)]] for i in rng.permutation(len(chosen))]


def graded_cases(task: DrcTask, metric: Metric = "chipgym") -> tuple[Testcase, ...]:
    """The layouts a metric grades: the hidden ones, or (rule2drc) every labelled layout of the data folder."""
    return task.public_examples + task.hidden_testcases if metric == "rule2drc" else task.hidden_testcases


def _compare_task(task: DrcTask, results: Sequence[DrcResult], gold: Mapping[str, Sequence[DrcResult]] | None,
                  metric: Metric) -> Grade:
    cases = graded_cases(task, metric)
    names = [labels_filename(task.id, case) for case in cases]
    return compare(cases, task.categories, results, gold[task.id] if gold is not None else None, metric, names)


def precheck(task: DrcTask, metric: Metric = "chipgym") -> Grade | None:
    """The failing grade of a task that fails the published evaluator's precheck (a layout of its data folder
    has no label row), or None when it passes; no deck needs to run."""
    if not task.unlabelled_layouts:
        return None
    reason = f"{len(task.unlabelled_layouts)} layout(s) of the data folder have no label row"
    return Grade(False, None, {}, 0.0, {}, 0.0, (), metric=metric, precheck=reason)


def grade_on(
    cases: Sequence[Testcase],
    categories: Sequence[str],
    deck: str,
    pool: DrcPool,
    gold: Sequence[DrcResult] | None = None,
    metric: Metric = "chipgym",
) -> Grade:
    """Grades ``deck`` on any labelled layouts (hidden ones, public ones, or an agent's own tests)."""
    return compare(cases, categories, pool.run(deck, [case.gds for case in cases]), gold, metric)


def gold_results(task: DrcTask, cases: Sequence[Testcase], pool: DrcPool) -> list[DrcResult]:
    """The gold deck's results on ``cases``, for markers mode; run them on a pool that runs no agent deck."""
    return pool.run(task.gold_deck, [case.gds for case in cases])


def compare(
    cases: Sequence[Testcase],
    categories: Sequence[str],
    results: Sequence[DrcResult],
    gold: Sequence[DrcResult] | None = None,
    metric: Metric = "chipgym",
    names: Sequence[str] | None = None,
) -> Grade:
    """The grade of a deck's results against labelled layouts (and, when given, the gold deck's markers);
    layouts are named by ``names``, or else by their testcase names."""
    check_metric(metric, markers=gold is not None)
    if problem := _unavailable(results, gold):
        return Grade(False, None, {}, 0.0, {}, 0.0, (), metric=metric, unavailable=problem)
    names = names or [case.name for case in cases]
    mismatches: list[Mismatch] = []
    errors: list[LayoutError] = []
    tallies = {c: Counter() for c in categories}
    matched = 0
    for index, (name, case, result) in enumerate(zip(names, cases, results, strict=True)):
        verdicts = _layout_verdicts(case, result, categories, gold[index] if gold is not None else None, metric)
        for category, expected, got, _ in verdicts:
            tallies[category][(expected, got)] += 1
        if not result.ok:
            errors.append(LayoutError(name, result.status.value))
            continue
        wrong = [Mismatch(name, category, expected, got) for category, expected, got, agrees in verdicts if not agrees]
        mismatches += wrong
        matched += not wrong
    scores = {c: _score(t, metric) for c, t in tallies.items()}
    extra = _extra_categories(results, categories, metric)
    agrees = all(s.f1 == 1.0 for s in scores.values()) if metric == "rule2drc" else not mismatches
    return Grade(
        success=agrees and not errors and not extra,
        error=errors[0].error if errors else None,
        error_counts=dict(Counter(e.error for e in errors)),
        layouts_matched=matched / len(cases) if cases else 0.0,
        categories=scores,
        f1=sum(s.f1 for s in scores.values()) / len(scores) if scores else 0.0,
        mismatches=tuple(mismatches),
        errors=tuple(errors),
        extra_categories=extra,
        compile_rate=(len(cases) - len(errors)) / len(cases) if cases else 0.0,
        n_cases=len(cases),
        metric=metric,
    )


def _unavailable(results: Sequence[DrcResult], gold: Sequence[DrcResult] | None) -> str:
    """Why these results cannot be graded ('' when they can)."""
    if any(r.status is DrcStatus.UNAVAILABLE for r in results):
        return "the DRC engine was unavailable for some layouts"
    if gold is not None and (len(gold) != len(results) or not all(g.ok for g in gold)):
        return "the gold deck's results are missing or failed on some layouts"
    return ""


def _layout_verdicts(
    case: Testcase,
    result: DrcResult,
    categories: Sequence[str],
    gold: DrcResult | None,
    metric: Metric,
) -> list[tuple[str, int, int, bool]]:
    """Per category of one layout: its label, the verdict counted for it, and whether the deck agrees
    (the verdict and, with ``gold``, the markers; never where the deck failed)."""
    verdicts = []
    for category in categories:
        expected = case.labels[category]
        if not result.ok:
            verdicts.append((category, expected, _failed_verdict(expected, metric), False))
            continue
        got = _verdict(result, category, metric)
        same_markers = gold is None or canonical(result, category) == canonical(gold, category)
        verdicts.append((category, expected, got, got == expected and same_markers))
    return verdicts


def _verdict(result: DrcResult, category: str, metric: Metric) -> int:
    """1 when the category has a marker; under rule2drc only when KLayout writes its name as it is, for the
    published evaluator matches the report's name (``'m1.1'`` for m1.1) with the task's."""
    found = result.categories.get(category)
    return int(found is not None and found.count > 0 and (metric == "chipgym" or _klayout_word(category)))


def _failed_verdict(expected: int, metric: Metric) -> int:
    """The verdict counted for a layout the deck failed on: the wrong one (chipgym), or 0 (rule2drc)."""
    return 1 - expected if metric == "chipgym" else 0


def _extra_categories(results: Sequence[DrcResult], categories: Sequence[str], metric: Metric) -> int:
    """How many names the deck gave that are not the task's: every one it declared (chipgym), or those with
    markers as KLayout writes them in the report (rule2drc)."""
    if metric == "chipgym":
        return len({name for r in results for name in r.categories} - set(categories))
    fired = {name for r in results for name, found in r.categories.items() if found.count > 0}
    return len({name for name in fired if name not in categories or not _klayout_word(name)})


def _klayout_word(name: str) -> bool:
    return KLAYOUT_WORD.fullmatch(name) is not None


def _score(tally: Counter, metric: Metric) -> CategoryScore:
    """Precision, recall and F1 from (expected, got) counts. With nothing to count, precision (recall) is 1
    when nothing was missed (falsely flagged) under chipgym's metric, 0 under the published one."""
    tp, fp, fn = tally[(1, 1)], tally[(0, 1)], tally[(1, 0)]
    lenient = metric == "chipgym"
    precision = tp / (tp + fp) if tp + fp else float(lenient and fn == 0)
    recall = tp / (tp + fn) if tp + fn else float(lenient and fp == 0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return CategoryScore(precision, recall, f1)


def canonical(result: DrcResult, category: str) -> list[Marker]:
    """A category's markers in an order- and orientation-free form, for comparing geometry."""
    found = result.categories.get(category)
    return sorted((_canonical_marker(m) for m in found.markers), key=repr) if found else []


def _canonical_marker(marker: Marker) -> Marker:
    kind, coords = marker[0], marker[1]
    points = list(zip(coords[0::2], coords[1::2]))
    if kind == "polygon":
        start = points.index(min(points))
        holes = sorted(_canonical_marker(("polygon", hole))[1] for hole in marker[2:])
        return (kind, tuple(points[start:] + points[:start]), *holes)
    if kind in ("edge_pair", "edge"):
        edges = sorted(tuple(sorted(points[i:i + 2])) for i in range(0, len(points), 2))
        return (kind, tuple(edges))
    return (kind, tuple(points))
