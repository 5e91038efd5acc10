"""Reference interpreter: r0, faults, retirement records."""
import pytest

from chipgym.errors import ProgramError
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.assembler import assemble
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.trace import Retirement

FAULTS = load_arch().faults


def run(src: str, dmem=None):
    return execute(Program("t", tuple(assemble(src)), dmem or {}))


def test_r0_is_hardwired():
    r = run("ADDI r0, r0, 5\nADD r1, r0, r0\nHALT")
    assert r.final.regs[:2] == (0, 0)
    assert r.retirements[0] == Retirement(pc=0, insn=r.retirements[0].insn)  # no visible write


def test_load_store_records():
    r = run("ADDI r1, r0, 9\nSW r1, r0, 16\nLW r2, r0, 16\nHALT")
    assert r.retirements[1].fields() | {"insn": 0} == dict(
        pc=4, insn=0, rd=0, rd_wdata=0, mem_en=1, mem_we=1, mem_addr=16, mem_wdata=9, mem_rdata=0)
    assert (r.retirements[2].rd, r.retirements[2].rd_wdata, r.retirements[2].mem_rdata) == (2, 9, 9)


@pytest.mark.parametrize("src, fault, retired, pc", [
    (".word 0", "ILLEGAL", 0, 0),
    ("ADDI r1, r0, 1\nLW r2, r1, 0", "MISALIGNED", 1, 4),
    ("LUI r1, 16\nSW r1, r1, 0", "OUT_OF_RANGE", 1, 4),
    ("ADDI r1, r0, 18\nJALR r2, r1, 0", "MISALIGNED", 2, 18),
    ("JAL r1, 4096", "OUT_OF_RANGE", 1, 16384),
    ("ADDI r1, r0, 8", "ILLEGAL", 1, 4),  # runs off the program into zero words
])
def test_faults(src, fault, retired, pc):
    r = run(src)
    assert (r.final.halted, r.final.fault, len(r.retirements), r.pc) == (False, FAULTS[fault], retired, pc)


def test_jalr_reads_rs1_before_writing_rd():
    r = run("ADDI r1, r0, 12\nJALR r1, r1, 0\nHALT\nHALT")
    assert r.final.regs[1] == 8 and r.pc == 12


def test_nontermination_is_detected():
    with pytest.raises(ProgramError, match="no HALT"):
        execute(Program("loop", tuple(assemble("L: JAL r0, L"))), max_steps=100)
