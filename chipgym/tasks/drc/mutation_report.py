"""Command line: mutation scores of the built-in suite, per group.

    python -m chipgym.tasks.drc.mutation_report --per-group 15 --extra 150 --list survived,equivalent

Labels come from (and are added to) the suite cache; see :mod:`chipgym.tasks.drc.mutate`.
"""
from __future__ import annotations

import argparse
import json
from typing import Sequence

from chipgym.tasks.drc.mutate import mutation_scores, score_task
from chipgym.tasks.drc.runner import VerdictPool
from chipgym.tasks.drc.suite import SUITE_SEED, build_suite, generate_drafts


def main(argv: Sequence[str] | None = None) -> None:
    """Measure mutation scores on tasks spread evenly over each group of the built-in suite."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--per-group", type=int, default=5, help="tasks per group (spread evenly over the group)")
    parser.add_argument("--extra", type=int, default=150, help="jittered extra layouts per task for equivalence")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--list", default="survived", help="comma-separated statuses whose mutants are listed")
    args = parser.parse_args(argv)
    drafts = generate_drafts(SUITE_SEED)
    ids = []
    for group in sorted({d.group for d in drafts}):
        members = [d.id for d in drafts if d.group == group]
        step = max(1, len(members) // args.per_group)
        ids += members[::step][: args.per_group]
    with VerdictPool(workers=args.workers) as pool:
        tasks = build_suite(seed=SUITE_SEED, run_deck=pool.run_deck, ids=ids, jobs=args.workers)
        outcomes = [o for task in tasks for o in score_task(task, pool, extra=args.extra)]
    print(json.dumps(mutation_scores(outcomes), indent=2))
    for o in outcomes:
        if o.status in args.list.split(","):
            print(f"{o.status} {o.task_id} {o.mutant.operator}: {o.mutant.description}")


if __name__ == "__main__":
    main()
