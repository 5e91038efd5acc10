"""Build time and stepping speed of ``simulate`` (pyverilator, sandboxed) beside the check's C++ harness.

    .venv/bin/python benchmarks/rtl_simulate.py [--program memcpy] [--fixtures multicycle pipelined]

For each fixture, in a fresh ``$CHIPGYM_CACHE``: the pyverilator library built cold and then found cached, the
C++ harness simulator built cold and cached, then the whole program run on each. pyverilator runs twice: with
no trace (cycles run to the end, retirements returned) and with a traced window of 10,000 cycles of the
default signals (the VCD written and read in the sandbox), each timed from the request to the reply,
session start and reset apart.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "chipgym" / "tasks" / "chip" / "cpu" / "fixtures"


def seconds(function) -> tuple[float, object]:
    start = time.monotonic()
    value = function()
    return time.monotonic() - start, value


def measure(fixture: str, program_name: str) -> dict[str, float]:
    from chipgym.tasks.chip.cpu.arch import load_arch
    from chipgym.tasks.chip.cpu.stepping import DEFAULT_SIGNALS, Stepper, resolve_program
    from chipgym.tasks.chip.cpu.testbench import HARNESS, simulate
    from chipgym.tasks.chip.design import load_design
    from chipgym.tasks.chip.pysim import MAX_WINDOW, library
    from chipgym.tasks.chip.verilator import build

    design, arch, program = load_design(FIXTURES / fixture), load_arch(), resolve_program(program_name)
    out: dict[str, float] = {}
    out["pyverilator build, cold (s)"], _ = seconds(lambda: library(design))
    out["pyverilator build, cached (s)"], _ = seconds(lambda: library(design))
    out["C++ harness build, cold (s)"], binary = seconds(lambda: build(design, HARNESS))
    out["C++ harness build, cached (s)"], _ = seconds(lambda: build(design, HARNESS))
    latency = {m: arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")}
    cpp, run = seconds(lambda: simulate(binary, program, arch, latency, watchdog=10**7))
    cycles = run.end_cycle + 5
    out["cycles of the program"] = cycles
    out["C++ harness run, whole program (s)"] = cpp
    out["C++ harness (cycles/s)"] = cycles / cpp
    out["session start + reset (s)"], stepper = seconds(lambda: Stepper(design, program))
    try:
        untraced, _ = seconds(lambda: stepper.run(10**6, 1, ()))
        assert stepper.got == run.retirements, "pyverilator and the C++ harness disagree"
    finally:
        stepper.close()
    out["pyverilator run, whole program, no trace (s)"] = untraced
    out["pyverilator, no trace (cycles/s)"] = cycles / untraced
    stepper = Stepper(design, program)
    try:
        window = min(MAX_WINDOW, cycles)
        traced, _ = seconds(lambda: stepper.run(0, window, DEFAULT_SIGNALS))
    finally:
        stepper.close()
    out[f"pyverilator, {window}-cycle traced window (s)"] = traced
    out["pyverilator, traced (cycles/s)"] = window / traced
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", default="memcpy")
    parser.add_argument("--fixtures", nargs="+", default=["multicycle", "pipelined"])
    args = parser.parse_args()
    results = {}
    for fixture in args.fixtures:
        with tempfile.TemporaryDirectory(prefix="chipgym-bench-") as cache:
            os.environ["CHIPGYM_CACHE"] = cache
            results[fixture] = measure(fixture, args.program)
    print(f"simulate on {args.program}: " + " | ".join(args.fixtures))
    for key in results[args.fixtures[0]]:
        print(f"  {key:48s} " + " | ".join(f"{results[f][key]:12,.3f}" for f in args.fixtures))


if __name__ == "__main__":
    main()
