"""``chipgym export-trajectories LOGS... --format chat``: the episodes of ``chipgym eval`` logs as conversations,
one JSON object a line, on stdout or in ``--out FILE``."""

from __future__ import annotations

import sys


def export(args) -> int:
    from chipgym.baselines.trajectories import write_chat

    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            count = write_chat(args.logs, out, args.include_unavailable)
    else:
        count = write_chat(args.logs, sys.stdout, args.include_unavailable)
    print(f"{count} episodes exported", file=sys.stderr)
    return 0


def add_commands(commands) -> None:
    from chipgym.baselines.trajectories import FORMATS

    run = commands.add_parser("export-trajectories", help="eval logs as chat conversations for LLM trainers")
    run.add_argument("logs", metavar="LOGS", nargs="+", help="step logs (steps.jsonl) or the folders holding them")
    run.add_argument("--format", default="chat", choices=FORMATS)
    run.add_argument("--out", help="write here instead of stdout")
    run.add_argument("--include-unavailable", action="store_true", help="also episodes without a verdict")
    run.set_defaults(handler=export)
