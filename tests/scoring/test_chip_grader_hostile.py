"""The chip grader against dishonest designs (issue 12), each built from a copy of the multicycle fixture.

Full scores are shared with tests/scoring/test_chip_score.py through the caches; the other attacks stop at the
stage that must refuse them (loading, synthesis, timing), so they add no cold check or gate-level build.
"""
from __future__ import annotations

import json

import pytest

from chipgym.errors import DesignError, SynthesisError
from chipgym.scoring.activity import gate_simulator
from chipgym.scoring.chip import score_design
from chipgym.scoring.gate_netlist import CLOCK
from chipgym.scoring.liberty import load_library
from chipgym.scoring.profile import load_profile
from chipgym.scoring.synthesis import cell_types, synthesize
from chipgym.scoring.timing import check_timing
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.gate_level import gate_level, gate_run
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.testbench import HARNESS
from chipgym.tasks.chip.cpu.workloads import kernel
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.chip.verilator import build

import chip_attacks as attacks

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

OSU018 = load_profile("osu018")
SIMULATION_PORTS = load_task("cpu").simulation_ports


@pytest.fixture(scope="module")
def fixture_score():
    return score_design(FIXTURES / "multicycle", profile="osu018")


@pytest.fixture(scope="module")
def fixture_netlist(fixture_score):
    return synthesize(load_design(FIXTURES / "multicycle"), OSU018, SIMULATION_PORTS)


def _netlist(design_dir):
    return synthesize(load_design(design_dir), OSU018, SIMULATION_PORTS)


@pytest.mark.parametrize("macro, condition", [("SYNTHESIS", "ifdef"), ("FORMAL", "ifdef"), ("YOSYS", "ifdef"),
                                              ("VERILATOR", "ifdef"), ("CHIPGYM_RETIRE", "ifndef")])
def test_a_two_faced_design_is_one_text_for_every_tool(macro, condition, fixture_score, tmp_path):
    design = attacks.two_faced(tmp_path / "two_faced", macro, condition)
    # the branch a tool's own macro would select is gone before any tool reads the design
    assert load_design(design).rtl[0].read_text() == load_design(FIXTURES / "multicycle").rtl[0].read_text()
    score = score_design(design, profile="osu018")
    assert score.key == fixture_score.key and score.reward == fixture_score.reward


def test_an_included_file_is_part_of_the_design(tmp_path):
    design = attacks.included_alu(tmp_path / "included")
    honest = load_design(design)
    assert "4'h1: alu = a + y;" in honest.text.read_text() and "`include" not in honest.text.read_text()
    (design / "rtl" / "alu_add.vh").write_text("      4'h1: alu = a - y;\n")  # ADD subtracts
    changed = load_design(design)
    # every cache key (simulator, netlist, formal, score) starts from this digest
    assert changed.digest() != honest.digest() and "4'h1: alu = a - y;" in changed.text.read_text()


def test_a_recursive_include_is_a_design_failure(tmp_path):
    design = attacks.included_alu(tmp_path / "recursive")
    (design / "rtl" / "alu_add.vh").write_text('`include "alu_add.vh"\n')
    with pytest.raises(DesignError, match="Recursive inclusion"):
        load_design(design)


@pytest.mark.parametrize("name", ['x.v"; tee -o stat.txt log 1; "y.v', "a b.v", "-x.v", "é.v"])
def test_an_unusual_file_name_is_refused_naming_it(name, tmp_path):
    design = attacks.copy(tmp_path / "named")
    (design / "rtl" / "chipgym_cpu.v").rename(design / "rtl" / name)
    score = score_design(design, profile="osu018")
    assert score.status == "failed" and score.failures[0][0] == "design" and repr(name) in score.failures[0][1]


def test_a_top_name_that_is_not_an_identifier_is_refused(tmp_path):
    design = attacks.copy(tmp_path / "top")
    toml = design / "design.toml"
    toml.write_text(toml.read_text().replace('top = "chipgym_cpu"', 'top = "chipgym_cpu; log x"'))
    with pytest.raises(DesignError, match="not a plain Verilog identifier"):
        load_design(design)


def test_area_is_summed_on_the_host_from_the_liberty(fixture_score, fixture_netlist):
    library = load_library(OSU018.liberty)
    counted = cell_types(json.loads(fixture_netlist.json.read_text()), fixture_netlist.top, library)
    assert fixture_score.A_um2 == pytest.approx(sum(library.cells[t].area_um2 * n for t, n in counted.items()))
    assert not (fixture_netlist.folder / "stat.txt").exists()
    ports = json.loads(fixture_netlist.json.read_text())["modules"]["chipgym_cpu"]["ports"]
    assert "ret_valid" not in ports and "halted" in ports  # the checked RTL minus its simulation-only ports


def test_a_blackbox_library_cell_is_a_design_failure(tmp_path):
    with pytest.raises(DesignError, match=r"rtl/latch.v line 1: the attribute \(\* blackbox \*\)"):
        _netlist(attacks.blackbox_latch(tmp_path / "latch"))
    # the synthesis-side refusal of a module left a blackbox stays behind it
    with pytest.raises(SynthesisError, match="module LATCH stayed a blackbox"):
        cell_types({"modules": {"top": {"cells": {}}, "LATCH": {}}}, "top", load_library(OSU018.liberty))


@pytest.mark.parametrize("cell, why", [("LATCH", "is a latch"), ("TBUFX1", "is a tristate"),
                                       ("NOT_A_CELL", "is not a cell of the library")])
