"""The cpu's workloads on a synthesized netlist: the run whose toggles give its energy, and the checks that the
netlist still computes what the reference does and takes the cycles the checked RTL takes (a design that relies
on simulation-only behaviour, such as initial values, fails here).

The netlist has no retirement port: its runs are compared by outcome (final state, memory, counters) only. A run
that crashes (the design's ``$stop``, a signal, its watchdog) is the design's problem, as in the check: the two are
the same experiment, and a crash says nothing about the machine.
"""
from __future__ import annotations

from pathlib import Path

from chipgym.tasks.chip.cpu.arch import Arch
from chipgym.tasks.chip.cpu.checks import STALL_PERMILLE
from chipgym.tasks.chip.cpu.reference import Run
from chipgym.tasks.chip.cpu.testbench import divergence, simulate
from chipgym.tasks.chip.task import GateRun

SIM_TIMEOUT = 300  # a gate-level build at -O0 runs about 2.5 times slower than the RTL's


def gate_run(binary: Path, reference: Run, arch: Arch, latency: dict[str, int], stall_seed: int = 0,
             stall_permille: int = 0) -> GateRun:
    """The netlist's simulator ``binary`` on ``reference``'s program, with seeded random memory stalls if
    ``stall_permille`` > 0."""
    program = reference.program
    watchdog = arch.watchdog(len(reference.retirements))
    result = simulate(binary, program, arch, latency, watchdog, stall_seed, stall_permille, timeout=SIM_TIMEOUT)
    result.retirements = reference.retirements
    result.cycles = [0] * len(reference.retirements)
    return GateRun(program.name, result.end_cycle, result.toggles or [], divergence(reference, result),
                   {"retired": len(reference.retirements)})


def gate_level(binary: Path, rtl: Path, reference: Run, arch: Arch, latency: dict[str, int],
               stall_seed: int) -> GateRun:
    """The netlist's run with exact memories, its problem the first way it or a run with random stalls of
    ``stall_seed`` (the check's for this program) differs from the reference's outcome or from the run of the
    checked RTL's simulator ``rtl`` under the same stalls (with exact memories, the RTL run that lockstep tied to
    the timing model)."""
    exact = gate_run(binary, reference, arch, latency)
    problem = exact.problem or _rtl_problem(rtl, reference, arch, latency, 0, 0, exact.cycles)
    if problem is None:
        stalled = gate_run(binary, reference, arch, latency, stall_seed, STALL_PERMILLE)
        problem = stalled.problem or _rtl_problem(rtl, reference, arch, latency, stall_seed, STALL_PERMILLE,
                                                  stalled.cycles)
        problem = problem and f"{problem} [random stalls, seed {stall_seed}]"
    return GateRun(exact.workload, exact.cycles, exact.toggles, problem, exact.figures)


def _rtl_problem(rtl: Path, reference: Run, arch: Arch, latency: dict[str, int], seed: int, permille: int,
                 cycles: int) -> str | None:
    """How the checked RTL's run differs from the reference, or from the netlist's ``cycles``."""
    name = reference.program.name
    watchdog = arch.watchdog(len(reference.retirements))
    run = simulate(rtl, reference.program, arch, latency, watchdog, seed, permille)
    if (problem := divergence(reference, run)):
        return f"the checked RTL: {problem}"
    if run.end_cycle != cycles:
        return f"{name}: halted or faulted at cycle {cycles}, the checked RTL at {run.end_cycle}"
    return None
