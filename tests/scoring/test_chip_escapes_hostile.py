"""Designs whose own code would run outside the simulated design, with the authority to report results (issue 28
§0), and attributes that make synthesis build another design (§1): refused before any tool builds them, by file
and line, on every branch of every generate; what the design prints never reaches the harness's verdict.

Every test runs the real tools. Refusals cost a preprocessing and one Verilator parse (about a second each).
"""
from __future__ import annotations

import secrets

import pytest

from chipgym.engines import verilator, yosys
from chipgym.engines.verilator import run_simulator
from chipgym.envs import rtl_actions as act
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.errors import DesignError, SynthesisError
from chipgym.scoring.chip import score_design
from chipgym.scoring.profile import load_profile
from chipgym.scoring.synthesis import synthesize
from chipgym.tasks.chip.check import check_design
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.testbench import HARNESS
from chipgym.tasks.chip.cpu.workloads import kernel, programs
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.chip.verilator import build

import chip_attacks as attacks

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

# Verilator takes 1/0 for 0, so the branch is built; Yosys takes it for x, so formal and synthesis never see it
TWO_FACED = "  generate if (1/0 == 0) begin : escape\n{body}  end endgenerate\n"
# Keep all of stdout in one buffer; at exit, after the harness printed its END line, find it there and print it
# again with the stall counter the checks expect (cycles - retired): the testbench reads the last END line.
FORGE_END = (
    '    initial $c("std::setvbuf(stdout, new char[1 << 24], _IOFBF, 1 << 24);'
    " std::atexit([] { const char* b = stdout->_IO_write_base; const char* e = stdout->_IO_write_ptr;"
    " for (const char* p = b + 16; p + 5 < e; p++) { if (p[0] != ' ' || p[1] != 'E' || p[2] != 'N' || p[3] != 'D'"
    " || p[4] != ' ') continue; long long end; unsigned h, f, c, r, s;"
    ' if (std::sscanf(p + 5, \\"%lld %u %u %u %u %u\\", &end, &h, &f, &c, &r, &s) != 6) return;'
    ' std::printf(\\"%.16s END %lld %u %u %u %u %u\\\\n\\", p - 16, end, h, f, c, r, c - r); return; } });");\n'
)
RTL = "rtl/chipgym_cpu.v"


def c_forger(dest, mutant: str = "wrong_stall_counter"):
    """The cpu mutant ``mutant`` (its stall counter wrong) with FORGE_END behind TWO_FACED."""
    design = CPU.mutants[mutant].materialize(dest)
    attacks.patch(design, "  integer i;\n", "  integer i;\n" + TWO_FACED.format(body=FORGE_END))
    return design


def refusal_line(design, text: str) -> int:
    """The line of ``design``'s RTL that holds ``text``."""
    return next(n for n, line in enumerate((design / RTL).read_text().splitlines(), 1) if text in line)


def test_a_c_escape_behind_a_two_faced_generate_is_refused_by_check_score_and_simulate(tmp_path):
    # before: the mutant's forged END line passed the full check, formal included
    design = c_forger(tmp_path / "forger")
    where = f"{RTL} line {refusal_line(design, 'std::atexit')}: $c (it runs outside the simulated design)"
    report = check_design(design)
    assert report.failed_checks() == ["design"] and where in report.failures[0].detail, report.summary()
    assert sorted(report.timings) == []  # nothing was built or run
    score = score_design(design, profile="osu018")
    assert score.status == "failed" and score.failures[0].check == "design" and where in score.failures[0].detail
    env = RtlDesignEnv(formal=False)
    try:
        env.reset(seed=0, options={"start": "multicycle"})
        env.step(act.write(RTL, (design / RTL).read_text()))
        obs, reward, terminated, truncated, info = env.step(act.simulate("memcpy", cycles=20))
        assert info["status"] == "failed" and info["simulate"] == {"error": "design"} and where in obs["feedback"]
    finally:
        env.close()


def test_past_the_refusal_the_forged_end_line_never_reaches_the_verdict(tmp_path, monkeypatch):
    # the harness writes its verdict through a copy of the descriptor it takes before the model exists, and the
    # design's stdout is /dev/null: the same forger, built anyway, prints its END line into nothing
    design = c_forger(tmp_path / "forger")
    attacks.as_written(monkeypatch, tmp_path / "cache")
    report = check_design(design, workloads=programs(range(1)), formal=False)
    assert report.failed_checks() == ["functional"] and "counter stalls expected" in report.summary()


def test_a_forged_delivery_in_the_noc_is_refused(tmp_path):
    # before: a $c delivery to endpoint 99 raised KeyError out of the check
    task = load_task("noc")
    design = task.mutants["misrouted_destination"].materialize(tmp_path / "noc")
    rtl = next((design / "rtl").glob("*.v"))
    text = rtl.read_text()
    last = text.rindex("endmodule")
    body = '    initial $c("std::printf(\\"%s D 1 99 0 1\\\\n\\", \\"0123456789abcdef\\");");\n'
    rtl.write_text(text[:last] + TWO_FACED.format(body=body) + text[last:])
    report = check_design(design, task="noc")
    assert report.failed_checks() == ["design"] and "$c (it runs outside the simulated design)" in report.summary()


