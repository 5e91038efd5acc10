"""The ``cpu`` task behind the chip-task interface (see :mod:`chipgym.tasks.chip.task`).

>>> TASK.public_workloads()[:2], len(TASK.public_workloads())
(('random-0', 'random-1'), 21)
>>> TASK.cost_terms({"memcpy": {"cycles": 100, "retired": 50, "T_us": 0.8, "E_nJ": 0.2}})
(160.0, 40.0)
"""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Mapping

from chipgym.tasks.chip.cpu import checks, generator, workloads
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.assembler import disassemble
from chipgym.tasks.chip.cpu.gate_level import gate_level
from chipgym.tasks.chip.cpu.heldout import heldout_programs
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.pysim import Stepper
from chipgym.tasks.chip.task import ChipTask, GateRun, Workload

INSTRUCTIONS = 10_000
"""T and E are per this many retired reference instructions"""


class CpuTask(ChipTask):
    generator = generator
    workload = checks.WORKLOAD
    stalls = "random stalls"
    formal_depth = checks.FORMAL_DEPTH
    simulate_help = """{"op": "simulate", "program": "memcpy", "cycles": 100, "signals": ["pc", "regs[*]"], "start": 0}
    step the design on a public program (or assembly text); signals' value changes and retirements vs the
    reference; {"op": "simulate", "continue": true, "cycles": 100} goes on where the last one stopped;
    "stalls": N replays the check's random memory stalls of seed N
"""
    """the design generator of ``chipgym/CpuKnobs-v0`` (knob vector -> design folder)"""

    def workloads_text(self) -> str:
        return _workloads_text()

    def check_workloads(self) -> list[Program]:
        return list(_public_programs())

    def heldout_check_workloads(self, grading_seed: int) -> list[Program]:
        return heldout_programs(grading_seed)

    def testbench(self, design: Design, binary: Path) -> checks.CpuTestbench:
        return checks.CpuTestbench(design, binary)

    def scored_workloads(self, grading_seed: int | None) -> list[Workload]:
        """Every named kernel, the held-out kernels, then the public fault programs (checked, not graded)."""
        arch = load_arch()
        kernels = [workloads.kernel(name) for name in sorted(workloads.KERNELS)]
        heldout = heldout_programs(grading_seed) if grading_seed is not None else []
        graded = [Workload(p.name, True, None, execute(p, arch)) for p in kernels]
        graded += [Workload(p.name, True, i, execute(p, arch)) for i, p in enumerate(heldout)]
        faults = [run for run in (execute(p, arch) for p in _public_programs()) if run.final.fault]
        return graded + [Workload(run.program.name, False, None, run) for run in faults]

    def gate_level(self, gate_binary: Path, rtl_binary: Path, design: Design, workload: Workload) -> GateRun:
        arch = load_arch()
        latency = {m: arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")}
        return gate_level(gate_binary, rtl_binary, workload.data, arch, latency, self.check_stall_seed(workload))

    def stepper(self, design: Design, program: str, stall_seed: int | None = None) -> Stepper:
        from chipgym.tasks.chip.cpu.stepping import Stepper, resolve_program

        return Stepper(design, resolve_program(program), stall_seed)

    def cost_terms(self, workloads: Mapping[str, Mapping[str, float]]) -> tuple[float, float]:
        """The means over the workloads of T and E per :data:`INSTRUCTIONS` retired reference instructions."""
        runs = workloads.values()
        return (sum(r["T_us"] / r["retired"] for r in runs) / len(runs) * INSTRUCTIONS,
                sum(r["E_nJ"] / r["retired"] for r in runs) / len(runs) * INSTRUCTIONS)


@cache
def _public_programs() -> tuple:
    return tuple(workloads.programs())


def _doc(function) -> str:
    return " ".join((function.__doc__ or "").replace("``", "").split())


@cache
def _workloads_text() -> str:
    lines = [
        "The public check runs these programs, each with exact memories and, when that passes, with "
        f"{checks.STALL_PERMILLE / 10:g}% random memory stalls and stall bursts of tens to hundreds of cycles. "
        + _doc(workloads.programs),
        "Random programs: " + _doc(workloads.random_program),
        "Grading adds held-out kernels: the same kernels resized, with other data and renamed registers.",
        "",
    ]
    for program in _public_programs():
        run = execute(program)
        ops = sorted({disassemble(r.insn).split()[0] for r in run.retirements})
        end = "halts" if run.final.halted else f"faults (fault {run.final.fault})"
        lines.append(f"{program.name}: {len(program.imem)} words, {len(run.retirements)} retirements, {end}; "
                     f"executes {' '.join(ops)}")
        if program.name in workloads.KERNELS:
            lines += [f"    {disassemble(word)}" for word in program.imem]
    return "\n".join(lines)


TASK = CpuTask(Path(__file__).parent)
