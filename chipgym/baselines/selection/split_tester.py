"""SplitTester, the Rule2DRC paper's selection: cluster the candidates by their outputs on the tests so far,
take the cluster with the largest score x size, ask for a test that splits three representatives, run it on
every candidate, recluster, and repeat until the budget of test layouts is spent (or one distinct deck is
left); then a judge picks among the top three clusters, shown only the tests where they disagree.

Representatives are the first members of the best three clusters (distinct decks of the best cluster when
there are fewer). The ablations are flags: ``judge=False`` keeps the best cluster; ``labels=False`` scores a
cluster by the tests it ran on without an error (not by expected verdicts) and hides the verdicts from the
judge; ``prune=True`` drops every candidate outside the top three clusters after each clustering.

>>> from chipgym.baselines.selection.methods import METHODS
>>> METHODS["splittester-no-judge"].keywords
{'judge': False}
"""

from __future__ import annotations

from typing import Sequence

from chipgym.baselines.selection.bench import Cluster, clusters, disagreeing
from chipgym.baselines.selection.candidates import Candidate
from chipgym.baselines.selection.generated_tests import public_tests
from chipgym.baselines.selection.judge import Evidence
from chipgym.baselines.selection.method import Generators, Selection, clustering_record, test_record
from chipgym.tasks.drc.task import DrcTaskView

FINALISTS = 3
SPLIT_ATTEMPTS = 2  # requests for a splitting test per layout of the budget (a request may give none)


def representatives(found: Sequence[Cluster], decks: Sequence[str], count: int = FINALISTS) -> list[str]:
    """Distinct decks of the best clusters, one each, then more from the best cluster when there are fewer."""
    chosen = list(dict.fromkeys(decks[c.members[0]] for c in found[:count]))
    for member in found[0].members if found else ():
        if len(chosen) >= count:
            break
        if decks[member] not in chosen:
            chosen.append(decks[member])
    return chosen


def split_tester(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int, seed: int,
                 judge: bool = True, labels: bool = True, prune: bool = False) -> Selection:
    decks = [c.deck for c in candidates]
    tests = public_tests(task)
    outputs = generators.bench.outputs(task, decks, tests)
    alive = list(range(len(decks)))
    trace: dict = {"tests": [test_record(t) for t in tests], "clusterings": []}
    spent = attempts = 0
    while True:
        found = _clusters(alive, outputs, tests, task, labels)
        trace["clusterings"].append(clustering_record(found, len(tests)))
        if prune:
            alive = sorted(m for c in found[:FINALISTS] for m in c.members)
        shown = representatives(found, decks)
        if spent >= budget or attempts >= SPLIT_ATTEMPTS * budget or len(shown) < 2:
            break
        attempts += 1
        test = generators.tests.split(task, shown, [t for t in tests if t.origin != "public example"],
                                      seed + attempts)
        if test is None:
            break
        new = generators.bench.outputs(task, decks, [test])
        outputs = [row + column for row, column in zip(outputs, new)]
        tests.append(test)
        trace["tests"].append(test_record(test))
        spent += 1
    top = found[:FINALISTS]
    if judge and len(top) > 1:
        rows = [c.outputs for c in top]
        evidence = [Evidence(tests[i], tuple(row[i] for row in rows)) for i in disagreeing(tests, rows)]
        verdict = generators.judge.choose(task, [decks[c.members[0]] for c in top], evidence, labels)
        trace["judge"] = {"finalists": [c.members[0] for c in top], "tests": [e.test.name for e in evidence],
                          "choice": verdict.index, "reason": verdict.reason}
        best = top[verdict.index].members[0]
    else:
        best = top[0].members[0]
    return Selection(best, decks[best], spent, trace)


def _clusters(alive, outputs, tests, task, labels) -> list[Cluster]:
    """Clusters of the live candidates, their members as indices into all candidates."""
    found = clusters([outputs[i] for i in alive], tests, task.categories, labels)
    return [Cluster(tuple(alive[m] for m in c.members), c.outputs, c.score) for c in found]