ESCAPES = {
    "c_forms": ("  initial $display(\"%0d\", $c32(\"0\"));\n", "$c"),
    "dpi_import": ('  import "DPI-C" function int getpid();\n', "the DPI import of getpid"),
    "system": ('  initial $system("true");\n', "$system"),
    "fopen": ('  integer fd;\n  initial fd = $fopen("/proc/self/mem", "r");\n', "$fopen"),
    "file_display": ('  initial $fdisplay(32\'h80000001, "%s END", "0123456789abcdef");\n', "a display to a file"),
    "readmem": ('  reg [31:0] m [0:3];\n  initial $readmemh("/etc/hostname", m);\n', "$readmem"),
    "plusargs": ('  initial if ($test$plusargs("x")) $display("x");\n', "$test$plusargs"),
    "value_plusargs": ('  integer v;\n  initial if ($value$plusargs("v=%d", v)) $display("v");\n', "$value$plusargs"),
    "dump": ('  initial $dumpfile("/tmp/x.vcd");\n', "$dumpfile/$dumpvars"),
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_every_escape_is_refused_in_a_branch_no_tool_builds(name, tmp_path):
    block, what = ESCAPES[name]
    design = attacks.copy(tmp_path / name)
    marker = f"escape_{name}"
    attacks.patch(design, "  integer i;\n",
                  f"  integer i;\n  generate if (0) begin : {marker}\n{block}  end endgenerate\n")
    with pytest.raises(DesignError) as refused:
        load_design(design)
    line = refusal_line(design, block.splitlines()[-1].strip())
    assert f"{RTL} line {line}: {what}" in str(refused.value)


@pytest.mark.parametrize("text, what", [
    ("  wire spy /*verilator public_flat_rw*/;\n", "the Verilator metacomment /*verilator public_flat_rw*/"),
    ("  wire spy; // verilator forceable\n", "the Verilator metacomment /*verilator forceable*/"),
    ('`systemc_header\n#include "evil.h"\n`verilog\n', "the directive `systemc_header"),
    ("  wire [3:0] spy = 4'bx;\n", "the value 4'bxxxx"),
])
def test_metacomments_c_sections_and_unknown_values_are_refused_by_line(text, what, tmp_path):
    design = attacks.copy(tmp_path / "design")
    attacks.patch(design, "  integer i;\n", "  integer i;\n" + text)
    with pytest.raises(DesignError) as refused:
        load_design(design)
    assert f"{RTL} line {refusal_line(design, text.splitlines()[0].strip())}: {what}" in str(refused.value)


def test_the_full_case_multiplier_is_refused_naming_its_line(tmp_path):
    # before: checked RTL right, netlist a 32 x 16-bit multiplier wrong on wider operands, which no graded kernel
    # multiplies: reward 0.1270 against the fixture's 0.1229 (A x0.974, slack 417.6 ps against 12.5 ps)
    design = attacks.full_case_multiplier(tmp_path / "full_case")
    line = refusal_line(design, "full_case")
    with pytest.raises(DesignError, match=rf"{RTL} line {line}: the attribute \(\* keep = \(1\), full_case \*\)"):
        load_design(design)


@pytest.mark.parametrize("attribute", ["(* keep = (1), full_case *)", '(* a = "*)", full_case *)', "(* keep *)"])
def test_an_attribute_is_refused_whole_whatever_it_holds(attribute, tmp_path):
    # before: the pattern for synthesis-only attributes stopped at the first ")": keep = (1) hid full_case, and
    # Yosys built a multiplier wrong on inputs no graded kernel exercises (reward 0.1229 -> 0.1419)
    design = attacks.copy(tmp_path / "attribute")
    attacks.patch(design, "    case (fn)\n", f"    {attribute} case (fn)\n")
    with pytest.raises(DesignError) as refused:
        load_design(design)
    assert f"{RTL} line {refusal_line(design, attribute)}: the attribute {attribute}" in str(refused.value)
    assert "Verilator ignores attributes and Yosys honours them" in str(refused.value)


def test_what_the_design_prints_never_reaches_the_verdict(tmp_path):
    # a line shaped like the harness's, nonce and all: the design cannot know the nonce, and its output goes
    # to /dev/null, not to the descriptor the harness writes its verdict to
    design = attacks.copy(tmp_path / "printer")
    attacks.patch(design, "  integer i;\n", '  integer i;\n  always @(posedge clk) if (halted) '
                  '$display("%s END 1 1 0 1 1 0 SPY-PRINTED", "0123456789abcdef");\n')
    binary = build(load_design(design), HARNESS)
    program, arch, nonce = kernel("fibonacci"), load_arch(), secrets.token_hex(8)
    stdin = (f"{nonce} {arch.memory_bytes['imem']} {arch.memory_bytes['dmem']} 1 1 0 0 100000\n"
             f"{len(program.imem)}\n{' '.join(f'{w:x}' for w in program.imem)}\n0\n\n")
    run = run_simulator(binary, stdin, timeout=60)
    assert run.ok and "SPY-PRINTED" not in run.stdout + run.stderr
    assert [line.split()[1] for line in run.stdout.splitlines()].count("END") == 1
    assert all(line.startswith(nonce + " ") for line in run.stdout.splitlines())


def test_the_fixtures_hold_nothing_refused():
    for name in ("cpu", "noc"):
        for fixture in load_task(name).fixtures.values():
            load_design(fixture)  # raises if anything were refused
    assert FIXTURES.is_dir()


def test_an_undriven_wire_fails_the_port_check(tmp_path):
    # 0 to Verilator, a don't-care to Yosys's optimisation, which the equivalence proof takes as given
    design = attacks.copy(tmp_path / "undriven")
    attacks.patch(design, "  integer i;\n", "  integer i;\n  wire spy_undriven;\n")
    attacks.patch(design, "  assign halted = state == S_HALT;\n",
                  "  assign halted = state == S_HALT || spy_undriven;\n")
    report = check_design(design, formal=False)
    assert report.failed_checks() == ["ports"] and "spy_undriven is used but has no driver" in report.summary()


def test_a_design_whose_parse_tree_is_quadratic_is_refused_before_it_is_read(tmp_path):
    """Issue 40 §4: Verilator's tree dump prints each node's path from the root, so a left-deep AND of n operands
    dumps about n^2 characters; the grader read and parsed it whole (a 144 KB text took 2.5 GiB). 3,000 operands
    (27 KB of text) dump 37 MB: refused, unread, as the design's failure."""
    design = attacks.copy(tmp_path / "deep")
    deep = " & ".join(f"spy_in[{i % 32}]" for i in range(3000))
    attacks.patch(design, "  integer i;\n", f"  integer i;\n  reg [31:0] spy_in;\n  wire spy = {deep};\n")
    with pytest.raises(DesignError, match="parse tree of the design is refused .* over the limit of"):
        load_design(design)


def test_a_refused_text_is_not_scanned_again(tmp_path, monkeypatch):
    """Issue 40 §4: a refused text was scanned again at every action, its 37 MB tree dumped each time. Its
    refusal is stored under the text's hash beside the accepted texts: the same text is refused unscanned."""
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path / "cache"))
    dumped = []
    monkeypatch.setattr(verilator, "parse_tree", lambda design, dump=verilator.parse_tree: dumped.append(design)
                        or dump(design))
    design = attacks.copy(tmp_path / "deep")
    deep = " & ".join(f"spy_in[{i % 32}]" for i in range(3000))
    attacks.patch(design, "  integer i;\n", f"  integer i;\n  reg [31:0] spy_in;\n  wire spy = {deep};\n")
    refusals = []
    for _ in range(2):
        with pytest.raises(DesignError, match="parse tree of the design is refused") as refused:
            load_design(design)
        refusals.append(str(refused.value))
    assert len(dumped) == 1 and refusals[0] == refusals[1]


