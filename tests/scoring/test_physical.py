"""The physical tier on a real qflow run: an 8-bit accumulator (~90 osu018 cells, a few seconds)."""

from __future__ import annotations

import shutil

import pytest

from chipgym.errors import ElaborationError
from chipgym.scoring.physical import place_and_route
from chipgym.tasks.chip.design import load_design

pytestmark = pytest.mark.skipif(shutil.which("qflow") is None,
                                reason="qflow is not installed (apt-get install qflow qflow-tech-osu018)")

ACCUMULATOR = """\
module acc8 (
    input  wire       clk,
    input  wire       rst,
    input  wire [7:0] in,
    output reg  [7:0] sum
`ifdef CHIPGYM_RETIRE
   ,output wire       ret_valid
`endif
);
  always @(posedge clk)
    if (rst) sum <= 8'd0;
    else sum <= sum + in;
`ifdef CHIPGYM_RETIRE
  assign ret_valid = 1'b1;
`endif
endmodule
"""


@pytest.fixture
def accumulator(tmp_path):
    def make(period_ps: int):
        root = tmp_path / f"acc8_{period_ps}"
        (root / "rtl").mkdir(parents=True)
        (root / "design.toml").write_text(f'top = "acc8"\nclock_period_ps = {period_ps}\n')
        (root / "rtl" / "acc8.v").write_text(ACCUMULATOR)
        return load_design(root)
    return make


def test_accumulator_places_and_routes(accumulator, tmp_path):
    result = place_and_route(accumulator(100_000), tmp_path / "out")
    assert result.status == "ok", result.reason
    assert 50 < result.cells < 200
    assert result.die_area_um2 > result.cell_area_um2 > 0
    assert (tmp_path / "out" / "acc8.gds").stat().st_size > 0 and result.gds == str(tmp_path / "out" / "acc8.gds")
    assert 0 < result.worst_slack_ps < 100_000
    assert result.critical_path_ps == pytest.approx(100_000 - result.worst_slack_ps)
    assert set(result.stage_seconds) == {"synthesize", "place", "route", "backanno", "migrate", "gdsii"}
    assert result.qflow_version and result.to_dict()["status"] == "ok"


def test_a_tight_clock_gives_negative_slack(accumulator, tmp_path):
    result = place_and_route(accumulator(100), tmp_path / "out")
    assert result.status == "ok", result.reason
    assert result.worst_slack_ps < 0


def test_a_design_over_the_limit_is_refused_before_placement(accumulator, tmp_path):
    result = place_and_route(accumulator(10_000), tmp_path / "out", max_cells=10)
    assert result.status == "unavailable"
    assert f"{result.cells} cells after synthesis, over the limit of 10" in result.reason
    assert list(result.stage_seconds) == ["synthesize"] and result.gds is None


def test_a_timeout_is_unavailable_with_the_log(accumulator, tmp_path):
    result = place_and_route(accumulator(10_000), tmp_path / "out", timeout=0.5)
    assert result.status == "unavailable"
    assert "timed out" in result.reason


def test_broken_rtl_is_the_designs_failure_before_qflow(accumulator, tmp_path):
    # qflow reads the canonical design (issue 40 §1): a text Yosys refuses never reaches it
    design = accumulator(10_000)
    (design.root / "rtl" / "acc8.v").write_text("module acc8 (input wire clk); nonsense\nendmodule\n")
    with pytest.raises(ElaborationError, match=r"rtl/acc8.v line 2: ERROR: syntax error"):
        load_design(design.root)
