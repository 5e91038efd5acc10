"""Chip scoring on the cpu fixtures with the real flow: Verilator, Yosys, OpenSTA, gate-level energy."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from chipgym.cache import default_cache
from chipgym.cli import main
from chipgym.errors import SynthesisError
from chipgym.scoring.chip import ChipScore, score_design
from chipgym.scoring.liberty import load_library
from chipgym.scoring.pdk import install
from chipgym.scoring.profile import load_profile
from chipgym.scoring.synthesis import synthesize
from chipgym.scoring.timing import check_timing
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

SHARED_ASAP7 = Path(os.environ.get("CHIPGYM_SHARED_PDK",
                                   Path(__file__).resolve().parents[3] / "shared" / "pdk" / "asap7"))


@pytest.fixture(scope="module")
def osu018() -> dict[str, ChipScore]:
    return {name: score_design(FIXTURES / name, profile="osu018") for name in ("multicycle", "pipelined")}


def _consistent(score: ChipScore, time_us: float, energy_nJ: float, area_um2: float) -> None:
    assert score.status == "ok", score.summary()
    assert score.T_us > 0 and score.E_nJ > 0 and score.A_um2 > 0 and score.slack_ps >= 0
    assert score.cost == pytest.approx((score.T_us / time_us) * (score.E_nJ / energy_nJ) * (score.A_um2 / area_um2))
    assert score.reward == pytest.approx(1 / (1 + score.cost))
    assert sorted(score.workloads) == ["bubble_sort", "crc32", "dot_product", "fibonacci", "matmul", "memcpy"]
    per_instruction = [w["T_us"] / w["retired"] for w in score.workloads.values()]
    assert score.T_us == pytest.approx(sum(per_instruction) / len(per_instruction) * 10_000)


def test_fixtures_score_on_osu018(osu018):
    multicycle, pipelined = osu018["multicycle"], osu018["pipelined"]
    for score in osu018.values():
        _consistent(score, 100.0, 1000.0, 1e6)
        assert score.period_ps == 8000 and score.tools["yosys"].startswith("Yosys")
    assert 0.05 < multicycle.reward < 0.5
    assert pipelined.T_us < multicycle.T_us  # fewer cycles per instruction at the same period


def test_the_same_design_gets_the_same_score(osu018):
    first = osu018["multicycle"]
    # score again from the check on (builds stay cached)
    (default_cache().folder("scores") / f"{first.key}.json").unlink()
    again = score_design(FIXTURES / "multicycle", profile="osu018")
    assert again.key == first.key
    assert {**again.to_dict(), "seconds": {}} == {**first.to_dict(), "seconds": {}}


def test_the_physical_tier_refuses_a_cpu_over_its_size_limit_without_changing_the_score(osu018):
    if shutil.which("qflow") is None:
        pytest.skip("qflow is not installed (apt-get install qflow)")
    score = score_design(FIXTURES / "multicycle", profile="osu018", physical=True)
    assert score.status == "ok" and score.reward == osu018["multicycle"].reward
    assert score.physical["status"] == "unavailable" and "over the limit" in score.physical["reason"]


def test_the_score_follows_the_timing_model(osu018, tmp_path):
    design = tmp_path / "model_off"
    shutil.copytree(FIXTURES / "multicycle", design)
    model = design / "model" / "timing_model.py"
    model.write_text(model.read_text() + "\npredict = None\n")
    assert score_design(design).failures[0][0] == "lockstep"
    shutil.copy(FIXTURES / "multicycle" / "model" / "timing_model.py", model)
    assert score_design(design).reward == osu018["multicycle"].reward


def test_a_period_below_the_critical_path_fails_timing_with_the_path():
    profile = load_profile("osu018")
    netlist = synthesize(load_design(FIXTURES / "multicycle"), profile, load_task("cpu").simulation_ports)
    timing = check_timing(netlist, profile, 2000)
    assert not timing.met and timing.slack_ps < 0
    assert "VIOLATED" in timing.critical_path and "data arrival time" in timing.critical_path
    assert check_timing(netlist, profile, timing.arrival_ps + 100).met


def test_a_latch_fails_synthesis_naming_the_cell(tmp_path):
    (tmp_path / "rtl").mkdir()
    (tmp_path / "rtl" / "top.v").write_text(
        "module top(input clk, input en, input [3:0] d, output reg [3:0] q);\n  always @* if (en) q = d;\nendmodule\n")
    (tmp_path / "design.toml").write_text('top = "top"\nclock_period_ps = 8000\n')
    with pytest.raises(SynthesisError, match="DLATCH"):
        synthesize(load_design(tmp_path), load_profile("osu018"))


def test_a_missing_library_is_unavailable_not_zero(tmp_path, monkeypatch):
    monkeypatch.setenv("CHIPGYM_PDK_HOME", str(tmp_path))
    score = score_design(FIXTURES / "multicycle", profile="asap7")
    assert score.status == "unavailable" and "chipgym pdk install asap7" in score.reason
    assert score.reward == 0.0 and not score.key


def test_a_malformed_design_fails_naming_the_file(tmp_path):
    (tmp_path / "design.toml").write_text("top = 3\n")
    score = score_design(tmp_path)
    assert score.status == "failed" and "design.toml" in score.failures[0][1]


def test_cli_prints_the_score_as_json(osu018, capsys):
    assert main(["chip", "score", str(FIXTURES / "pipelined"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("reward", "T_us", "E_nJ", "A_um2", "period_ps", "slack_ps", "cost"):
        assert out[key] == getattr(osu018["pipelined"], key)


@pytest.fixture(scope="module")
def asap7_home(tmp_path_factory):
    if not SHARED_ASAP7.is_dir():
        pytest.skip(f"the ASAP7 files are not at {SHARED_ASAP7} (set CHIPGYM_SHARED_PDK to a copy)")
    home = tmp_path_factory.mktemp("pdk")
    install("asap7", SHARED_ASAP7, home=home, progress=False)
    return home


def test_fixtures_score_on_asap7(asap7_home, osu018, monkeypatch):
    monkeypatch.setenv("CHIPGYM_PDK_HOME", str(asap7_home))
    library = load_library(load_profile("asap7").liberty)
    flop = library.cells["DFFHQNx1_ASAP7_75t_R"]
    assert flop.area_um2 == pytest.approx(0.2916) and flop.inputs["D"] == pytest.approx(0.558822e-15)
    scores = {name: score_design(FIXTURES / name, profile="asap7") for name in ("multicycle", "pipelined")}
    for name, score in scores.items():
        _consistent(score, 1.0, 1.0, 10_000.0)
        assert score.A_um2 < osu018[name].A_um2 / 100 and score.E_nJ < osu018[name].E_nJ / 10
    assert scores["pipelined"].T_us < scores["multicycle"].T_us
