"""S*-style selection (Li et al., 2025): a knockout tournament of the best clusters' representatives (after
the public examples), each duel a few tests generated to split the two decks, run on both; when they disagree,
the judge decides the duel from those tests alone, else the holder stays. The budget of test layouts is
shared evenly among the duels.

>>> CONTENDERS
4
"""

from __future__ import annotations

from typing import Sequence

from chipgym.baselines.selection.bench import clusters
from chipgym.baselines.selection.candidates import Candidate
from chipgym.baselines.selection.generated_tests import GeneratedTest, public_tests
from chipgym.baselines.selection.judge import Evidence
from chipgym.baselines.selection.method import Generators, Selection, clustering_record, test_record
from chipgym.tasks.drc.task import DrcTaskView

CONTENDERS = 4


def s_star(task: DrcTaskView, candidates: Sequence[Candidate], generators: Generators, budget: int,
           seed: int) -> Selection:
    decks = [c.deck for c in candidates]
    examples = public_tests(task)
    found = clusters(generators.bench.outputs(task, decks, examples), examples, task.categories)
    contenders = [c.members[0] for c in found[:CONTENDERS]]
    trace: dict = {"tests": [test_record(t) for t in examples], "duels": [],
                   "clusterings": [clustering_record(found, len(examples))]}
    holder, spent = contenders[0], 0
    generated: list[GeneratedTest] = []
    per_duel = budget // max(len(contenders) - 1, 1)
    for challenger in contenders[1:]:
        pair = [decks[holder], decks[challenger]]
        evidence: list[Evidence] = []
        for _ in range(per_duel):
            test = generators.tests.split(task, pair, generated, seed + spent)
            if test is None:
                break
            generated.append(test)
            trace["tests"].append(test_record(test))
            spent += 1
            [a], [b] = generators.bench.outputs(task, pair, [test])
            if a != b:
                evidence.append(Evidence(test, (a, b)))
                break
        duel = {"holder": holder, "challenger": challenger, "tests": [e.test.name for e in evidence]}
        if evidence:
            verdict = generators.judge.choose(task, pair, evidence)
            duel["reason"] = verdict.reason
            holder = (holder, challenger)[verdict.index]
        duel["winner"] = holder
        trace["duels"].append(duel)
    return Selection(holder, decks[holder], spent, trace)
