"""The cpu task's testbench for :meth:`chipgym.tasks.chip.task.ChipTask.check`: the reference's run of a program,
the design's run with the contract's memory latencies (exact, or with random stalls), and the timing model in
lockstep with the exact runs."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.lockstep import lockstep, predict
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import Run, execute
from chipgym.tasks.chip.cpu.testbench import SimResult, divergence, simulate
from chipgym.tasks.chip.design import Design

DV = Path(__file__).parent / "dv"
STALL_PERMILLE = 250
WORKLOAD = "program"  # what one workload of the check is called in feedback
FORMAL_DEPTH = 64  # cycles after reset that bmc3 covers (see docs/scoring.md for times)


class CpuTestbench:
    """The runs of one design (its simulator ``binary``) at the memory latencies of its clock period."""

    def __init__(self, design: Design, binary: Path):
        self.design, self.binary, self.arch = design, binary, load_arch()
        self.latency = {m: self.arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")}

    def expected(self, program: Program) -> Run:
        return execute(program, self.arch)

    def run(self, program: Program, expected: Run, stall_seed: int | None) -> tuple[SimResult, str | None]:
        stalls = (0, 0) if stall_seed is None else (stall_seed, STALL_PERMILLE)
        result = simulate(self.binary, program, self.arch, self.latency, self.arch.watchdog(len(expected.retirements)),
                          *stalls)
        return result, divergence(expected, result)

    def stats(self, program: Program, run: SimResult) -> dict[str, int]:
        return {"cycles": run.end_cycle, "retired": len(run.retirements)}

    def lockstep(self, runs: Sequence[tuple[Run, SimResult]]) -> list[str | None]:
        predictions = predict(self.design.timing_model, [expected for expected, _ in runs], self.latency)
        return [lockstep(prediction, expected, run) for prediction, (expected, run) in zip(predictions, runs)]
