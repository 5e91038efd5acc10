"""Static timing of a netlist at the design's declared clock period, with OpenSTA (Debian's ``sta``), sandboxed.

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
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from chipgym.scoring.gate_netlist import CLOCK, to_verilog_expr
from chipgym.scoring.liberty import Library, load_library
from chipgym.scoring.profile import Profile
from chipgym.errors import FlowUnavailable
from chipgym.scoring.synthesis import Netlist
from chipgym.engines.tools import run_tool

TIMEOUT = 600


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
    reads = "\n".join(f"read_liberty {path}" for path in profile.liberty)
    script = f"""{reads}
read_verilog {netlist.verilog}
link_design {netlist.top}
set_cmd_units -time ps -capacitance fF
create_clock -name clk -period {period_ps} [get_ports clk]
set inputs [delete_from_list [all_inputs] [get_ports clk]]
set_input_delay 0 -clock clk $inputs
set_output_delay 0 -clock clk [all_outputs]
set_driving_cell -lib_cell {profile.driving_cell} $inputs
set_load {profile.output_load_ff} [all_outputs]
check_setup -verbose
puts "chipgym-slack [sta::worst_slack -max]"
report_checks -path_delay max -digits 1
"""
    folders = {netlist.folder, *(p.parent for p in profile.liberty)}
    with tempfile.TemporaryDirectory(prefix="chipgym-sta-") as tmp:
        (Path(tmp) / "timing.tcl").write_text(script)
        result = run_tool(["sta", "-no_splash", "-exit", f"{tmp}/timing.tcl"], cwd=Path(tmp), timeout=TIMEOUT,
                          readable=[f for f in folders if not str(f).startswith("/usr/")], writable=(tmp,))
    slack = re.search(r"^chipgym-slack (\S+)", result.stdout, re.M)
    error = re.search(r"^Error: .*", result.stdout + result.stderr, re.M)  # it goes on with what it could read
    if not result.ok or not slack or error:
        raise FlowUnavailable(f"OpenSTA failed (exit {result.returncode}): {error[0] if error else result.tail(5)}")
    report = result.stdout[slack.end():].strip()
    module = json.loads(netlist.json.read_text())["modules"][netlist.top]
    problems = clock_problems(module, load_library(profile.liberty))  # first: it says the most
    problems += setup_problems(result.stdout[:slack.start()], module)
    return Timing(period_ps, round(float(slack.group(1)), 1), report, round(result.seconds, 3), problems)


_SETUP_WARNING = re.compile(r"^Warning: There (?:is|are) \d+ (.*?)\.\n((?:  .*\n)*)", re.M)


def setup_problems(log: str, module: dict) -> list[str]:
    """The warnings of ``check_setup -verbose`` in ``log``, leaving out output bits tied to a constant (an
    endpoint with no path is no timing risk)."""
    tied = {f"{name}[{i}]" if len(port["bits"]) > 1 else name
            for name, port in module["ports"].items() for i, bit in enumerate(port["bits"]) if not isinstance(bit, int)}
    problems = []
    for m in _SETUP_WARNING.finditer(log):
        items = [line.strip() for line in m.group(2).splitlines()]
        if "unconstrained endpoints" in m.group(1):
            items = [item for item in items if item not in tied]
            if not items:
                continue
        problems.append(f"OpenSTA check_setup: {m.group(1)}" + (f" ({len(items)}: {', '.join(items[:3])}...)"
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
