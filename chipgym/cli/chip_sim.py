"""``chipgym chip sim DESIGN_DIR --program NAME --cycles N [--vcd out.vcd] [--png out.png]``: step a design on a
public program through pyverilator (sandboxed), print its signals and retirements beside the reference's, and
write the window as a VCD file and a picture."""

from __future__ import annotations

import sys
from pathlib import Path

from chipgym.cli.chip import _progress
from chipgym.errors import AgentError

DRAWN = ("clk",)  # signals the files always carry, before the chosen ones


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
        return 1
    print(window.text())
    if args.vcd:
        Path(args.vcd).write_text(window.waveform.vcd())
        print(f"wrote {args.vcd}")
    if args.png:
        from chipgym.render import save_png

        save_png(window.waveform.render(), args.png)
        print(f"wrote {args.png}")
    return 0 if window.divergence is None else 1


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
