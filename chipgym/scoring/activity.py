"""The gate-level simulator of a synthesized netlist: the task's trusted harness driving the netlist, counting
the toggles of every net (the input of :mod:`chipgym.scoring.energy`). The task runs its workloads on it
(:meth:`chipgym.tasks.chip.task.ChipTask.gate_level`) and compares them with its reference.

The netlist becomes functional Verilog (:mod:`chipgym.scoring.gate_netlist`) and is built with Verilator and the
task's harness (``-DCHIPGYM_GATE_LEVEL=WORDS``, the words of the ``chipgym_nets`` port) at ``-O0``: a 10k-cell
CPU builds in about 40 s instead of about 4 minutes at ``-O1``, and runs about 2.5 times slower (about 2.5 s for
44k cycles), which is the better trade for a handful of workloads. The simulator is cached with the netlist.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from chipgym.errors import BuildError, FlowUnavailable
from chipgym.scoring.gate_netlist import FunctionalNetlist, functional_netlist
from chipgym.scoring.liberty import Library
from chipgym.scoring.synthesis import Netlist
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.verilator import build


@dataclass(frozen=True)
class GateSimulator:
    binary: Path
    netlist: FunctionalNetlist
    module: dict
    """the yosys JSON of the mapped top module"""


def gate_simulator(netlist: Netlist, library: Library, period_ps: int, harness: Path) -> GateSimulator:
    """Build (or take from the cache) the gate-level simulator of ``netlist`` with the task's ``harness``."""
    module = json.loads(netlist.json.read_text())["modules"][netlist.top]
    functional = functional_netlist(module, netlist.top, library)
    folder = netlist.folder / "gate"
    (folder / "rtl").mkdir(parents=True, exist_ok=True)
    (folder / "rtl" / "netlist.v").write_text(functional.verilog)
    (folder / "design.toml").write_text(f'top = "{netlist.top}"\nclock_period_ps = {period_ps}\n')
    words = (len(functional.nets) + 31) // 32
    verilog = folder / "rtl" / "netlist.v"
    design = Design(folder, netlist.top, period_ps, (verilog,), folder / "none.py", verilog)
    try:
        binary = build(design, harness, ("-CFLAGS", f"-DCHIPGYM_GATE_LEVEL={words}"))
    except BuildError as e:
        raise FlowUnavailable(f"the gate-level netlist did not build: {e}") from None
    return GateSimulator(binary, functional, module)