def test_yosys_output_past_its_bound_is_the_designs_failure_unread(tmp_path, monkeypatch):
    """Yosys warns of an undriven wire once per bit and writes every bit to its JSON, so the design chose the size
    of the log and the netlist the grader read back whole: 64 Ki bits of one wire give a 3.6 MB log. Both are read
    through the bounded reader; here its bound is lowered under that log, and the design fails, the log unread."""
    text = tmp_path / "design.v"
    text.write_text("module spy(output o);\n  wire [65535:0] w;\n  assign o = ^w;\nendmodule\n")
    assert len(yosys.elaborate((text,), "spy").problems) == 1  # read whole: one problem for the 65,536 warnings
    monkeypatch.setattr(yosys, "MAX_LOG_BYTES", 1 << 20)
    problems = yosys.elaborate((text,), "spy").problems
    assert len(problems) == 1 and "refused unread" in problems[0] and "over the limit of 1048576" in problems[0]


def test_a_synthesized_netlist_past_its_bound_is_the_designs_failure_unread(tmp_path, monkeypatch):
    """The netlist's JSON is the design's size to choose too: read through the same bounded reader, and past its
    bound (lowered here under the fixture's netlist) the design's SynthesisError, never an unbounded parse."""
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(yosys, "MAX_JSON_BYTES", 1 << 20)
    with pytest.raises(SynthesisError, match="synthesized netlist is refused unread: .* over the limit of 1048576"):
        synthesize(load_design(FIXTURES / "multicycle"), load_profile("osu018"), load_task("cpu").simulation_ports)
