"""Grade a DRC deck against a task's hidden layouts.

A deck succeeds when it runs without error on every hidden layout, emits no category the task does not
define, and its verdict per category (at least one marker, or none) matches the label on every layout.
A task whose data folder holds layouts with no label fails before any deck runs (``Grade.precheck``
says why), as the published Rule2DRC evaluator's precheck fails it.
``mode="markers"`` asks more: the marker geometry itself must equal the gold deck's, whose results were
computed beforehand on another pool (never beside the deck being graded).

A :class:`Grade` keeps nothing that the graded deck controls: not its error messages, not the names of
the categories it made up, only error classes and counts. When the engine or the gold results fail, the
grade is ``unavailable``, never a pass or the deck's zero.

>>> from chipgym.scoring.drc import grade                                   # doctest: +SKIP
>>> result = grade(task, deck_text, pool)                                   # doctest: +SKIP
>>> result.success, result.f1, result.mismatches[:1]                        # doctest: +SKIP
(False, 0.8, (Mismatch(layout='fail/notch_1', category='m1.1', expected=1, got=0),))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from chipgym.engines.klayout import DrcJob, DrcPool, DrcResult, DrcStatus, Marker
from chipgym.results import JsonResult
from chipgym.tasks.drc.task import DrcTask, Testcase


@dataclass(frozen=True)
class Mismatch:
    """One layout and category where the deck disagrees with the label (or, in markers mode, the gold markers)."""

    layout: str
    category: str
    expected: int
    got: int


@dataclass(frozen=True)
class CategoryScore:
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class Grade(JsonResult):
    """The outcome of grading one deck on one task's hidden layouts."""

    success: bool
    error: str | None  # the error class of the first layout the deck failed on, None when it ran everywhere
    error_counts: dict[str, int]
    layouts_matched: float  # fraction of layouts where every category matched
    categories: dict[str, CategoryScore]
    f1: float  # mean of the per-category F1
    mismatches: tuple[Mismatch, ...]
    extra_categories: int = 0  # how many categories the deck made up (their names are not kept)
    unavailable: str = ""  # why grading could not be done: not the deck's fault, and no verdict
    precheck: str = ""  # why the task fails the published evaluator's precheck: a fail whatever the deck, not run

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Grade:
        return cls(**{**data, "categories": {c: CategoryScore(**s) for c, s in data["categories"].items()},
                      "mismatches": tuple(Mismatch(**m) for m in data["mismatches"])})


def grade(task: DrcTask, deck: str, pool: DrcPool, gold: Sequence[DrcResult] | None = None) -> Grade:
    """Runs ``deck`` on the task's hidden layouts through ``pool`` and compares it with the labels (and with
    ``gold``, the gold deck's results on them, for markers mode), unless the task fails its precheck."""
    return grade_many([(task, deck)], pool, {task.id: gold} if gold is not None else None)[0]


def grade_many(
    pairs: Sequence[tuple[DrcTask, str]],
    pool: DrcPool,
    gold: Mapping[str, Sequence[DrcResult]] | None = None,
    progress: bool = False,
) -> list[Grade]:
    """The grades of many (task, deck) pairs, run as one batch spread over the pool (how Best-of-N candidates
    are graded); ``gold`` maps a task id to the gold deck's results, for markers mode."""
    prechecked = [precheck(task) for task, _ in pairs]
    jobs = [DrcJob(deck, [case.gds for case in task.hidden_testcases])
            for (task, deck), failed in zip(pairs, prechecked) if failed is None]
    results = iter(pool.run_batch(jobs, progress=progress))
    return [failed if failed is not None else
            compare(task.hidden_testcases, task.categories, next(results), gold[task.id] if gold is not None else None)
            for (task, _), failed in zip(pairs, prechecked)]


def precheck(task: DrcTask) -> Grade | None:
    """The failing grade of a task that fails the published evaluator's precheck (a layout of its data folder
    has no label row), or None when it passes; no deck needs to run."""
    if not task.unlabelled_layouts:
        return None
    reason = f"{len(task.unlabelled_layouts)} layout(s) of the data folder have no label row"
    return Grade(False, None, {}, 0.0, {}, 0.0, (), precheck=reason)


def grade_on(
    cases: Sequence[Testcase],
    categories: Sequence[str],
    deck: str,
    pool: DrcPool,
    gold: Sequence[DrcResult] | None = None,
) -> Grade:
    """Grades ``deck`` on any labelled layouts (hidden ones, public ones, or an agent's own tests)."""
    return compare(cases, categories, pool.run(deck, [case.gds for case in cases]), gold)


def gold_results(task: DrcTask, cases: Sequence[Testcase], pool: DrcPool) -> list[DrcResult]:
    """The gold deck's results on ``cases``, for markers mode; run them on a pool that runs no agent deck."""
    return pool.run(task.gold_deck, [case.gds for case in cases])


def compare(
    cases: Sequence[Testcase],
    categories: Sequence[str],
    results: Sequence[DrcResult],
    gold: Sequence[DrcResult] | None = None,
) -> Grade:
    """The grade of a deck's results against labelled layouts (and, when given, the gold deck's markers)."""
    if problem := _unavailable(results, gold):
        return Grade(False, None, {}, 0.0, {}, 0.0, (), unavailable=problem)
    mismatches: list[Mismatch] = []
    errors = Counter(r.status.value for r in results if not r.ok)
    first_error = next((r for r in results if not r.ok), None)
    extra = {name for r in results for name in r.categories} - set(categories)
    tallies = {c: Counter() for c in categories}
    matched = 0
    for index, (case, result) in enumerate(zip(cases, results, strict=True)):
        layout_ok = result.ok
        for category in categories:
            expected = case.labels[category]
            got = _verdict(result, category)
            agrees = result.ok and got == expected
            if agrees and gold is not None:
                agrees = canonical(result, category) == canonical(gold[index], category)
            tallies[category][(expected, got if result.ok else 1 - expected)] += 1
            if not agrees:
                mismatches.append(Mismatch(case.name, category, expected, got))
                layout_ok = False
        matched += layout_ok
    scores = {c: _score(t) for c, t in tallies.items()}
    return Grade(
        success=not mismatches and not errors and not extra,
        error=first_error.status.value if first_error else ("extra_categories" if extra else None),
        error_counts=dict(errors),
        layouts_matched=matched / len(cases) if cases else 0.0,
        categories=scores,
        f1=sum(s.f1 for s in scores.values()) / len(scores) if scores else 0.0,
        mismatches=tuple(mismatches),
        extra_categories=len(extra),
    )


def _unavailable(results: Sequence[DrcResult], gold: Sequence[DrcResult] | None) -> str:
    """Why these results cannot be graded ('' when they can)."""
    if any(r.status is DrcStatus.UNAVAILABLE for r in results):
        return "the DRC engine was unavailable for some layouts"
    if gold is not None and (len(gold) != len(results) or not all(g.ok for g in gold)):
        return "the gold deck's results are missing or failed on some layouts"
    return ""


def _verdict(result: DrcResult, category: str) -> int:
    found = result.categories.get(category)
    return int(found is not None and found.count > 0)


def _score(tally: Counter) -> CategoryScore:
    """Precision, recall and F1 from (expected, got) counts; a deck error counts as the wrong verdict."""
    tp, fp, fn = tally[(1, 1)], tally[(0, 1)], tally[(1, 0)]
    precision = tp / (tp + fp) if tp + fp else float(fn == 0)
    recall = tp / (tp + fn) if tp + fn else float(fp == 0)
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
