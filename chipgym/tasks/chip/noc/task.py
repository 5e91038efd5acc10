"""The ``noc`` task behind the chip-task interface (see :mod:`chipgym.tasks.chip.task`).

T is the time to drain a graded trace, E its gate-level energy, both per :data:`FLITS` delivered flits and
weighted means over the graded traces.

>>> TASK.public_workloads()[:2], len(TASK.public_workloads())
(('uniform-0.1', 'uniform-0.3'), 15)
>>> TASK.cost_terms({"a": {"cycles": 100, "T_us": 0.8, "E_nJ": 0.2, "flits": 400, "weight_percent": 100},
...                  "b": {"cycles": 100, "T_us": 2.0, "E_nJ": 1.0, "flits": 400, "weight_percent": 50}})
(30.0, 11.666666666666666)
"""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Mapping

from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.noc import checks
from chipgym.tasks.chip.noc.gate_level import gate_level
from chipgym.tasks.chip.noc.heldout import heldout_traces
from chipgym.tasks.chip.noc.testbench import SLOW_PERMILLE
from chipgym.tasks.chip.noc.traffic import Trace
from chipgym.tasks.chip.noc.workloads import SCORED, public_traces, scored_traces
from chipgym.tasks.chip.task import ChipTask, GateRun, Workload

FLITS = 10_000
"""T and E are per this many delivered flits (a scored trace has 250-800)"""
CHECKED_ONLY = ("hol-blocking-1.0", "slow-ejection")
"""public traces the scorer also runs on the netlist (with back-pressure) without grading them"""


class NocTask(ChipTask):
    workload = checks.WORKLOAD
    stalls = "ejection back-pressure"
    formal_depth = checks.FORMAL_DEPTH

    def workloads_text(self) -> str:
        return _workloads_text()

    def check_workloads(self) -> list[Trace]:
        return public_traces()

    def heldout_check_workloads(self, grading_seed: int) -> list[Trace]:
        return heldout_traces(grading_seed)

    def testbench(self, design: Design, binary: Path) -> checks.NocTestbench:
        return checks.NocTestbench(design, binary)

    def scored_workloads(self, grading_seed: int | None) -> list[Workload]:
        """The weighted public traces, the held-out traces (weight 1), then two hard cases checked only."""
        graded = [Workload(t.name, True, None, t) for t in scored_traces()]
        heldout = heldout_traces(grading_seed) if grading_seed is not None else []
        graded += [Workload(t.name, True, i, t) for i, t in enumerate(heldout)]
        return graded + [Workload(t.name, False, None, t) for t in public_traces() if t.name in CHECKED_ONLY]

    def gate_level(self, gate_binary: Path, rtl_binary: Path, design: Design, workload: Workload) -> GateRun:
        return gate_level(gate_binary, rtl_binary, workload.data, self.check_stall_seed(workload))

    def cost_terms(self, workloads: Mapping[str, Mapping[str, float]]) -> tuple[float, float]:
        """The weighted means over the graded traces of the drain time (us) and the energy (nJ) per :data:`FLITS`."""
        runs = workloads.values()
        total = sum(r["weight_percent"] for r in runs)
        return tuple(sum(r[term] / r["flits"] * r["weight_percent"] for r in runs) / total * FLITS
                     for term in ("T_us", "E_nJ"))


@cache
def _workloads_text() -> str:
    lines = [
        "The public check runs these traces (8 endpoints, packets of 1-8 flits), each without ejection "
        f"back-pressure and then with ejection ready dropping on {checks.STALL_PERMILLE / 10:g}% of cycles, in "
        f"bursts of tens to hundreds of cycles, and on {SLOW_PERMILLE / 10:g}% for a trace's slow endpoints. "
        "Grading adds held-out traces of random patterns, rates and lengths. Scored (weight): "
        + ", ".join(f"{name} ({w:g})" for name, w in SCORED.items()) + ".",
        "",
    ]
    for t in public_traces():
        lengths = sorted({len(p.flits) for p in t.packets})
        slow = f"; slow endpoints {', '.join(map(str, t.slow))}" if t.slow else ""
        lines.append(f"{t.name}: {len(t.packets)} packets, {t.flits} flits, {lengths[0]}-{lengths[-1]} flits "
                     f"per packet, last release at cycle {max(p.release for p in t.packets)}{slow}")
    return "\n".join(lines)


TASK = NocTask(Path(__file__).parent)
