"""The optional physical tier of chip scoring: place and route a design with qflow on osu018.

``place_and_route`` runs qflow 1.3's stages (yosys synthesis, graywolf placement, qrouter routing,
OpenSTA with the wire delays qrouter extracted, magic GDS) in the tool sandbox and reports die area,
placed cell area, and the routed worst setup slack at the design's declared clock period.

Compared with an OpenROAD flow on ASAP7 it does much less:

* osu018 only (a 180 nm teaching library, 10 um rows), so areas and delays are not comparable with ASAP7.
* No clock-tree synthesis: qflow's fanout repair (blifFanout) splits the clock into parallel CLKBUF1
  buffers before placement, and nothing balances skew; STA propagates that clock through the
  extracted wire delays.
* Back-annotation is qflow's rc2dly SDF: it annotates interconnect delays only, so OpenSTA's cell
  delays see pin loads but no wire capacitance.
* Only register-to-register paths are timed (inputs and outputs have no delay constraints).
* No timing-driven placement or repair, no DRC or LVS.
* The GDS holds the routing and the cell placements, but Debian's osu018 has no cell layouts, so
  every cell is an empty reference.
* Size limit: graywolf and qrouter slow down sharply with size, so designs over ``MAX_CELLS`` cells
  after synthesis are refused (``status="unavailable"``) before placement.

Every run is niced. Measured on a shared 2-core machine: an 8-bit accumulator (86 cells) takes 4 s
in all; an 18-bit multiply-accumulate (4,276 cells) 5 s to synthesize, 166 s to place, 139 s to route,
21 s for the rest; the CPU fixtures (14,456 and 16,614 cells) are refused after a 14 s synthesis
(see docs/physical.md).

>>> from chipgym.tasks.chip.design import load_design                       # doctest: +SKIP
>>> result = place_and_route(load_design("acc8"), Path("out"))              # doctest: +SKIP
>>> result.status, result.cells, result.worst_slack_ps                     # doctest: +SKIP
('ok', 86, 8848.89)
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from chipgym.errors import ToolMissingError
from chipgym.tasks.chip.design import Design
from chipgym.engines.tools import ToolResult, run_tool

MAX_CELLS = 4000  # cells after synthesis: 4,276 placed and routed in 305 s here, 5,345 did not route in 700 s
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


@dataclass
class PhysicalResult:
    """The outcome of one place-and-route run: areas in um^2, delays in ps, stage times in seconds."""

    status: str  # "ok" | "unavailable"
    reason: str = ""
    clock_period_ps: int = 0
    cells: int | None = None  # standard cells after synthesis (with qflow's fanout buffers)
    die_area_um2: float | None = None
    cell_area_um2: float | None = None  # placed cells, without fill
    worst_slack_ps: float | None = None  # routed, worst setup slack; None when nothing is timed
    critical_path_ps: float | None = None  # clock period minus worst slack
    gds: str | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict)
    qflow_version: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def place_and_route(design: Design, out_dir: Path, max_cells: int = MAX_CELLS, timeout: float = 900,
                    clock: str = "clk") -> PhysicalResult:
    """Place and route ``design`` (clock port ``clock``) and copy its GDS into ``out_dir``.

    Tool failures, timeouts and designs over ``max_cells`` give ``status="unavailable"``; never raises
    for them.
    """
    period = design.clock_period_ps
    if shutil.which("qflow") is None or not TECH.is_dir():
        return PhysicalResult("unavailable", "qflow or its osu018 technology is not installed", period)
    with tempfile.TemporaryDirectory(prefix="chipgym-qflow-") as tmp:
        os.chmod(tmp, 0o755)  # bwrap runs as the sandbox's uid and must reach the project
        project = Path(tmp) / "project"
        _write_project(project, design, max_cells, clock)
        try:
            run = run_tool(["nice", "-n", "19", "sh", "run.sh"], cwd=project, timeout=timeout,
                           readable=[ALTERNATIVES], writable=[project, *(project / f for f in FOLDERS)])
        except ToolMissingError as e:
            return PhysicalResult("unavailable", str(e), period)
        result = PhysicalResult("unavailable", "", period, stage_seconds=_stage_seconds(project / "log" / "stages"))
        result.cells = _cells(project / "log" / "stages")
        version = re.search(r"Qflow version (\S+) revision (\S+)", run.stdout)
        result.qflow_version = f"{version[1]}.{version[2]}" if version else ""
        if not run.ok or "gdsii" not in result.stage_seconds:
            result.reason = _failure(run, result, max_cells)
            return result
        layout = project / "layout"
        result.die_area_um2, result.cell_area_um2 = _areas((layout / f"{design.top}.def").read_text())
        result.worst_slack_ps = _worst_slack((project / "log" / "post_sta.log").read_text())
        if result.worst_slack_ps is not None:
            result.critical_path_ps = round(period - result.worst_slack_ps, 2)
        out_dir.mkdir(parents=True, exist_ok=True)
        gds = out_dir / f"{design.top}.gds"
        shutil.copyfile(layout / f"{design.top}.gds", gds)
        result.status, result.gds = "ok", str(gds)
        return result


def _write_project(project: Path, design: Design, max_cells: int, clock: str) -> None:
    """A qflow project: the design's preprocessed source (the retirement port kept), OpenSTA, an SDC in ps."""
    for folder in FOLDERS:
        (project / folder).mkdir(parents=True)
    top = design.top
    (project / "source" / f"{top}.v").write_text("\n".join(p.read_text() for p in design.rtl))
    (project / "project_vars.sh").write_text("set run_opensta = 1\n")
    (project / "synthesis" / f"{top}.sdc").write_text(
        f"set_cmd_units -time ps\ncreate_clock -name {clock} -period {design.clock_period_ps} [get_ports {clock}]\n"
        "set_propagated_clock [all_clocks]\n")
    stages = " ".join(s for s in STAGES if s != "synthesize")
    (project / "run.sh").write_text(SCRIPT.format(top=top, max_cells=max_cells, stages=stages))


