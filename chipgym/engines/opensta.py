"""Static timing with OpenSTA (Debian's ``sta``), sandboxed: the worst setup slack of a mapped netlist at
one clock period, the critical path, and what ``check_setup`` warns about.

Inputs and outputs are constrained to the clock ``clk`` with zero external delay, driven by one cell and
loaded with one load, as in synthesis. The arcs from a flop's asynchronous set and clear pins to its output
are timed (OpenSTA leaves them out by default): a flop whose set and clear follow a data signal and its
complement passes that signal on combinationally, and the path through it is one path.

>>> setup_warnings("Warning: There is 1 unclocked register/latch pin.\\n  r/CLK\\n")
[('unclocked register/latch pin', ['r/CLK'])]
"""
from __future__ import annotations

import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from chipgym.engines.tools import run_tool
from chipgym.errors import FlowUnavailable

TIMEOUT = 600
MEMORY = 2 << 30  # bytes of address space per process; an osu018 CPU netlist takes about 100 MiB
TOTAL_MEMORY = 2 << 30  # bytes of memory of the whole sandbox
PROCESSES = 16  # processes and threads of the sandbox
_SETUP_WARNING = re.compile(r"^Warning: There (?:is|are) \d+ (.*?)\.\n((?:  .*\n)*)", re.M)


@dataclass(frozen=True)
class StaReport:
    slack_ps: float
    """worst setup slack, rounded to 0.1 ps"""
    critical_path: str
    """OpenSTA's report of the worst path"""
    setup_warnings: list[tuple[str, list[str]]]
    """what ``check_setup -verbose`` found: each warning's subject and the items it lists"""
    seconds: float


def time_netlist(verilog: Path, top: str, liberty: Sequence[Path], period_ps: int, driving_cell: str,
                 output_load_ff: float) -> StaReport:
    """Time the netlist ``verilog`` (module ``top``) at ``period_ps``; FlowUnavailable when OpenSTA fails
    or reports an error (it goes on with what it could read)."""
    reads = "\n".join(f"read_liberty {path}" for path in liberty)
    script = f"""set sta_preset_clear_arcs_enabled 1
{reads}
read_verilog {verilog}
link_design {top}
set_cmd_units -time ps -capacitance fF
create_clock -name clk -period {period_ps} [get_ports clk]
set inputs [delete_from_list [all_inputs] [get_ports clk]]
set_input_delay 0 -clock clk $inputs
set_output_delay 0 -clock clk [all_outputs]
set_driving_cell -lib_cell {driving_cell} $inputs
set_load {output_load_ff} [all_outputs]
check_setup -verbose
puts "chipgym-slack [sta::worst_slack -max]"
report_checks -path_delay max -digits 1
"""
    folders = {verilog.parent, *(p.parent for p in liberty)}
    with tempfile.TemporaryDirectory(prefix="chipgym-sta-") as tmp:
        (Path(tmp) / "timing.tcl").write_text(script)
        result = run_tool(["sta", "-no_splash", "-exit", f"{tmp}/timing.tcl"], cwd=Path(tmp), timeout=TIMEOUT,
                          readable=[f for f in folders if not str(f).startswith("/usr/")], writable=(tmp,),
                          memory=MEMORY, total_memory=TOTAL_MEMORY, processes=PROCESSES)
    if not result.ok:
        raise FlowUnavailable(f"OpenSTA failed (exit {result.returncode}): {result.tail(5)}")
    return read_report(result.stdout, result.stderr, round(result.seconds, 3))


def read_report(log: str, errors: str = "", seconds: float = 0.0) -> StaReport:
    """The slack, critical path and setup warnings in OpenSTA's ``log`` of the script above; FlowUnavailable
    when it or ``errors`` (its stderr) holds an error, or it holds no readable slack (OpenSTA goes on with what
    it could read).

    >>> read_report("Warning: There is 1 unclocked register/latch pin.\\n  r/CLK\\nchipgym-slack 12.54\\npath").slack_ps
    12.5
    """
    slack = re.search(r"^chipgym-slack (\S+)$", log, re.M)
    error = re.search(r"^Error: .*", log + "\n" + errors, re.M)
    try:
        value = float(slack.group(1)) if slack and not error else math.nan
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise FlowUnavailable(f"OpenSTA failed: {error[0] if error else 'it printed no slack'}")
    return StaReport(round(value, 1), log[slack.end():].strip(), setup_warnings(log[:slack.start()]), seconds)


def setup_warnings(log: str) -> list[tuple[str, list[str]]]:
    """The warnings of ``check_setup -verbose`` in ``log``: each one's subject and the items it lists."""
    return [(m.group(1), [line.strip() for line in m.group(2).splitlines()]) for m in _SETUP_WARNING.finditer(log)]
