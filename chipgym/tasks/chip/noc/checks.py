"""The noc task's testbench for :meth:`chipgym.tasks.chip.task.ChipTask.check`: a trace is its own expected
answer (every packet delivered once, in order per source and destination), the design's run exact or with
ejection back-pressure, and the timing model in lockstep with the exact runs."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.noc.arch import load_arch
from chipgym.tasks.chip.noc.lockstep import lockstep, predict
from chipgym.tasks.chip.noc.testbench import SimResult, divergence, simulate
from chipgym.tasks.chip.noc.traffic import Trace

STALL_PERMILLE = 250
WORKLOAD = "traffic trace"  # what one workload of the check is called in feedback
FORMAL_DEPTH = 6  # cycles after reset that bmc3 covers: 6 take about 20 s on the crossbar, 8 over 5 min


class NocTestbench:
    """The runs of one design (its simulator ``binary``)."""

    def __init__(self, design: Design, binary: Path):
        self.design, self.binary, self.arch = design, binary, load_arch()

    def expected(self, trace: Trace) -> Trace:
        return trace

    def run(self, trace: Trace, expected: Trace, stall_seed: int | None) -> tuple[SimResult, str | None]:
        stalls = (0, 0) if stall_seed is None else (stall_seed, STALL_PERMILLE)
        result = simulate(self.binary, trace, *stalls, arch=self.arch)
        return result, divergence(trace, result, self.arch)

    def stats(self, trace: Trace, run: SimResult) -> dict[str, int]:
        return {"cycles": run.drained, "flits": trace.flits}

    def lockstep(self, runs: Sequence[tuple[Trace, SimResult]]) -> list[str | None]:
        answers = predict(self.design.timing_model, [trace for trace, _ in runs])
        return [lockstep(answer, trace, run, self.arch.endpoints) for answer, (trace, run) in zip(answers, runs)]
