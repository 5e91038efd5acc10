"""The checks of the ``noc`` task, in order: ports, build, functional, lockstep, formal.

Structural failures (ports, build) stop the run; functional and lockstep failures are reported per trace
(the first divergence of each). A failure on held-out traces says only that, once per check.
"""
from __future__ import annotations

from pathlib import Path

from chipgym.errors import TimingModelError
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.formal import formal_check
from chipgym.tasks.chip.noc.arch import load_arch
from chipgym.tasks.chip.noc.heldout import heldout_traces
from chipgym.tasks.chip.noc.lockstep import lockstep, predict
from chipgym.tasks.chip.noc.testbench import HARNESS, SimResult, divergence, simulate
from chipgym.tasks.chip.noc.traffic import Trace
from chipgym.tasks.chip.noc.workloads import public_traces
from chipgym.tasks.chip.report import CheckReport
from chipgym.tasks.chip.structural import structural_checks
from chipgym.tasks.chip.task import stall_seed as stall_seed_of
from chipgym.tasks.grading_seed import grading_seed as resolve_seed
from chipgym.tasks.grading_seed import heldout_failure

DV = Path(__file__).parent / "dv"
STALL_PERMILLE = 250
WORKLOAD = "traffic trace"  # what one workload of the check is called in feedback
FORMAL_DEPTH = 6  # cycles after reset that bmc3 covers: 6 take about 20 s on the crossbar, 8 over 5 min
TIMED_OUT = "timed out after"


def run(design: Design, report: CheckReport, traces: list[Trace] | None = None, grading_seed: int | None = None,
        stall_seeds: tuple[int, ...] = (1,), formal: bool = True, heldout: bool = True) -> None:
    """Check ``design`` and record failures, timings and per-trace drain cycles in ``report``; held-out traces
    run when ``heldout`` and a grading seed resolves (``grading_seed`` or ``$CHIPGYM_GRADING_SEED``)."""
    arch = load_arch()
    if (binary := structural_checks(design, report, DV / "ports.xml", HARNESS)) is None:
        return
    all_traces = list(traces) if traces is not None else public_traces()
    public = len(all_traces)
    if heldout and (seed := resolve_seed(grading_seed)) is not None:
        all_traces += heldout_traces(seed)

    def fail(check: str, index: int, detail: str) -> None:
        """A failure on held-out traces says only that: which one, its detail or how many would tell of them."""
        failure = (check, detail if index < public else heldout_failure(WORKLOAD))
        if failure not in report.failures:
            report.fail(*failure)

    runs = []
    for index, trace in enumerate(all_traces):
        with report.timed("functional"):
            exact = simulate(binary, trace, arch=arch)
            problem = divergence(trace, exact, arch)
            for seed in stall_seeds if problem is None else ():
                stall_seed = stall_seed_of(index, seed)
                stalled = simulate(binary, trace, stall_seed, STALL_PERMILLE, arch=arch)
                if (problem := divergence(trace, stalled, arch)):
                    problem += f" [ejection back-pressure, seed {stall_seed}]"
                    break
        if problem and TIMED_OUT in problem:
            fail("functional", index, f"{problem}; the remaining traces were not run")
            break
        if problem:
            fail("functional", index, problem)
            continue
        report.stats[trace.name] = {"cycles": exact.drained, "flits": trace.flits}
        runs.append((index, trace, exact))
    with report.timed("lockstep"):
        # the model sees held-out traces in a process of their own, so that nothing it says about them is shown
        for _, problem in _lockstep(design, [r for r in runs if r[0] < public], arch.endpoints):
            report.fail("lockstep", problem)
        hidden = [r for r in runs if r[0] >= public]
        if hidden and _lockstep(design, hidden, arch.endpoints):
            report.fail("lockstep", heldout_failure(WORKLOAD))
    if formal:
        with report.timed("formal"):
            for problem in formal_check(design, DV / "formal.sv", depth=FORMAL_DEPTH):
                report.fail("formal", problem)


def _lockstep(design: Design, runs: list[tuple[int, Trace, SimResult]], endpoints: int) -> list[tuple[int | None, str]]:
    """The timing model's disagreements with ``runs`` (trace index, trace, RTL run without back-pressure), or
    one with index None when the model failed as a whole."""
    try:
        answers = predict(design.timing_model, [trace for _, trace, _ in runs])
    except TimingModelError as e:
        return [(None, f"timing model: {e}")]
    problems = [(index, lockstep(a, trace, exact, endpoints)) for a, (index, trace, exact) in zip(answers, runs)]
    return [(index, problem) for index, problem in problems if problem]
