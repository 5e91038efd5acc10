"""Issue 40 §1, one reading: Verilator and Yosys read plain Verilog differently wherever the standard leaves a
value undefined, so a design could be checked as one circuit and scored as another. Every check now runs the one
design Yosys elaborated (:mod:`chipgym.tasks.chip.canonical`), the design synthesis maps and the equivalence proof
ties to the netlist: whatever a face reads as, the check runs what is scored.

Every test runs the real tools (Yosys, Verilator).
"""
from __future__ import annotations

import re

import pytest

from chipgym.engines import yosys
from chipgym.errors import ElaborationError
from chipgym.tasks.chip.check import check_design
from chipgym.tasks.chip.cpu.assembler import assemble
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.design import load_design

import chip_attacks as attacks

WIDE_MULTIPLY = Program("wide_multiply", tuple(assemble("LW r1, r0, 0\nLW r2, r0, 4\nMUL r3, r1, r2\nSW r3, r0, 8\n"
                                                        "HALT")), {0: 0x12345, 4: 0x54321})
"""a multiply of operands over 16 bits: the full multiplier and a 32 x 16-bit one differ on it"""


def test_the_fixture_multiplies_wide_operands_right(tmp_path):
    report = check_design(attacks.copy(tmp_path / "fixture"), formal=False, heldout=False, workloads=[WIDE_MULTIPLY])
    assert report.passed, report.summary()


@pytest.mark.parametrize("face", sorted(attacks.FACES))
def test_a_two_faced_multiplier_is_checked_as_the_circuit_synthesis_builds(face, tmp_path):
    # before: Verilator read the selector as 0 and the check passed the full multiplier, formal included, while
    # Yosys read it as 1 and synthesis built the 32 x 16-bit one: reward 0.1420 against the fixture's 0.1229
    report = check_design(attacks.two_faced_multiplier(tmp_path / "design", face), formal=False, heldout=False,
                          workloads=[WIDE_MULTIPLY])
    assert report.failed_checks() == ["functional"], report.summary()
    assert "MUL r3, r1, r2" in report.summary() and "rd_wdata" in report.summary()


def test_the_design_every_tool_reads_leaves_no_value_to_a_tool(tmp_path):
    design = load_design(attacks.two_faced_multiplier(tmp_path / "design", "bit-select past the end"))
    code = _code(design.rtl[0].read_text())
    assert "spy_bit[!rst]" in design.text.read_text()
    assert not re.search(r"[-+*/%<>]", code.replace("<=", "")), "an arithmetic or shift operator is left"
    assert not re.search(r"\[[^\]\d:]", code), "an index that is not a constant is left"


def _code(verilog: str) -> str:
    """``verilog`` without comments and escaped names (Yosys names a memory's words ``\\regs[3] ``)."""
    verilog = re.sub(r"/\*.*?\*/|//[^\n]*", "", verilog, flags=re.S)
    return re.sub(r"\\\S+ ", "n", verilog)


def test_a_value_only_a_proof_has_is_the_designs_failure(tmp_path):
    # `$anyseq` under `read_verilog -formal` is a free input to a proof and no circuit at all: the design fails
    # with that reason, where it would have reached Verilator as an instance of an unknown module
    design = attacks.copy(tmp_path / "design")
    attacks.patch(design, "  integer i;\n", "  integer i;\n  wire free = $anyseq;\n")
    report = check_design(design, formal=False, heldout=False, workloads=[WIDE_MULTIPLY])
    assert report.failed_checks() == ["design"], report.summary()
    assert "a value only a proof has" in report.summary()


def test_what_runs_outside_the_circuit_is_not_in_the_design_the_tools_read(tmp_path):
    # the flood that stops a simulate session when it reaches the simulator as written (tests/envs/
    # test_rtl_simulate_hostile.py) is no gate: the design every tool reads prints nothing
    design = attacks.copy(tmp_path / "design")
    (design / attacks.RTL).write_text(attacks.with_block(FLOOD))
    loaded = load_design(design)
    assert "$display" in loaded.text.read_text() and "$display" not in loaded.rtl[0].read_text()


def test_a_loop_that_never_ends_is_the_designs_failure_once(tmp_path, monkeypatch):
    # the refusal is stored: the same text is not elaborated again at the next action
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path / "cache"))
    runs = []
    monkeypatch.setattr(yosys, "canonicalize", lambda *args, run=yosys.canonicalize: runs.append(args) or run(*args))
    design = attacks.copy(tmp_path / "design")
    (design / attacks.RTL).write_text(attacks.with_block("  integer spin_i = 0;\n  initial while (1) spin_i = 1;\n"))
    for _ in range(2):
        with pytest.raises(ElaborationError, match=r"could not be elaborated: yosys: .*While loops are only allowed"):
            load_design(design)
    assert len(runs) == 1


FLOOD = """
  integer flood_i;
  always @(posedge clk) for (flood_i = 0; flood_i < 1000; flood_i = flood_i + 1) $display("flood %d", flood_i);
"""
