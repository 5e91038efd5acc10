"""``chipgym chip ...``: check a chip design against its task's contract, and score it."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from tqdm import tqdm

from chipgym.results import Status
from chipgym.scoring.profile import PROFILES
from chipgym.tasks.chip.registry import task_names


@contextmanager
def _progress(design: str, doing: str) -> Iterator[Callable[[str], None]]:
    """A progress bar on stderr, and the callback that advances it with the name of each stage."""
    if not Path(design).is_dir():
        raise FileNotFoundError(f"no such design folder: {design}")
    with tqdm(desc=f"{doing} {Path(design).name}", unit=" steps", file=sys.stderr) as bar:
        def advance(stage: str) -> None:
            bar.set_postfix_str(stage)
            bar.update()

        yield advance


def _figures(figures: dict[str, float]) -> str:
    """A workload's figures as one line: ``cycles 18006, retired 12004, T_us 36.01``."""
    return ", ".join(f"{name} {value:.4g}" if isinstance(value, float) else f"{name} {value}"
                     for name, value in figures.items())


def check(args) -> int:
    from chipgym.tasks.chip import check_design

    with _progress(args.design, "checking") as on_check:
        report = check_design(args.design, task=args.task, profile=args.profile, formal=not args.no_formal,
                              on_check=on_check)
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
        for workload, stats in report.stats.items():
            print(f"  {workload}: {_figures(stats)}")
    return 0 if report.passed else 1


def score(args) -> int:
    from chipgym.cli import INFRASTRUCTURE_FAILURE
    from chipgym.scoring.chip import score_design

    with _progress(args.design, f"scoring on {args.profile}:") as on_stage:
        result = score_design(args.design, task=args.task, profile=args.profile, physical=args.physical,
                              on_stage=on_stage)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        print()
    else:
        print(result.summary())
        for workload, figures in result.workloads.items():
            print(f"  {workload}: {_figures(figures)}")
        if result.physical:
            print(f"  physical: {json.dumps(result.physical)}")
    return {Status.OK: 0, Status.FAILED: 1}.get(result.status, INFRASTRUCTURE_FAILURE)


def add_commands(commands) -> None:
    chip = commands.add_parser("chip", help="chip-design tasks").add_subparsers(dest="chip_command", required=True)
    run = chip.add_parser("check", help="the public check of a design: ports, build, simulation, lockstep, formal")
    run.add_argument("design", metavar="DESIGN_DIR", help="a folder with design.toml, rtl/*.v, model/timing_model.py")
    run.add_argument("--task", default="cpu", choices=task_names(), help="the task whose contract applies")
    run.add_argument("--json", action="store_true", help="print {passed, failures: [{check, detail}], timings, stats}")
    run.add_argument("--no-formal", action="store_true", help="skip the formal gate (the slowest check)")
    run.add_argument("--profile", choices=sorted(PROFILES),
                     help="check at the design's clock period for this scoring profile (default: its main period)")
    run.set_defaults(handler=check)
    rate = chip.add_parser("score", help="reward = 1/(1+cost) from real synthesis, timing and gate-level energy "
                                         "(held-out workloads too when $CHIPGYM_GRADING_SEED is set)")
    rate.add_argument("design", metavar="DESIGN_DIR", help="a folder with design.toml, rtl/*.v, model/timing_model.py")
    rate.add_argument("--task", default="cpu", choices=task_names(), help="the task whose contract applies")
    rate.add_argument("--profile", default="osu018", choices=sorted(PROFILES), help="cell library and cost units")
    rate.add_argument("--physical", action="store_true", help="also place and route with qflow (osu018, small designs)")
    rate.add_argument("--json", action="store_true",
                      help="print the whole score: status, reward, cost, T_us, E_nJ, A_um2, period_ps, slack_ps, ...")
    rate.set_defaults(handler=score)
