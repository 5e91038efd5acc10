"""Gate-level simulation of a synthesized CPU on workloads: the toggles of every net, and a check that the
netlist still computes what the reference does (a design that relies on simulation-only behaviour, such as
initial values, fails here).

The netlist becomes functional Verilog (:mod:`chipgym.scoring.gate_netlist`) and is built with Verilator and the
trusted harness (``-DCHIPGYM_GATE_LEVEL``) at ``-O0``: a 10k-cell CPU builds in about 40 s instead of about
4 minutes at ``-O1``, and runs about 2.5 times slower (about 2.5 s for 44k cycles), which is the better trade
for a handful of workloads. The simulator is cached with the netlist.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from chipgym.errors import BuildError, FlowUnavailable
from chipgym.scoring.gate_netlist import FunctionalNetlist, functional_netlist
from chipgym.scoring.liberty import Library
from chipgym.scoring.synthesis import Netlist
from chipgym.tasks.chip.cpu.arch import Arch
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import Run
from chipgym.tasks.chip.cpu.testbench import HARNESS, divergence, simulate
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.verilator import build

FAST_BUILD = ("-MAKEFLAGS", "OPT_FAST=-O0", "-MAKEFLAGS", "OPT_SLOW=-O0", "-CFLAGS", "-O0")
SIM_TIMEOUT = 300


@dataclass(frozen=True)
class GateRun:
    program: str
    cycles: int
    """cycles to halt (or fault)"""
    toggles: list[int]
    problem: str | None
    """the first difference from the reference, if any"""


@dataclass(frozen=True)
class GateSimulator:
    binary: Path
    netlist: FunctionalNetlist
    module: dict
    """the yosys JSON of the mapped top module"""

    def run(self, reference: Run, arch: Arch, latency: dict[str, int], stall_seed: int = 0,
            stall_permille: int = 0) -> GateRun:
        """The netlist on ``reference``'s program, with seeded random memory stalls if ``stall_permille`` > 0."""
        program: Program = reference.program
        watchdog = arch.watchdog(len(reference.retirements))
        result = simulate(self.binary, program, arch, latency, watchdog, stall_seed, stall_permille,
                          timeout=SIM_TIMEOUT)
        if result.error and result.error.startswith("simulator crashed"):
            raise FlowUnavailable(f"gate-level simulation of {program.name}: {result.error}")
        # the netlist has no retirement port: compare the outcome (final state, memory, counters) only
        result.retirements = reference.retirements
        result.cycles = [0] * len(reference.retirements)
        problem = divergence(reference, result)
        return GateRun(program.name, result.end_cycle, result.toggles or [], problem)


def gate_simulator(netlist: Netlist, library: Library, period_ps: int) -> GateSimulator:
    """Build (or take from the cache) the gate-level simulator of ``netlist``."""
    module = json.loads(netlist.json.read_text())["modules"][netlist.top]
    functional = functional_netlist(module, netlist.top, library)
    folder = netlist.folder / "gate"
    (folder / "rtl").mkdir(parents=True, exist_ok=True)
    (folder / "rtl" / "netlist.v").write_text(functional.verilog)
    (folder / "design.toml").write_text(f'top = "{netlist.top}"\nclock_period_ps = {period_ps}\n')
    words = (len(functional.nets) + 31) // 32
    design = Design(folder, netlist.top, period_ps, (folder / "rtl" / "netlist.v",), folder / "none.py")
    try:
        binary = build(design, HARNESS, (*FAST_BUILD, "-CFLAGS", f"-DCHIPGYM_GATE_LEVEL={words}"))
    except BuildError as e:
        raise FlowUnavailable(f"the gate-level netlist did not build: {e}") from None
    return GateSimulator(binary, functional, module)
