"""The cpu design generator: every knob vector gives a design, meaningless knobs collapse, every knob costs the
cycles its timing model says, and the designs furthest from the fixtures pass the check on real Verilator
runs (the one with every five-stage knob changed, formal included)."""
import hashlib
import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.generator import Knobs, action_sizes, designs, generate
from chipgym.tasks.chip.cpu.lockstep import predict
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.workloads import kernel, programs
from chipgym.tasks.chip.design import load_design

PROGRAMS = programs(range(3))
ALL_CHANGED = Knobs(pipeline="five-stage", forwarding="none", branch="stall", multiplier="iterative")


def _files(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_every_knob_vector_gives_a_design_and_meaningless_knobs_collapse(tmp_path):
    by_content: dict[str, set[Knobs]] = {}
    vectors = list(itertools.product(*(range(n) for n in action_sizes())))
    for vector in vectors:
        knobs = Knobs.from_action(vector)
        assert knobs.to_action() == list(vector)
        folder = generate(knobs, tmp_path / "-".join(map(str, vector)))
        by_content.setdefault(_files(folder), set()).add(knobs.canonical())
    assert len(vectors) == 48 and len(by_content) == len(designs()) == 30
    assert all(len(same) == 1 for same in by_content.values())  # the same content is the same canonical design
    multicycle = [k for k in designs() if k.pipeline == "multicycle"]
    assert len(multicycle) == 6 and {k.forwarding for k in multicycle} == {"full"}


def test_a_design_declares_the_grid_period_of_each_profile(tmp_path):
    folder = generate(Knobs(period=0), tmp_path / "d")
    assert load_design(folder).clock_period_ps == 6600
    assert load_design(folder, profile="asap7").clock_period_ps == 2500


@pytest.mark.parametrize("vector, fault",
                         [([2, 0, 0, 0, 0], "pipeline"), ([0, 0, 0, 0, 3], "period"), ([0, 0], "action")])
def test_a_bad_knob_vector_names_the_knob(vector, fault):
    with pytest.raises(ValueError, match=f"^{fault}:"):
        Knobs.from_action(vector)


def _cycles(knobs: Knobs, folder: Path) -> int:
    """Cycles the design's own timing model predicts for the dot product kernel (it multiplies and branches)."""
    design = load_design(generate(knobs, folder))
    [prediction] = predict(design.timing_model, [execute(kernel("dot_product"), load_arch())], {"imem": 1, "dmem": 1})
    return prediction["prediction"]["cycles"]


def test_each_knob_costs_the_cycles_its_timing_model_says(tmp_path):
    five = Knobs(pipeline="five-stage")
    base = _cycles(five, tmp_path / "base")
    for name, value in (("forwarding", "none"), ("branch", "stall"), ("multiplier", "iterative")):
        changed = replace(five, **{name: value})
        assert _cycles(changed, tmp_path / name) > base, name
    assert _cycles(Knobs(multiplier="iterative"), tmp_path / "mc-mul") > _cycles(Knobs(), tmp_path / "mc")


@pytest.mark.parametrize("knobs, formal", [(ALL_CHANGED, True), (Knobs(multiplier="iterative"), False)],
                         ids=["five-stage-all-knobs-changed", "multicycle-iterative"])
def test_the_designs_furthest_from_the_fixtures_pass_the_check(tmp_path, knobs, formal):
    report = check_design(generate(knobs, tmp_path / "design"), workloads=PROGRAMS, formal=formal)
    assert report.passed, report.summary()
    assert report.stats["dot_product"]["retired"] > 1000
