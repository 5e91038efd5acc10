"""Scoring the NoC through the chip-task interface, with the real flow: both fixtures on osu018 score ok, the
weighted terms are what the records say, and a netlist that differs from the checked RTL fails at gate level."""
from __future__ import annotations

import shutil

import pytest

from chipgym.scoring.chip import ChipScore, score_design
from chipgym.scoring.profile import load_profile
from chipgym.tasks.chip.noc.task import FLITS
from chipgym.tasks.chip.noc.workloads import SCORED
from chipgym.tasks.chip.registry import load_task

TASK = load_task("noc")


@pytest.fixture(scope="module")
def osu018() -> dict[str, ChipScore]:
    return {name: score_design(path, task="noc", profile="osu018") for name, path in TASK.fixtures.items()}


@pytest.mark.parametrize("fixture", sorted(TASK.fixtures))
def test_fixture_scores(osu018, fixture):
    score, units = osu018[fixture], load_profile("osu018")
    assert score.status == "ok", score.summary()
    assert 0 < score.reward < 1 and score.slack_ps >= 0
    assert score.cost == pytest.approx(units.cost(score.T_us, score.E_nJ, score.A_um2))
    assert set(score.workloads) == set(SCORED)
    weights = {name: w["weight_percent"] / 100 for name, w in score.workloads.items()}
    assert weights == SCORED
    per_flit = sum(w["T_us"] / w["flits"] * SCORED[n] for n, w in score.workloads.items()) / sum(SCORED.values())
    assert score.T_us == pytest.approx(per_flit * FLITS)
    assert score.graded_with == "public traffic traces"


def test_the_topologies_trade_differently(osu018):
    crossbar, mesh = osu018["crossbar"], osu018["mesh"]
    assert mesh.A_um2 > crossbar.A_um2 and mesh.cycles > crossbar.cycles  # bigger and more cycles, faster clock


def test_a_netlist_that_differs_from_the_checked_rtl_fails(tmp_path):
    """Initial values hold in simulation, not in silicon: the netlist of a design that relies on one differs, and
    the equivalence proof shows it before any gate-level run."""
    design = shutil.copytree(TASK.fixtures["crossbar"], tmp_path / "d")
    rtl = design / "rtl" / "chipgym_noc.v"
    text = rtl.read_text().replace("        ptr[o] <= N - 1;\n", "")
    initial = "  initial for (o = 0; o < N; o = o + 1) ptr[o] = N - 1;\n"
    text = text.replace("  integer o, j, i;\n", "  integer o, j, i;\n" + initial)
    rtl.write_text(text)
    score = score_design(design, task="noc", profile="osu018")
    assert score.status == "failed" and score.failures[0].check == "equivalence", score.summary()
    assert "an output differs in cycle" in score.failures[0].detail
