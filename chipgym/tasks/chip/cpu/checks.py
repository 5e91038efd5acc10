"""The checks of the ``cpu`` task, in order: ports, build, functional, lockstep, formal.

Structural failures (ports, build) stop the run; functional and lockstep failures are
reported per program (the first divergence of each).
"""
from __future__ import annotations

from pathlib import Path

from chipgym.errors import TimingModelError
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.heldout import heldout_programs
from chipgym.tasks.chip.cpu.lockstep import lockstep, predict
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import Run, execute
from chipgym.tasks.chip.cpu.testbench import HARNESS, SimResult, divergence, simulate
from chipgym.tasks.chip.cpu.workloads import programs as public_programs
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.formal import formal_check
from chipgym.tasks.chip.report import CheckReport
from chipgym.tasks.chip.structural import structural_checks
from chipgym.tasks.chip.task import stall_seed as stall_seed_of
from chipgym.tasks.grading_seed import grading_seed as resolve_seed
from chipgym.tasks.grading_seed import heldout_failure

DV = Path(__file__).parent / "dv"
STALL_PERMILLE = 250
WORKLOAD = "program"  # what one workload of the check is called in feedback
TIMED_OUT = "timed out after"  # in the error of a simulation that run_tool killed
FORMAL_DEPTH = 64  # cycles after reset that bmc3 covers (see docs/scoring.md for times)


def run(design: Design, report: CheckReport, programs: list[Program] | None = None,
        grading_seed: int | None = None, stall_seeds: tuple[int, ...] = (1,), formal: bool = True,
        heldout: bool = True) -> None:
    """Check ``design`` and record failures, timings and per-program cycle counts in ``report``.

    The held-out kernels of the grading seed (``grading_seed``, else ``$CHIPGYM_GRADING_SEED``) are added
    unless ``heldout=False`` (for feedback an agent sees)."""
    arch = load_arch()
    if (binary := structural_checks(design, report, DV / "ports.xml", HARNESS)) is None:
        return
    progs = list(programs) if programs is not None else public_programs()
    public = len(progs)
    if heldout and (seed := resolve_seed(grading_seed)) is not None:
        progs += heldout_programs(seed)

    def fail(check: str, index: int, detail: str) -> None:
        """A failure on held-out programs says only that: which one, its detail or how many would tell of them."""
        failure = (check, detail if index < public else heldout_failure(WORKLOAD))
        if failure not in report.failures:
            report.fail(*failure)

    latency = {m: arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")}
    traces = []
    for index, prog in enumerate(progs):
        with report.timed("reference"):
            ref = execute(prog, arch)
        watchdog = arch.watchdog(len(ref.retirements))
        with report.timed("functional"):
            exact = simulate(binary, prog, arch, latency, watchdog)
            problem = divergence(ref, exact)
            for seed in stall_seeds if problem is None else ():
                stall_seed = stall_seed_of(index, seed)
                stalled = simulate(binary, prog, arch, latency, watchdog, stall_seed, STALL_PERMILLE)
                if (problem := divergence(ref, stalled)):
                    problem += f" [random stalls, seed {stall_seed}]"
                    break
        if problem and TIMED_OUT in problem:  # a simulator stuck inside a time step: each program would wait as long
            fail("functional", index, f"{problem}; the remaining programs were not run")
            break
        if problem:
            fail("functional", index, problem)
            continue
        report.stats[prog.name] = {"cycles": exact.end_cycle, "retired": len(exact.retirements)}
        traces.append((index, ref, exact))
    with report.timed("lockstep"):
        # the model sees held-out runs in a process of their own, so that nothing it says about them is shown
        for _, problem in _lockstep(design, [t for t in traces if t[0] < public], latency):
            report.fail("lockstep", problem)
        hidden = [t for t in traces if t[0] >= public]
        if hidden and _lockstep(design, hidden, latency):
            report.fail("lockstep", heldout_failure(WORKLOAD))
    if formal:
        with report.timed("formal"):
            for problem in formal_check(design, DV / "formal.sv", depth=FORMAL_DEPTH):
                report.fail("formal", problem)


def _lockstep(design: Design, traces: list[tuple[int, Run, SimResult]],
              latency: dict[str, int]) -> list[tuple[int | None, str]]:
    """The timing model's disagreements with ``traces`` (program index, reference, RTL run), each with the
    program's index, or one with None when the model failed as a whole."""
    try:
        predictions = predict(design.timing_model, [ref for _, ref, _ in traces], latency)
    except TimingModelError as e:
        return [(None, f"timing model: {e}")]
    problems = [(index, lockstep(p, ref, exact)) for p, (index, ref, exact) in zip(predictions, traces)]
    return [(index, problem) for index, problem in problems if problem]