def _stage_seconds(path: Path) -> dict[str, float]:
    """Seconds of each stage that succeeded, from the ``name start end`` lines the script writes."""
    lines = path.read_text().splitlines() if path.exists() else []
    return {p[0]: round(float(p[2]) - float(p[1]), 1) for p in map(str.split, lines) if len(p) == 3}


def _cells(path: Path) -> int | None:
    found = re.search(r"^cells (\d+)$", path.read_text(), re.M) if path.exists() else None
    return int(found[1]) if found else None


def _failure(run: ToolResult, result: PhysicalResult, max_cells: int) -> str:
    """Why the run stopped: the size limit, or the stage that failed or ran out of time, with the log's tail."""
    if run.ok and result.cells is not None and result.cells > max_cells:
        return f"{result.cells} cells after synthesis, over the limit of {max_cells} for placement"
    stage = next((s for s in STAGES if s not in result.stage_seconds), "qflow")
    what = "timed out" if run.timed_out else "failed"
    return f"qflow {stage} {what}:\n{run.tail(20)}"


def _areas(def_text: str) -> tuple[float, float]:
    """Die area and placed cell area (without fill cells) in um^2, from the routed DEF and osu018's LEF."""
    scale = int(re.search(r"UNITS DISTANCE MICRONS (\d+)", def_text)[1]) ** 2
    x1, y1, x2, y2 = map(int, re.search(r"DIEAREA \( (-?\d+) (-?\d+) \) \( (-?\d+) (-?\d+) \)", def_text).groups())
    lef = (TECH / "osu018_stdcells.lef").read_text()
    sizes = {m[0]: float(m[1]) * float(m[2]) for m in re.findall(r"MACRO (\S+).*?SIZE (\S+) BY (\S+) ;", lef, re.S)}
    macros = re.findall(r"^- \S+ (\S+) \+ PLACED", def_text, re.M)
    cell_area = sum(sizes[m] for m in macros if m != "FILL")
    return round((x2 - x1) * (y2 - y1) / scale, 2), round(cell_area, 2)


def _worst_slack(report: str) -> float | None:
    """The worst setup slack in an OpenSTA ``report_checks`` log (ps, as the SDC sets the units)."""
    slacks = [float(s) for s in re.findall(r"Path Type: max.*?(-?[\d.]+)\s+slack", report, re.S)]
    return min(slacks) if slacks else None
