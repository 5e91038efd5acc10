"""How much a DRC dataset's taught pools tell about its evaluation layouts, to a learner that never reads a rule
(chipgym.tasks.drc.rule_free): per group, the share of tasks it passes in the one-shot evaluation regime taught
the public examples and training layouts, and taught the public examples alone; its per-layout accuracy; and the
share of evaluation layouts whose rank pattern it was taught.

    .venv/bin/python benchmarks/rule_free_learner.py [--suite drc-v1] [--limit N]

A dataset whose pools are drawn independently of its evaluation scenes should give no advantage over a fresh
independent draw (issue 39); on pools redrawn from the scenes, the pass rate is what a rule-free learner gets for
having been taught beside them.
"""
from __future__ import annotations

import argparse
from collections import defaultdict

from tqdm import tqdm

from chipgym.tasks.drc.rule_free import measure
from chipgym.tasks.drc.suite import build_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="drc-v1")
    parser.add_argument("--limit", type=int, help="the first N tasks only")
    args = parser.parse_args()
    tasks = build_suite(args.suite)[: args.limit]
    rows: dict[str, list] = defaultdict(list)
    for task in tqdm(tasks, desc="tasks", unit="task"):
        taught = measure(task, task.public_examples + task.training_testcases)
        public = measure(task, task.public_examples)
        rows[task.group].append((taught, public))
        rows["all"].append((taught, public))
    print(f"| {args.suite} group | tasks | passed, taught public + training | passed, taught public only | "
          "layouts right | evaluation patterns taught |\n|---|---|---|---|---|---|")
    for group, pairs in sorted(rows.items(), key=lambda item: item[0] == "all"):
        layouts = sum(t.layouts for t, _ in pairs)
        cells = [_share(sum(t.passed for t, _ in pairs), len(pairs)),
                 _share(sum(p.passed for _, p in pairs), len(pairs)),
                 _share(sum(t.right for t, _ in pairs), layouts), _share(sum(t.known for t, _ in pairs), layouts)]
        print(f"| {group} | {len(pairs)} | {' | '.join(cells)} |")


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part:,}/{whole:,})" if whole else "-"


if __name__ == "__main__":
    main()
