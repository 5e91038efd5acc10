"""How much a DRC dataset's taught pools tell about its evaluation layouts, to a learner that never reads a rule
(chipgym.tasks.drc.rule_free), against a fresh independent draw of the same generators that neither pool holds.

Per group: the share of tasks it passes taught the public examples and training layouts, graded on the evaluation
layouts and on the fresh draw; the share it passes on the evaluation layouts taught the public examples alone; its
per-layout accuracy on both; and the share of layouts whose rank pattern it was taught, on both.

    .venv/bin/python benchmarks/rule_free_learner.py [--suite drc-v2] [--limit N]

Issue 39's criterion, per group: the evaluation pass rate is at most the fresh draw's (no advantage from having
been taught beside the evaluation scenes). Pools redrawn from the scenes (drc-v0, drc-v1) fail it; pools drawn
independently of them (drc-v2) should meet it.
"""
from __future__ import annotations

import argparse
from collections import defaultdict

from tqdm import tqdm

from chipgym.tasks.drc.rule_free import Measure, fresh_draw, measure
from chipgym.tasks.drc.runner import VerdictPool
from chipgym.tasks.drc.suite import build_suite, generate_drafts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="drc-v2")
    parser.add_argument("--limit", type=int, help="the first N tasks only")
    args = parser.parse_args()
    tasks = build_suite(args.suite)[: args.limit]
    drafts = {d.id: d for d in generate_drafts(name=args.suite)}
    rows: dict[str, list[tuple[Measure, Measure, Measure]]] = defaultdict(list)
    with VerdictPool(workers=2) as engine:
        for task in tqdm(tasks, desc="tasks", unit="task"):
            taught = task.public_examples + task.training_testcases
            fresh = fresh_draw(args.suite, drafts[task.id], task, engine.run_deck)
            row = (measure(task, taught), measure(task, taught, fresh), measure(task, task.public_examples))
            rows[task.group].append(row)
            rows["all"].append(row)
    print(f"| {args.suite} group | tasks | passed: evaluation | passed: fresh draw | passed: evaluation, taught "
          "public only | layouts right: evaluation | layouts right: fresh | patterns taught: evaluation | "
          "patterns taught: fresh | evaluation <= fresh |\n|---|---|---|---|---|---|---|---|---|---|")
    for group, measures in sorted(rows.items(), key=lambda item: item[0] == "all"):
        evaluation, fresh, public = ([row[i] for row in measures] for i in range(3))
        passed = [sum(m.passed for m in ms) / len(ms) for ms in (evaluation, fresh)]
        cells = [_share(sum(m.passed for m in ms), len(ms)) for ms in (evaluation, fresh, public)]
        cells += [_share(sum(m.right for m in ms), sum(m.layouts for m in ms)) for ms in (evaluation, fresh)]
        cells += [_share(sum(m.known for m in ms), sum(m.layouts for m in ms)) for ms in (evaluation, fresh)]
        print(f"| {group} | {len(measures)} | {' | '.join(cells)} | {'yes' if passed[0] <= passed[1] else 'NO'} |")


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part:,}/{whole:,})" if whole else "-"


if __name__ == "__main__":
    main()
