"""Grading candidates on the hidden layouts, once: a grade is cached on disk (``chipgym.cache``, kind
``selection-grades``) under the task's content, the deck, the metric and the KLayout engine, so that comparing
methods on the same candidates, or running again, costs no new KLayout run. The grading pool runs nothing
else: no generated test, no candidate on a test layout. Grades only score the chosen deck and Oracle@N; no
selection method sees them.

The generated tests' labels are checked the same way, against the gold deck's verdicts on them
(:meth:`CandidateGrader.gold_outputs`), for the label error rate.

>>> from dataclasses import replace
>>> from chipgym.tasks.drc.task import DrcTask, Testcase
>>> task = DrcTask(id="t", title="", description="", layers={}, rules=(), categories=("m1",), gold_deck="a",
...                public_examples=(), hidden_testcases=(Testcase("x", b"gds", {"m1": 1}),), group="sky130")
>>> len(task_digest(task)), task_digest(task) == task_digest(replace(task, gold_deck="b"))
(64, False)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from chipgym.baselines.selection.bench import Output, output_of
from chipgym.baselines.selection.generated_tests import GeneratedTest
from chipgym.cache import Cache, default_cache
from chipgym.engines.klayout import DrcCache, DrcPool, engine_id
from chipgym.errors import EngineError
from chipgym.scoring.drc import Metric, grade_many
from chipgym.tasks.drc.task import DrcTask

KIND = "selection-grades"


@dataclass(frozen=True)
class CandidateGrade:
    success: bool
    error: str | None  # the error class of the first hidden layout the deck failed on


def task_digest(task: DrcTask) -> str:
    """A digest of what grading a task depends on: its categories, gold deck and labelled hidden layouts."""
    digest = hashlib.sha256()
    for part in (task.id, *task.categories, task.gold_deck):
        digest.update(hashlib.sha256(part.encode()).digest())
    for case in task.hidden_testcases:
        digest.update(hashlib.sha256(case.gds_bytes()).digest())
        digest.update(repr(sorted(case.labels.items())).encode())
    return digest.hexdigest()


class CandidateGrader:
    """Grades decks on a task's hidden layouts through a pool of its own (``workers`` KLayout processes).
    ``graded`` counts the decks that were actually run."""

    def __init__(self, workers: int = 1, timeout: float = 20.0, metric: Metric = "chipgym",
                 cache: Cache | None = None):
        self.pool = DrcPool(workers=workers, timeout=timeout, cache=DrcCache(size=256))
        self.metric = metric
        self.cache = cache or default_cache()
        self.graded = 0
        self._digests: dict[str, str] = {}

    def grades(self, task: DrcTask, decks: Sequence[str]) -> dict[str, CandidateGrade]:
        """The grade of each distinct deck."""
        distinct = list(dict.fromkeys(decks))
        keys = {deck: self._key(task, deck) for deck in distinct}
        found = {deck: self.cache.get_json(KIND, keys[deck]) for deck in distinct}
        missing = [deck for deck, hit in found.items() if hit is None]
        if missing:
            grades = grade_many([(task, deck) for deck in missing], self.pool, metric=self.metric)
            self.graded += len(missing)
            if unavailable := [g for g in grades if g.unavailable]:
                raise EngineError(f"{task.id}: grading unavailable: {unavailable[0].unavailable}")
            for deck, result in zip(missing, grades):
                found[deck] = {"success": result.success, "error": result.error}
                self.cache.put_json(KIND, keys[deck], found[deck])
        return {deck: CandidateGrade(**found[deck]) for deck in distinct}

    def gold_outputs(self, task: DrcTask, tests: Sequence[GeneratedTest]) -> list[Output]:
        """The gold deck's output on each test (run here, never beside a candidate)."""
        if not tests:
            return []
        results = self.pool.run(task.gold_deck, [test.gds for test in tests])
        return [output_of(result, task.categories) for result in results]

    def close(self) -> None:
        self.pool.close()

    def _key(self, task: DrcTask, deck: str) -> str:
        if task.id not in self._digests:
            self._digests[task.id] = task_digest(task)
        parts = (engine_id(), self.metric, self._digests[task.id], deck)
        return hashlib.sha256("\0".join(parts).encode()).hexdigest() + ".json"
