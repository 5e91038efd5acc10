"""Static timing of a netlist at the design's declared clock period, with OpenSTA (Debian's ``sta``), sandboxed.

Inputs and outputs are constrained to the clock with zero external delay, driven by the profile's driving
cell and loaded with its output load, as in synthesis. Worst slack must be >= 0 or the design fails.

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

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from chipgym.scoring.profile import Profile
from chipgym.scoring.synthesis import Netlist, FlowUnavailable
from chipgym.engines.tools import run_tool

TIMEOUT = 600


@dataclass(frozen=True)
class Timing:
    period_ps: int
    slack_ps: float
    critical_path: str
    """OpenSTA's report of the worst path"""
    seconds: float

    @property
    def met(self) -> bool:
        return self.slack_ps >= 0

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
puts "chipgym-slack [sta::worst_slack -max]"
report_checks -path_delay max -digits 1
"""
    folders = {netlist.folder, *(p.parent for p in profile.liberty)}
    with tempfile.TemporaryDirectory(prefix="chipgym-sta-") as tmp:
        (Path(tmp) / "timing.tcl").write_text(script)
        result = run_tool(["sta", "-no_splash", "-exit", f"{tmp}/timing.tcl"], cwd=Path(tmp), timeout=TIMEOUT,
                          readable=[f for f in folders if not str(f).startswith("/usr/")], writable=(tmp,))
    slack = re.search(r"^chipgym-slack (\S+)", result.stdout, re.M)
    if not result.ok or not slack:
        raise FlowUnavailable(f"OpenSTA failed (exit {result.returncode}): {result.tail(5)}")
    report = result.stdout[slack.end():].strip()
    return Timing(period_ps, round(float(slack.group(1)), 1), report, round(result.seconds, 3))
