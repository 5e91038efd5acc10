"""``chipgym chip ...``: check a chip design against its task's contract."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tqdm import tqdm


def check(args) -> int:
    from chipgym.tasks.chip import check_design

    if not Path(args.design).is_dir():
        raise FileNotFoundError(f"no such design folder: {args.design}")
    with tqdm(desc=f"checking {Path(args.design).name}", unit=" steps", file=sys.stderr) as bar:
        def on_check(name: str) -> None:
            bar.set_postfix_str(name)
            bar.update()

        report = check_design(args.design, task=args.task, formal=not args.no_formal, on_check=on_check)
    if args.json:
        out = {
            "task": report.task,
            "design": report.design,
            "passed": report.passed,
            "failures": [{"check": check, "detail": detail} for check, detail in report.failures],
            "timings": report.timings,
            "stats": report.stats,
        }
        json.dump(out, sys.stdout, indent=2)
        print()
    else:
        print(report.summary())
        randoms = [name for name in report.stats if name.startswith("random-")]
        print(f"  {len(randoms)} random programs matched the reference")
        for program, stats in report.stats.items():
            if program not in randoms:
                print(f"  {program}: {stats['retired']} instructions in {stats['cycles']} cycles")
    return 0 if report.passed else 1


def add_commands(commands) -> None:
    chip = commands.add_parser("chip", help="chip-design tasks").add_subparsers(dest="chip_command", required=True)
    run = chip.add_parser("check", help="the public check of a design: ports, build, simulation, lockstep, formal")
    run.add_argument("design", metavar="DESIGN_DIR", help="a folder with design.toml, rtl/*.v, model/timing_model.py")
    run.add_argument("--task", default="cpu", help="the task whose contract applies (default cpu)")
    run.add_argument("--json", action="store_true", help="print {passed, failures: [{check, detail}], timings, stats}")
    run.add_argument("--no-formal", action="store_true", help="skip the formal gate (the slowest check)")
    run.set_defaults(handler=check)
