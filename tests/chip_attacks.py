"""Dishonest designs from the chip grader's attacks (issue 12): each a copy of the multicycle fixture with a
small patch, written to a folder of the caller's."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chipgym.tasks.chip.registry import load_task

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"


RTL = Path("rtl") / "chipgym_cpu.v"
LEGAL = "  wire legal   = is_r | is_i | is_lui | is_lw | is_sw | is_br | is_jal | is_jalr | is_halt;\n"
CLOCKED = "always @(posedge clk) begin"


def copy(dest: Path) -> Path:
    shutil.copytree(FIXTURES / "multicycle", dest)
    return dest


def patch(design: Path, old: str, new: str, count: int = 1) -> None:
    path = design / RTL
    text = path.read_text()
    assert text.count(old) == count, old
    path.write_text(text.replace(old, new))


MEMORY_BOMB = """
  reg [26:0] bomb_i = 0;
  reg [1023:0] bomb [0:(1<<27)-1];
  always @(posedge clk) begin
    bomb_i <= bomb_i + 1;
    bomb[bomb_i] <= bomb[bomb_i + 1] + {5'd0, cnt_cycles};
    if (bomb[bomb_i][1000]) $display("bomb");
  end
"""
"""a block of 2**27 words of 1024 bits: 16 GiB, over every sandbox's address space cap"""


def as_written(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    """Designs reach the simulators as written: constructs that run outside the design ($system, $fopen, ...) are
    not refused and Yosys does not make the one reading of them (which drops or refuses those constructs), in a
    cache of their own (so that no refused text is stored as accepted): for tests of the sandbox behind both."""
    monkeypatch.setenv("CHIPGYM_CACHE", str(cache))
    monkeypatch.setattr("chipgym.tasks.chip.preprocess.refused_constructs", lambda text: [])
    monkeypatch.setattr("chipgym.tasks.chip.design.canonical", lambda text, top: text)


def with_block(block: str) -> str:
    """The multicycle fixture's RTL with ``block`` added at the end of its top module."""
    text = (FIXTURES / "multicycle" / RTL).read_text()
    last = text.rindex("endmodule")
    return text[:last] + block + text[last:]


def _set_period(design: Path, period_ps: int) -> None:
    toml = design / "design.toml"
    toml.write_text(toml.read_text().replace("clock_period_ps = 8000", f"clock_period_ps = {period_ps}"))


def two_faced(dest: Path, macro: str, condition: str = "ifdef") -> Path:
    """Every instruction is legal (no illegal-instruction fault) when ``condition`` ("ifdef" or "ifndef")
    ``macro`` holds: smaller and, on kernels that never fault, as correct."""
    design = copy(dest)
    patch(design, LEGAL, f"`{condition} {macro}\n  wire legal = 1'b1;\n`else\n{LEGAL}`endif\n")
    return design


def derived_clock(dest: Path, period_ps: int = 6000) -> Path:
    """The core is clocked by ``tp ^ tn``, two toggle flops on opposite edges (a copy of clk OpenSTA cannot see)."""
    design = copy(dest)
    patch(design, "  integer i;\n", "  integer i;\n  reg tp = 1'b0, tn = 1'b0;\n"
           "  always @(posedge clk) tp <= ~tp;\n  always @(negedge clk) tn <= ~tn;\n  wire gclk = tp ^ tn;\n")
    patch(design, CLOCKED, "always @(posedge gclk) begin", count=2)
    _set_period(design, period_ps)
    return design


def gated_clock(dest: Path) -> Path:
    """Every flop of the core on ``clk | gate_q``, where gate_q stops the clock once the core halts."""
    design = copy(dest)
    patch(design, "  integer i;\n", "  integer i;\n  reg gate_q;\n"
           "  always @(posedge clk) gate_q <= rst ? 1'b0 : halted;\n  wire gclk = clk | gate_q;\n")
    patch(design, CLOCKED, "always @(posedge gclk) begin", count=2)
    return design


def full_case_multiplier(dest: Path, attribute: str = "(* keep = (1), full_case *)") -> Path:
    """MUL through a case that Verilator reads as leaving ``a * y`` alone unless ``y`` fits 16 signed bits, and
    that Yosys, honouring ``full_case``, reads as always taking its one item: a 32 x 16-bit multiplier, wrong on
    every wider multiplier, which no graded kernel uses (issue 28 §1)."""
    design = copy(dest)
    patch(design, "      default: alu = a * y;\n",
          f"      default: begin\n        alu = a * y;\n        {attribute} case (y[31:15] == 17'd0 || "
          "y[31:15] == 17'h1ffff)\n          1'b1: alu = a * {{16{y[15]}}, y[15:0]};\n        endcase\n      end\n")
    return design


def included_alu(dest: Path) -> Path:
    """The ALU's ADD case in ``rtl/alu_add.vh``, included (by a path from the design folder, which every
    tool's working directory was)."""
    design = copy(dest)
    patch(design, "      4'h1: alu = a + y;\n", '`include "rtl/alu_add.vh"\n')
    (design / "rtl" / "alu_add.vh").write_text("      4'h1: alu = a + y;\n")
    return design


def blackbox_latch(dest: Path, hidden: bool = False) -> Path:
    """``halted`` through osu018's zero-area ``LATCH`` cell, instantiated by name and declared a blackbox (to
    synthesis only if ``hidden``: formal cannot model a blackbox)."""
    design = copy(dest)
    patch(design, "  assign halted = state == S_HALT;\n",
           "  LATCH halt_latch(.D(state == S_HALT), .CLK(1'b1), .Q(halted));\n")
    blackbox = "`ifdef SYNTHESIS\n`ifndef FORMAL\n(* blackbox *)\n`endif\n`endif\n" if hidden else "(* blackbox *)\n"
    (design / "rtl" / "latch.v").write_text(
        f"{blackbox}module LATCH(input D, input CLK, output Q);\n  assign Q = CLK ? D : 1'b0;\nendmodule\n")
    return design


def partial_lhs(dest: Path) -> Path:
    """The fetch address with constant high and low bits: Yosys writes ``assign { imem_req_addr[31:14],
    imem_req_addr[1:0] } = 20'h00000;``, which OpenSTA 2.0.17 cannot parse."""
    design = copy(dest)
    patch(design, "  assign imem_req_addr  = pc;\n", "  assign imem_req_addr  = {18'd0, pc[13:2], 2'b00};\n")
    return design


FACES = {
    "quotient by zero": ("", "(1'b1 / rst)"),
    "remainder by zero": ("", "(1'b1 % rst)"),
    "bit-select past the end": ("  wire [0:0] spy_bit = 1'b1;\n", "spy_bit[!rst]"),
}
"""Selectors plain Verilog leaves to the tool, 0 to Verilator and 1 to Yosys after reset (issue 40 §1)"""


def two_faced_multiplier(dest: Path, face: str) -> Path:
    """MUL behind the selector ``FACES[face]``: the full multiplier where it reads 0, a 32 x 16-bit one, wrong on
    every wider multiplier, where it reads 1."""
    declaration, selector = FACES[face]
    design = copy(dest)
    patch(design, "  integer i;\n", "  integer i;\n" + declaration)
    patch(design, "      default: alu = a * y;\n",
          f"      default: alu = {selector} ? a * {{{{16{{y[15]}}}}, y[15:0]}} : a * y;\n")
    return design
