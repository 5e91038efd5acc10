"""Running candidate decks on test layouts, and grouping the candidates by what they output.

A :class:`TestBench` runs decks on the public examples and generated tests only, on a sandboxed pool of its
own that never runs a deck on a hidden layout; the pool caches every result by deck and layout (in memory, and
on disk when its cache has one: :func:`bench_pool`), so methods that share tests share their runs. An
output is a deck's verdict per category on one layout (1: a marker) or the class of its error.

>>> outputs = [[(1,), (0,)], [(1,), (0,)], [(0,), "runtime"]]
>>> tests = [GeneratedTest("a", "", b"a", {"m1": 1}, "batch"), GeneratedTest("b", "", b"b", {"m1": 0}, "batch")]
>>> [(c.members, c.score) for c in clusters(outputs, tests, ["m1"])]
[((0, 1), 1.0), ((2,), 0.0)]
>>> [(c.members, c.score) for c in clusters(outputs, tests, ["m1"], labels=False)]
[((0, 1), 1.0), ((2,), 0.5)]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from chipgym.baselines.selection.generated_tests import GeneratedTest
from chipgym.cache import default_cache
from chipgym.engines.klayout import DrcCache, DrcJob, DrcPool, DrcResult
from chipgym.errors import EngineError
from chipgym.tasks.drc.task import DrcTaskView

Output = tuple[int, ...] | str


def bench_pool(workers: int = 1, timeout: float = 20.0) -> DrcPool:
    """A pool for candidates on tests, its results cached on disk too."""
    return DrcPool(workers=workers, timeout=timeout, cache=DrcCache(disk=default_cache()))


def output_of(result: DrcResult, categories: Sequence[str]) -> Output:
    if not result.ok:
        return result.status.value
    return tuple(int(result.counts.get(c, 0) > 0) for c in categories)


def passes(output: Output, test: GeneratedTest, categories: Sequence[str]) -> bool:
    """Whether an output agrees with every label the test has."""
    return not isinstance(output, str) and all(output[categories.index(c)] == v for c, v in test.expected.items())


class TestBench:
    """Decks on tests through ``pool`` (see the module doc). Outputs are also kept here, timeouts and crashes
    too (which the pool does not cache): a deck that spins costs its time limit once per layout, not once per
    method."""

    MEMORY = 200_000  # outputs kept before the memory is cleared

    def __init__(self, pool: DrcPool):
        self.pool = pool
        self._seen: dict[tuple[str, str, bytes], Output] = {}

    def outputs(self, task: DrcTaskView, decks: Sequence[str], tests: Sequence[GeneratedTest]) -> list[list[Output]]:
        """Per deck, its output on each test; each distinct deck runs once on each layout."""
        key = self._key(task)
        distinct = list(dict.fromkeys(decks))
        missing = {deck: [t for t in dict.fromkeys(test.gds for test in tests) if (key, deck, t) not in self._seen]
                   for deck in distinct}
        jobs = [(deck, layouts) for deck, layouts in missing.items() if layouts]
        runs = self.pool.run_batch([DrcJob(deck, layouts) for deck, layouts in jobs]) if jobs else []
        if any(r.status.value == "unavailable" for results in runs for r in results):
            raise EngineError("the DRC engine was unavailable for some test layouts")
        if len(self._seen) > self.MEMORY:
            self._seen.clear()
        for (deck, layouts), results in zip(jobs, runs):
            for layout, result in zip(layouts, results):
                self._seen[(key, deck, layout)] = output_of(result, task.categories)
        return [[self._seen[(key, deck, test.gds)] for test in tests] for deck in decks]

    @staticmethod
    def _key(task: DrcTaskView) -> str:
        return "\0".join(task.categories)


@dataclass(frozen=True)
class Cluster:
    """Candidates with identical outputs on every test so far; ``score`` is the fraction of labelled tests they
    pass, or without labels the fraction of tests they ran on without an error (1.0 with no tests)."""

    members: tuple[int, ...]
    outputs: tuple[Output, ...]
    score: float

    @property
    def size(self) -> int:
        return len(self.members)

    def to_dict(self) -> dict:
        return {"members": list(self.members), "score": self.score,
                "outputs": [o if isinstance(o, str) else list(o) for o in self.outputs]}


def clusters(outputs: Sequence[Sequence[Output]], tests: Sequence[GeneratedTest], categories: Sequence[str],
             labels: bool = True) -> list[Cluster]:
    """The candidates grouped by identical outputs, best first: by score x size, then size, then first member."""
    groups: dict[tuple, list[int]] = {}
    for index, row in enumerate(outputs):
        groups.setdefault(tuple(row), []).append(index)
    labelled = [i for i, test in enumerate(tests) if test.expected]
    found = []
    for row, members in groups.items():
        if labels:
            score = sum(passes(row[i], tests[i], categories) for i in labelled) / len(labelled) if labelled else 1.0
        else:
            score = sum(not isinstance(o, str) for o in row) / len(row) if row else 1.0
        found.append(Cluster(tuple(members), row, score))
    return sorted(found, key=lambda c: (-c.score * c.size, -c.size, c.members[0]))


def disagreeing(tests: Sequence[GeneratedTest], rows: Sequence[Sequence[Output]]) -> list[int]:
    """The indices of the tests on which the given rows of outputs are not all the same."""
    return [i for i in range(len(tests)) if len(Counter(row[i] for row in rows)) > 1]
