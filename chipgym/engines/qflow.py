"""qflow 1.3 on osu018, sandboxed and niced: synthesis (yosys), placement (graywolf), routing (qrouter),
OpenSTA with the wire delays qrouter extracted, and a GDS (magic); what each stage took and measured.

A design over ``max_cells`` cells after synthesis stops there, before placement.

>>> worst_slack("Path Type: max\\n  ...\\n  812.50   slack (MET)\\n")
812.5
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from chipgym.engines.tools import ToolResult, run_tool

TECH = Path("/usr/share/qflow/tech/osu018")
STAGES = ("synthesize", "place", "route", "backanno", "migrate", "gdsii")
FOLDERS = ("source", "synthesis", "layout", "log")
# /usr/bin/awk is a symlink into /etc/alternatives, which the sandbox does not otherwise show
ALTERNATIVES = Path("/etc/alternatives")

# Runs inside the sandbox: each stage, timed, and the cell count after synthesis, into log/stages.
SCRIPT = """\
qflow -v | head -n 1
run() {{
  printf '%s %s ' "$1" "$(date +%s.%N)" >> log/stages
  qflow -T osu018 "$1" {top} || return 1
  date +%s.%N >> log/stages
}}
run synthesize || exit 1
cells=$(grep -c '^\\.gate' synthesis/{top}.blif)
echo "cells $cells" >> log/stages
[ "$cells" -le {max_cells} ] || exit 0
for stage in {stages}; do run $stage || exit 1; done
"""


@dataclass(frozen=True)
class QflowRun:
    """What one run of the flow measured: areas in um^2, slack in ps, stage times in seconds."""

    failure: str
    """empty when every stage ran; else the size limit, or the stage that failed or ran out of time"""
    version: str = ""
    cells: int | None = None
    """standard cells after synthesis (with qflow's fanout buffers)"""
    stage_seconds: dict[str, float] = field(default_factory=dict)
    die_area_um2: float | None = None
    cell_area_um2: float | None = None
    """placed cells, without fill"""
    worst_slack_ps: float | None = None
    """routed, worst setup slack; None when nothing is timed"""


def available() -> bool:
    return shutil.which("qflow") is not None and TECH.is_dir()


def place_and_route(source: str, top: str, period_ps: int, clock: str, max_cells: int, timeout: float,
                    gds: Path) -> QflowRun:
    """Run the flow on the Verilog ``source`` of ``top`` clocked by ``clock`` at ``period_ps``; when every
    stage ran, the layout is copied to ``gds``."""
    with tempfile.TemporaryDirectory(prefix="chipgym-qflow-") as tmp:
        os.chmod(tmp, 0o755)  # bwrap runs as the sandbox's uid and must reach the project
        project = Path(tmp) / "project"
        _write_project(project, source, top, period_ps, clock, max_cells)
        run = run_tool(["nice", "-n", "19", "sh", "run.sh"], cwd=project, timeout=timeout,
                       readable=[ALTERNATIVES], writable=[project, *(project / f for f in FOLDERS)])
        stages = project / "log" / "stages"
        seconds, cells = _stage_seconds(stages), _cells(stages)
        version = re.search(r"Qflow version (\S+) revision (\S+)", run.stdout)
        measured = {"version": f"{version[1]}.{version[2]}" if version else "", "cells": cells,
                    "stage_seconds": seconds}
        if not run.ok or "gdsii" not in seconds:
            return QflowRun(_failure(run, seconds, cells, max_cells), **measured)
        layout = project / "layout"
        try:
            die_area, cell_area = _areas((layout / f"{top}.def").read_text(errors="replace"))
            slack = worst_slack((project / "log" / "post_sta.log").read_text(errors="replace"))
            gds.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(layout / f"{top}.gds", gds)
        except (OSError, ValueError) as error:  # the flow's files are read as the sandboxed tools wrote them
            return QflowRun(f"qflow's results could not be read: {error}", **measured)
    return QflowRun("", **measured, die_area_um2=die_area, cell_area_um2=cell_area, worst_slack_ps=slack)


def _write_project(project: Path, source: str, top: str, period_ps: int, clock: str, max_cells: int) -> None:
    """A qflow project: the source, OpenSTA switched on, an SDC in ps, and the run script."""
    for folder in FOLDERS:
        (project / folder).mkdir(parents=True)
    (project / "source" / f"{top}.v").write_text(source)
    (project / "project_vars.sh").write_text("set run_opensta = 1\n")
    (project / "synthesis" / f"{top}.sdc").write_text(
        f"set_cmd_units -time ps\ncreate_clock -name {clock} -period {period_ps} [get_ports {clock}]\n"
        "set_propagated_clock [all_clocks]\n")
    stages = " ".join(s for s in STAGES if s != "synthesize")
    (project / "run.sh").write_text(SCRIPT.format(top=top, max_cells=max_cells, stages=stages))


_STAGE = re.compile(r"^(\w+) (\d{1,12}\.\d{1,9}) (\d{1,12}\.\d{1,9})$", re.M)


def _stage_seconds(path: Path) -> dict[str, float]:
    """Seconds of each stage that succeeded, from the ``name start end`` lines the script writes."""
    text = path.read_text(errors="replace") if path.is_file() else ""
    return {m[1]: round(float(m[3]) - float(m[2]), 1) for m in _STAGE.finditer(text)}


def _cells(path: Path) -> int | None:
    found = re.search(r"^cells (\d{1,12})$", path.read_text(errors="replace"), re.M) if path.is_file() else None
    return int(found[1]) if found else None


def _failure(run: ToolResult, seconds: dict[str, float], cells: int | None, max_cells: int) -> str:
    """Why the run stopped: the size limit, or the stage that failed or ran out of time, with the log's tail."""
    if run.ok and cells is not None and cells > max_cells:
        return f"{cells} cells after synthesis, over the limit of {max_cells} for placement"
    stage = next((s for s in STAGES if s not in seconds), "qflow")
    what = "timed out" if run.timed_out else "failed"
    return f"qflow {stage} {what}:\n{run.tail(20)}"


def _areas(def_text: str) -> tuple[float, float]:
    """Die area and placed cell area (without fill cells) in um^2, from the routed DEF and osu018's LEF;
    ValueError naming what the DEF lacks."""
    units = re.search(r"UNITS DISTANCE MICRONS (\d{1,9})", def_text)
    die = re.search(r"DIEAREA \( (-?\d{1,12}) (-?\d{1,12}) \) \( (-?\d{1,12}) (-?\d{1,12}) \)", def_text)
    if units is None or int(units[1]) == 0 or die is None:
        raise ValueError("the DEF has no distance units or no die area")
    x1, y1, x2, y2 = map(int, die.groups())
    lef = (TECH / "osu018_stdcells.lef").read_text()
    sizes = {m[0]: float(m[1]) * float(m[2]) for m in re.findall(r"MACRO (\S+).*?SIZE (\S+) BY (\S+) ;", lef, re.S)}
    macros = re.findall(r"^- \S+ (\S+) \+ PLACED", def_text, re.M)
    if unknown := sorted(set(macros) - set(sizes) - {"FILL"}):
        raise ValueError(f"the DEF places {unknown[0][:80]}, which is not a cell of osu018")
    cell_area = sum(sizes[m] for m in macros if m != "FILL")
    return round((x2 - x1) * (y2 - y1) / int(units[1]) ** 2, 2), round(cell_area, 2)


def worst_slack(report: str) -> float | None:
    """The worst setup slack in an OpenSTA ``report_checks`` log (ps, as the SDC sets the units)."""
    slacks = [float(s) for s in re.findall(r"Path Type: max.*?(-?\d{1,12}(?:\.\d{1,9})?)\s+slack", report, re.S)]
    return min(slacks) if slacks else None
