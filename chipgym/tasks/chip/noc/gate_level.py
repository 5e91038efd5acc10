"""The NoC's traces on a synthesized netlist: the run whose toggles give its energy, and the checks that the
netlist delivers what the reference says, in the cycles the checked RTL delivered it (a design that relies on
simulation-only behaviour, such as initial values, fails here). A run that crashes is the design's problem, as in
the check.

The netlist keeps every port, so its deliveries are compared flit by flit, with and without back-pressure.
"""
from __future__ import annotations

from pathlib import Path

from chipgym.tasks.chip.noc.checks import STALL_PERMILLE
from chipgym.tasks.chip.noc.testbench import SimResult, divergence, simulate
from chipgym.tasks.chip.noc.traffic import Trace
from chipgym.tasks.chip.task import GateRun

SIM_TIMEOUT = 300  # a gate-level build at -O0 runs several times slower than the RTL's


def _run(binary: Path, trace: Trace, seed: int, permille: int) -> SimResult:
    return simulate(binary, trace, seed, permille, timeout=SIM_TIMEOUT)


def _problem(gate: SimResult, rtl: SimResult, trace: Trace) -> str | None:
    """How the netlist's run differs from the reference, or from the checked RTL's run under the same ejection."""
    if (problem := divergence(trace, gate)):
        return problem
    if (problem := divergence(trace, rtl)):
        return f"the checked RTL: {problem}"
    for endpoint in gate.deliveries:
        if gate.cycles(endpoint) != rtl.cycles(endpoint):
            return f"{trace.name}: endpoint {endpoint}: the netlist delivers in other cycles than the checked RTL"
    if gate.drained != rtl.drained:
        return f"{trace.name}: the netlist drained in cycle {gate.drained}, the checked RTL in {rtl.drained}"
    return None


def gate_level(binary: Path, rtl: Path, trace: Trace, stall_seed: int) -> GateRun:
    """The netlist's run without back-pressure (its toggles and drain cycle), its problem the first way it or a
    run with the back-pressure of ``stall_seed`` (the check's for this trace) differs from the reference or from
    the checked RTL's simulator ``rtl``."""
    exact = _run(binary, trace, 0, 0)
    problem = _problem(exact, _run(rtl, trace, 0, 0), trace)
    if problem is None:
        stalled = _run(binary, trace, stall_seed, STALL_PERMILLE)
        problem = _problem(stalled, _run(rtl, trace, stall_seed, STALL_PERMILLE), trace)
        problem = problem and f"{problem} [ejection back-pressure, seed {stall_seed}]"
    return GateRun(trace.name, exact.drained, exact.toggles or [], problem,
                   {"flits": trace.flits, "weight_percent": round(trace.weight * 100)})
