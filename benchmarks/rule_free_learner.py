"""How much a DRC dataset's taught pools tell about its evaluation layouts, to a learner that never reads a rule
(chipgym.tasks.drc.rule_free), against fresh independent draws of the same generators that neither pool holds.

Per group, the share of tasks it passes taught the public examples and training layouts, graded on the evaluation
layouts, on a fresh draw whose features sit 1 dbu from each threshold as the evaluation scenes' do ("fresh,
1 dbu"), and on one whose offsets are drawn like the training layouts' ("fresh, drawn"); the share it passes on the
evaluation layouts taught the public examples alone; its per-layout accuracy; and the share of layouts whose rank
pattern it was taught.

    .venv/bin/python benchmarks/rule_free_learner.py [--suite drc-v2] [--limit N]

Issue 39's criterion, per group: the evaluation pass rate is at most the fresh 1 dbu draw's (layouts as hard,
so no advantage from having been taught beside the evaluation scenes); and so is the share of layouts right, which
tells the pools apart where the pass rate does not (a fresh draw holds fewer layouts per task, none congruent to a
taught or evaluation one, so it is easier to pass whole). Pools redrawn from the scenes (drc-v1) get more
evaluation layouts right than fresh ones in every group; pools drawn independently of them (drc-v2) fewer.
"""
from __future__ import annotations

import argparse
from collections import defaultdict

from tqdm import tqdm

from chipgym.tasks.drc.rule_free import Measure, measure
from chipgym.tasks.drc.runner import VerdictPool
from chipgym.tasks.drc.suite import build_suite, fresh_draw, generate_drafts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="drc-v2")
    parser.add_argument("--limit", type=int, help="the first N tasks only")
    args = parser.parse_args()
    tasks = build_suite(args.suite)[: args.limit]
    drafts = {d.id: d for d in generate_drafts(name=args.suite)}
    rows: dict[str, list[dict[str, Measure]]] = defaultdict(list)
    with VerdictPool(workers=2) as engine:
        for task in tqdm(tasks, desc="tasks", unit="task"):
            taught = task.public_examples + task.training_testcases
            draft = drafts[task.id]
            row = {"evaluation": measure(task, taught),
                   "fresh, 1 dbu": measure(task, taught, fresh_draw(args.suite, draft, task, engine.run_deck,
                                                                    "fresh-stated", stated_offsets=True)),
                   "fresh, drawn": measure(task, taught, fresh_draw(args.suite, draft, task, engine.run_deck)),
                   "evaluation, taught public only": measure(task, task.public_examples)}
            rows[task.group].append(row)
            rows["all"].append(row)
    gradings = list(rows["all"][0])
    header = ([f"passed: {g}" for g in gradings] + [f"layouts right: {g}" for g in gradings[:3]]
              + [f"patterns taught: {g}" for g in gradings[:3]]
              + ["evaluation <= fresh, 1 dbu: tasks passed", "evaluation <= fresh, 1 dbu: layouts right"])
    print(f"| {args.suite} group | tasks | {' | '.join(header)} |\n|{'---|' * (len(header) + 2)}")
    for group, measures in sorted(rows.items(), key=lambda item: item[0] == "all"):
        by = {g: [row[g] for row in measures] for g in gradings}
        cells = [_share(sum(m.passed for m in by[g]), len(measures)) for g in gradings]
        cells += [_share(sum(m.right for m in by[g]), sum(m.layouts for m in by[g])) for g in gradings[:3]]
        cells += [_share(sum(m.known for m in by[g]), sum(m.layouts for m in by[g])) for g in gradings[:3]]
        holds = (sum(m.passed for m in by["evaluation"]) <= sum(m.passed for m in by["fresh, 1 dbu"]),
                 _rate(by["evaluation"]) <= _rate(by["fresh, 1 dbu"]))
        cells += ["yes" if h else "NO" for h in holds]
        print(f"| {group} | {len(measures)} | {' | '.join(cells)} |")


def _rate(measures: list[Measure]) -> float:
    """The share of layouts right."""
    return sum(m.right for m in measures) / max(1, sum(m.layouts for m in measures))


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part:,}/{whole:,})" if whole else "-"


if __name__ == "__main__":
    main()
