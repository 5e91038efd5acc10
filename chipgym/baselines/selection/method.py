"""What every selection method takes and returns.

A method is ``method(task, candidates, generators, budget, seed) -> Selection``: the task's public view
(never its hidden layouts), the candidate decks, the :class:`Generators` (tests, judge, and the bench the tests
run on), the budget of generated test layouts, and a seed. Its :class:`Selection` holds the chosen candidate and
the trace of what it did: every test, every clustering, the judge's verdict.

>>> Selection(0, "deck", 0, {}).to_dict()["index"]
0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from chipgym.baselines.selection.bench import Cluster, TestBench
from chipgym.baselines.selection.candidates import Candidate
from chipgym.baselines.selection.generated_tests import GeneratedTest, TestGenerator
from chipgym.baselines.selection.judge import Judge
from chipgym.tasks.drc.task import DrcTaskView

BUDGET = 16
"""test layouts a method may generate and run (public examples are free), as in the Rule2DRC paper"""


@dataclass(frozen=True)
class Generators:
    tests: TestGenerator
    judge: Judge
    bench: TestBench


@dataclass(frozen=True)
class Selection:
    index: int  # into the candidates
    deck: str
    tests_spent: int  # generated test layouts run
    trace: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "tests_spent": self.tests_spent, "trace": self.trace}


class Method(Protocol):
    def __call__(self, task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
                 seed: int) -> Selection: ...


def test_record(test: GeneratedTest) -> dict[str, Any]:
    """A test as a trace keeps it: its add_test action, except for public examples (named only)."""
    record: dict[str, Any] = {"name": test.name, "origin": test.origin, "expected": dict(test.expected)}
    if test.origin != "public example":
        record["action"] = test.action
    return record


def clustering_record(found: Sequence[Cluster], tests_run: int) -> dict[str, Any]:
    return {"tests": tests_run, "clusters": [c.to_dict() for c in found]}
