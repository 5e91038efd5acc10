"""The selection methods (see :mod:`chipgym.baselines.selection.method` for their signature), and
:data:`METHODS`, every one by name with the ablations of SplitTester.

- ``one-shot``: the first candidate; ``random``: one drawn with the seed.
- ``majority``: the largest group of candidates with identical outputs on the public examples and a batch
  of generated tests (their labels unused), among the groups that ran on most of them without an error.
- ``generated-tests``: the group that passes most of the public examples and a batch of generated tests
  (with their labels), the larger on a tie.
- ``codemonkey``: as generated tests, then a judge picks among the top three groups, shown only the tests where
  they disagree (CodeMonkeys' selection: tests to vote, a model to decide).
- ``splittester`` and its ablations: :mod:`chipgym.baselines.selection.split_tester`; ``s-star``:
  :mod:`chipgym.baselines.selection.s_star`.
- ``judge``: a judge picks among the most frequent distinct decks, without running anything.

>>> sorted(METHODS)[:4]
['codemonkey', 'generated-tests', 'judge', 'majority']
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Sequence

from chipgym.baselines.selection.bench import clusters, disagreeing
from chipgym.baselines.selection.candidates import Candidate
from chipgym.baselines.selection.generated_tests import public_tests
from chipgym.baselines.selection.judge import Evidence
from chipgym.baselines.selection.method import Generators, Method, Selection, clustering_record, test_record
from chipgym.baselines.selection.prompt import task_rng
from chipgym.baselines.selection.s_star import s_star
from chipgym.baselines.selection.split_tester import split_tester
from chipgym.tasks.drc.task import DrcTaskView

FINALISTS = 3
JUDGED_DECKS = 5  # distinct decks the execution-free judge is shown


def one_shot(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
             seed: int) -> Selection:
    return Selection(0, candidates[0].deck, 0, {})


def random_choice(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
                  seed: int) -> Selection:
    index = int(task_rng(seed, task.id, "random").integers(len(candidates)))
    return Selection(index, candidates[index].deck, 0, {})


def _scored(task, candidates, generators, budget, seed, labels: bool):
    generated = generators.tests.batch(task, budget, seed)
    tests = public_tests(task) + generated
    outputs = generators.bench.outputs(task, [c.deck for c in candidates], tests)
    found = clusters(outputs, tests, task.categories, labels)
    trace = {"tests": [test_record(t) for t in tests], "clusterings": [clustering_record(found, len(tests))]}
    return tests, found, trace, len(generated)


def majority(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
             seed: int) -> Selection:
    _, found, trace, spent = _scored(task, candidates, generators, budget, seed, labels=False)
    best = found[0].members[0]
    return Selection(best, candidates[best].deck, spent, trace)


def generated_tests(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
                    seed: int) -> Selection:
    _, found, trace, spent = _scored(task, candidates, generators, budget, seed, labels=True)
    best = min(found, key=lambda c: (-c.score, -c.size, c.members[0])).members[0]
    return Selection(best, candidates[best].deck, spent, trace)


def codemonkey(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
               seed: int) -> Selection:
    tests, found, trace, spent = _scored(task, candidates, generators, budget, seed, labels=True)
    top = sorted(found, key=lambda c: (-c.score, -c.size, c.members[0]))[:FINALISTS]
    rows = [c.outputs for c in top]
    evidence = [Evidence(tests[i], tuple(row[i] for row in rows)) for i in disagreeing(tests, rows)]
    verdict = generators.judge.choose(task, [candidates[c.members[0]].deck for c in top], evidence)
    trace["judge"] = {"finalists": [c.members[0] for c in top], "tests": [e.test.name for e in evidence],
                      "choice": verdict.index, "reason": verdict.reason}
    best = top[verdict.index].members[0]
    return Selection(best, candidates[best].deck, spent, trace)


def judge_only(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
               seed: int) -> Selection:
    counts = Counter(c.deck for c in candidates)
    decks = sorted(counts, key=lambda d: (-counts[d], [c.deck for c in candidates].index(d)))[:JUDGED_DECKS]
    verdict = generators.judge.choose(task, decks, [])
    best = [c.deck for c in candidates].index(decks[verdict.index])
    trace = {"judge": {"finalists": [[c.deck for c in candidates].index(d) for d in decks], "choice": verdict.index,
                       "reason": verdict.reason}}
    return Selection(best, candidates[best].deck, 0, trace)


METHODS: dict[str, Method] = {
    "one-shot": one_shot,
    "random": random_choice,
    "majority": majority,
    "generated-tests": generated_tests,
    "splittester": split_tester,
    "splittester-no-judge": functools.partial(split_tester, judge=False),
    "splittester-no-labels": functools.partial(split_tester, labels=False),
    "splittester-prune3": functools.partial(split_tester, prune=True),
    "codemonkey": codemonkey,
    "s-star": s_star,
    "judge": judge_only,
}


def method_names(text: str) -> list[str]:
    """The methods of a ``--method`` value: a name, a comma-separated list, or ``all``."""
    names = list(METHODS) if text == "all" else [n.strip() for n in text.split(",") if n.strip()]
    if unknown := [n for n in names if n not in METHODS]:
        raise ValueError(f"--method: unknown {unknown[0]!r}; expected all or some of {', '.join(METHODS)}")
    return names
