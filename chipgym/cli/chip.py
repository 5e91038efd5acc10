"""``chipgym chip ...``: check a chip design against its task's contract, score it, and step it (``chip sim``)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from tqdm import tqdm

from chipgym.cli.exit_codes import FAILED, OF_STATUS, PASSED
from chipgym.errors import AgentError
from chipgym.scoring.profile import PROFILES
from chipgym.tasks.chip.registry import task_names

DRAWN = ("clk",)  # signals chip sim's files always carry, before the chosen ones


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
    return PASSED if report.passed else FAILED


def score(args) -> int:
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
    return OF_STATUS[result.status]


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
    add_sim_command(chip)


def sim(args) -> int:
    from chipgym.tasks.chip.design import load_design
    from chipgym.tasks.chip.pysim import MAX_WINDOW
    from chipgym.tasks.chip.registry import load_task

    if not 0 < args.cycles <= MAX_WINDOW:
        raise SystemExit(f"--cycles: expected 1 to {MAX_WINDOW}")
    source = Path(args.program)
    text = source.read_text() if source.suffix in (".s", ".asm") and source.is_file() else args.program
    task = load_task(args.task)
    try:
        with _progress(args.design, "simulating") as advance:
            advance("building with pyverilator")
            stepper = task.stepper(load_design(args.design), text, args.stalls)
            try:
                advance("stepping")
                window = stepper.run(args.start, args.cycles, (*DRAWN, *(args.signal or stepper.default_signals)))
            finally:
                stepper.close()
    except NotImplementedError as error:
        raise SystemExit(str(error)) from None
    except AgentError as error:  # the design, or the program
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return FAILED
    print(window.text())
    if args.vcd:
        Path(args.vcd).write_text(window.waveform.vcd())
        print(f"wrote {args.vcd}")
    if args.png:
        from chipgym.render import save_png

        save_png(window.waveform.render(), args.png)
        print(f"wrote {args.png}")
    return PASSED if window.divergence is None else FAILED


def add_sim_command(chip) -> None:
    """``chip sim`` on the ``chip`` subcommands."""
    run = chip.add_parser("sim", help="step a design on a public program (pyverilator, sandboxed): its signals, "
                                      "and its retirements beside the reference's; --vcd and --png write the window")
    run.add_argument("design", metavar="DESIGN_DIR", help="a folder with design.toml and rtl/*.v")
    run.add_argument("--task", default="cpu", help="the task whose testbench steps it (default cpu)")
    run.add_argument("--program", required=True,
                     help="a public workload's name (memcpy, random-0, ...), or a .s file of assembly")
    run.add_argument("--cycles", type=int, default=200, help="cycles to trace (default 200)")
    run.add_argument("--start", type=int, default=0, help="the first cycle traced (default 0)")
    run.add_argument("--signal", action="append", metavar="NAME",
                     help="a signal or glob pattern inside the top module (pc, regs[*]); repeat it; default: the "
                          "memory ports and the retirement port")
    run.add_argument("--stalls", type=int, metavar="SEED",
                     help="the check's random memory stalls of this seed (a check failure names it)")
    run.add_argument("--vcd", metavar="FILE", help="write the window as a VCD file (GTKWave opens it)")
    run.add_argument("--png", metavar="FILE", help="draw the window as a waveform picture")
    run.set_defaults(handler=sim)
