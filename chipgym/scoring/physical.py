"""The optional physical tier of chip scoring: place and route a design with qflow on osu018.

``place_and_route`` runs qflow 1.3's stages (yosys synthesis, graywolf placement, qrouter routing,
OpenSTA with the wire delays qrouter extracted, magic GDS; :mod:`chipgym.engines.qflow`) in the tool sandbox
and reports die area, placed cell area, and the routed worst setup slack at the design's declared clock
period.

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

from dataclasses import dataclass, field
from pathlib import Path

from chipgym.engines import qflow
from chipgym.errors import ToolMissingError
from chipgym.results import JsonResult, Status
from chipgym.tasks.chip.design import Design

MAX_CELLS = 4000  # cells after synthesis: 4,276 placed and routed in 305 s here, 5,345 did not route in 700 s


@dataclass
class PhysicalResult(JsonResult):
    """The outcome of one place-and-route run: areas in um^2, delays in ps, stage times in seconds."""

    status: Status  # ok or unavailable
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

    def __post_init__(self) -> None:
        self.status = Status(self.status)


def place_and_route(design: Design, out_dir: Path, max_cells: int = MAX_CELLS, timeout: float = 900,
                    clock: str = "clk") -> PhysicalResult:
    """Place and route ``design`` (clock port ``clock``) and copy its GDS into ``out_dir``.

    Tool failures, timeouts and designs over ``max_cells`` give ``status="unavailable"``; never raises
    for them.
    """
    period = design.clock_period_ps
    if not qflow.available():
        return PhysicalResult(Status.UNAVAILABLE, "qflow or its osu018 technology is not installed", period)
    gds = out_dir / f"{design.top}.gds"
    source = "\n".join(p.read_text() for p in design.rtl)  # the canonical design, the retirement port kept
    try:
        run = qflow.place_and_route(source, design.top, period, clock, max_cells, timeout, gds)
    except ToolMissingError as e:
        return PhysicalResult(Status.UNAVAILABLE, str(e), period)
    result = PhysicalResult(Status.UNAVAILABLE, run.failure, period, run.cells, run.die_area_um2, run.cell_area_um2,
                            run.worst_slack_ps, stage_seconds=run.stage_seconds, qflow_version=run.version)
    if run.failure:
        return result
    if result.worst_slack_ps is not None:
        result.critical_path_ps = round(period - result.worst_slack_ps, 2)
    result.status, result.gds = Status.OK, str(gds)
    return result
