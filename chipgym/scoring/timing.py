"""Static timing of a netlist at the design's declared clock period, with OpenSTA (:mod:`chipgym.engines.opensta`).

Inputs and outputs are constrained to the clock with zero external delay, driven by the profile's driving
cell and loaded with its output load, as in synthesis. The design fails timing if its worst slack is below 0,
if OpenSTA's ``check_setup`` finds anything (unclocked flops, unconstrained endpoints, generated clocks,
combinational loops), or if a flop's clock pin is driven by anything but the clock port through buffers and
inverters (a derived or gated clock, which OpenSTA would not time and the energy model would not see gating).

>>> from pathlib import Path
>>> from chipgym.scoring.profile import load_profile
>>> from chipgym.scoring.synthesis import synthesize
>>> from chipgym.tasks.chip.design import load_design
>>> design = load_design(Path(__file__).parents[1] / "tasks" / "chip" / "cpu" / "fixtures" / "multicycle")
>>> timing = check_timing(synthesize(design, load_profile("osu018")), load_profile("osu018"), 100_000)  # doctest: +SKIP
>>> timing.met, timing.slack_ps > 0                                                            # doctest: +SKIP
(True, True)
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from chipgym.engines import opensta
from chipgym.scoring.gate_netlist import CLOCK, to_verilog_expr
from chipgym.scoring.liberty import Library, load_library
from chipgym.scoring.profile import Profile
from chipgym.scoring.synthesis import Netlist


@dataclass(frozen=True)
class Timing:
    period_ps: int
    slack_ps: float
    critical_path: str
    """OpenSTA's report of the worst path"""
    seconds: float
    problems: list[str] = field(default_factory=list)
    """what makes the slack meaningless: check_setup's warnings, flops not clocked by the clock port"""

    @property
    def met(self) -> bool:
        return self.slack_ps >= 0 and not self.problems

    @property
    def arrival_ps(self) -> float:
        """The delay of the critical path."""
        return self.period_ps - self.slack_ps


def check_timing(netlist: Netlist, profile: Profile, period_ps: int) -> Timing:
    """Worst setup slack of ``netlist`` at ``period_ps`` and the critical path."""
    report = opensta.time_netlist(netlist.verilog, netlist.top, profile.liberty, period_ps, profile.driving_cell,
                                  profile.output_load_ff)
    module = json.loads(netlist.json.read_text())["modules"][netlist.top]
    problems = clock_problems(module, load_library(profile.liberty))  # first: it says the most
    problems += setup_problems(report.setup_warnings, module)
    return Timing(period_ps, report.slack_ps, report.critical_path, report.seconds, problems)


def setup_problems(warnings: list[tuple[str, list[str]]], module: dict) -> list[str]:
    """OpenSTA's ``check_setup`` ``warnings``, leaving out output bits tied to a constant (an endpoint with no
    path is no timing risk)."""
    tied = {f"{name}[{i}]" if len(port["bits"]) > 1 else name
            for name, port in module["ports"].items() for i, bit in enumerate(port["bits"]) if not isinstance(bit, int)}
    problems = []
    for what, items in warnings:
        if "unconstrained endpoints" in what:
            items = [item for item in items if item not in tied]
            if not items:
                continue
        problems.append(f"OpenSTA check_setup: {what}" + (f" ({len(items)}: {', '.join(items[:3])}...)"
                                                          if items else ""))
    return problems


def clock_problems(module: dict, library: Library) -> list[str]:
    """One line per source, other than the clock port through buffers and inverters, that drives the clock
    pins of flops of a mapped ``module``."""
    drivers = {bits[0]: (name, cell) for name, cell in module["cells"].items()
               for pin, bits in cell["connections"].items() if pin in library.cells[cell["type"]].outputs}
    if CLOCK not in module["ports"]:
        return [f"the design has no {CLOCK} port"]
    clock = module["ports"][CLOCK]["bits"][0]
    sources = Counter()
    for cell in module["cells"].values():
        ff = library.cells[cell["type"]].ff
        if ff is None:
            continue
        bit, seen = cell["connections"][re.search(r"\w+", ff["clocked_on"]).group(0)][0], set()
        while bit != clock and bit not in seen:
            seen.add(bit)
            source = _buffered(drivers.get(bit), library)
            if source is None:
                sources[f"cell {drivers[bit][0]} ({drivers[bit][1]['type']})" if bit in drivers else
                        "a constant" if isinstance(bit, str) else "an input port or an undriven net"] += 1
                break
            bit = source
        else:
            if bit != clock:
                sources["a loop of inverters"] += 1
    return [f"{n} flop(s) clocked by {what}, not by the {CLOCK} port through buffers and inverters"
            for what, n in sources.most_common()]


def _buffered(driver: tuple[str, dict] | None, library: Library) -> int | None:
    """The input net of a buffer or inverter ``driver`` (name, yosys cell), None for any other driver."""
    if driver is None:
        return None
    cell = driver[1]
    lib_cell = library.cells[cell["type"]]
    if lib_cell.ff or len(lib_cell.inputs) != 1 or len(lib_cell.outputs) != 1:
        return None
    [pin] = lib_cell.inputs
    [function] = lib_cell.outputs.values()
    source = cell["connections"].get(pin, [None])[0]
    if not function or not isinstance(source, int) or to_verilog_expr(function, {pin: "x"}) not in ("x", "~x"):
        return None
    return source