def test_latches_tristates_and_unknown_cells_are_refused(cell, why):
    netlist = {"modules": {"top": {"cells": {"u1": {"type": cell}, "u2": {"type": "INVX1"}}}}}
    with pytest.raises(SynthesisError, match=f"cell\\(s\\) {cell}, which {why}"):
        cell_types(netlist, "top", load_library(OSU018.liberty))


def test_opensta_reads_an_assign_to_a_concatenation(tmp_path):
    netlist = _netlist(attacks.partial_lhs(tmp_path / "lhs"))
    assert "assign {" not in netlist.verilog.read_text()
    timing = check_timing(netlist, OSU018, 8000)
    assert timing.met and timing.slack_ps > 0, timing.problems


@pytest.mark.parametrize("attack", ["derived_clock", "gated_clock"])
def test_a_clock_not_straight_from_the_clock_port_fails_timing(attack, tmp_path):
    design = getattr(attacks, attack)(tmp_path / attack)
    timing = check_timing(_netlist(design), OSU018, load_design(design).clock_period_ps)
    assert not timing.met
    gate = "XOR2X1" if attack == "derived_clock" else "OR2X"
    assert gate in timing.problems[0] and "not by the clk port through buffers and inverters" in timing.problems[0]
    if attack == "derived_clock":  # OpenSTA sees the derived clock's flops as unclocked too
        assert any("unclocked register" in p for p in timing.problems), timing.problems


def test_the_clock_net_toggles_and_is_charged_twice_per_cycle(fixture_score, fixture_netlist):
    library, arch = load_library(OSU018.liberty), load_arch()
    simulator = gate_simulator(fixture_netlist, library, 8000, HARNESS)
    run = gate_run(simulator.binary, execute(kernel("memcpy"), arch), arch, {"imem": 1, "dmem": 1})
    clock = simulator.module["ports"][CLOCK]["bits"][0]
    assert run.problem is None and run.toggles[simulator.netlist.nets.index(clock)] == 2 * run.cycles


def test_gate_level_cycles_must_equal_the_checked_rtl(fixture_score, fixture_netlist):
    arch, latency = load_arch(), {"imem": 1, "dmem": 1}
    simulator = gate_simulator(fixture_netlist, load_library(OSU018.liberty), 8000, HARNESS)
    reference = execute(kernel("fibonacci"), arch)
    rtl = build(load_design(FIXTURES / "multicycle"), HARNESS)
    run = gate_level(simulator.binary, rtl, reference, arch, latency, 1)
    assert run.problem is None and run.cycles == fixture_score.workloads["fibonacci"]["cycles"]
    # a netlist that computes the same as the RTL that was checked, in fewer cycles
    faster = build(load_design(FIXTURES / "pipelined"), HARNESS)
    problem = gate_level(simulator.binary, faster, reference, arch, latency, 1).problem
    assert f"fibonacci: halted or faulted at cycle {run.cycles}, the checked RTL at" in problem


def test_a_crash_at_gate_level_is_the_designs_failure_never_unavailable(fixture_score, fixture_netlist, tmp_path):
    """Issue 40 §2: a design that stopped itself ($stop) in the gate-level stage's rerun of the checked RTL made the
    score unavailable, with the held-out program's name and the run's last lines in the reason. A crash there is the
    design's problem, as in the check (which the scorer then reports as held-out programs only, for a held-out
    program); here a simulator that aborts stands for the design's own."""
    arch, latency = load_arch(), {"imem": 1, "dmem": 1}
    simulator = gate_simulator(fixture_netlist, load_library(OSU018.liberty), 8000, HARNESS)
    reference = execute(kernel("fibonacci"), arch)
    rtl = build(load_design(FIXTURES / "multicycle"), HARNESS)
    crashing = tmp_path / "sim"
    crashing.write_text("#!/bin/sh\nkill -ABRT $$\n")
    crashing.chmod(0o755)
    crashed_rtl = gate_level(simulator.binary, crashing, reference, arch, latency, 1).problem
    assert "the checked RTL: fibonacci: simulator crashed" in crashed_rtl
    assert gate_level(crashing, rtl, reference, arch, latency, 1).problem.startswith("fibonacci: simulator crashed")


def test_a_synthesis_pragma_in_a_comment_is_gone_before_any_tool(tmp_path):
    design = attacks.copy(tmp_path / "pragma")
    attacks.patch(design, attacks.LEGAL, f"  // synopsys translate_off\n{attacks.LEGAL}  // synopsys translate_on\n")
    text = load_design(design).rtl[0].read_text()
    assert "translate_off" not in text and "wire legal" in text


def test_a_synthesis_only_case_attribute_is_refused(tmp_path):
    design = attacks.copy(tmp_path / "parallel_case")
    attacks.patch(design, "    case (fn)\n", "    (* parallel_case *) case (fn)\n")
    with pytest.raises(DesignError, match=r"rtl/chipgym_cpu.v line \d+: the attribute \(\* parallel_case \*\)"):
        load_design(design)


def test_a_derived_clock_passes_the_check_and_fails_the_score_on_timing(tmp_path):
    # the one cold check of this file: before issue 12 this design scored 0.3625 (x2.96 the fixture)
    score = score_design(attacks.derived_clock(tmp_path / "derived"), profile="osu018")
    assert score.status == "failed" and score.reward == 0.0
    [(check, detail)] = score.failures
    assert check == "timing" and "(XOR2X1), not by the clk port through buffers and inverters" in detail
