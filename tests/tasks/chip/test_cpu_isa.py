"""isa.xml, the assembler and the reference interpreter agree on every instruction."""
import pytest

from chipgym.errors import AsmError
from chipgym.tasks.chip.cpu import reference
from chipgym.tasks.chip.cpu.assembler import assemble, disassemble
from chipgym.tasks.chip.cpu.isa import load_isa
from chipgym.tasks.chip.cpu.program import Program

M = 0xFFFFFFFF
A, B = 0x80000005, 0x00000003  # r1, r2 operands: a negative and a small positive number
# Independent expectations: mnemonic -> (operand text, r3 after the instruction).
ALU = {
    "ADD": ("r3, r1, r2", 0x80000008), "SUB": ("r3, r1, r2", 0x80000002),
    "AND": ("r3, r1, r2", 0x1), "OR": ("r3, r1, r2", 0x80000007), "XOR": ("r3, r1, r2", 0x80000006),
    "SLL": ("r3, r1, r2", 0x28), "SRL": ("r3, r1, r2", 0x10000000), "SRA": ("r3, r1, r2", 0xF0000000),
    "SLT": ("r3, r1, r2", 1), "SLTU": ("r3, r1, r2", 0), "MUL": ("r3, r1, r2", 0x8000000F),
    "ADDI": ("r3, r1, -6", 0x7FFFFFFF), "ANDI": ("r3, r1, -2", 0x80000004), "ORI": ("r3, r1, -131072", 0xFFFE0005),
    "XORI": ("r3, r1, -1", 0x7FFFFFFA), "SLLI": ("r3, r1, 33", 0x0000000A), "SRLI": ("r3, r1, 31", 1),
    "SRAI": ("r3, r1, 4", 0xF8000000), "SLTI": ("r3, r1, -131072", 1), "SLTIU": ("r3, r2, -1", 1),
    "LUI": ("r3, 0x3FFFFF", 0xFFFFFC00), "LW": ("r3, r2, 5", A), "JAL": ("r3, 1", 0x14), "JALR": ("r3, r4, 0", 0x14),
}
BRANCH_TAKEN = {"BEQ": False, "BNE": True, "BLT": True, "BGE": False, "BLTU": False, "BGEU": True}


def run(body: str):
    src = f"LW r1, r0, 0\nLW r2, r0, 4\nADDI r4, r0, 24\nADDI r5, r0, 0\n{body}\nADDI r5, r0, 1\nHALT"
    return reference.execute(Program("t", tuple(assemble(src)), {0: A, 4: B, 8: A}))


def test_reference_decodes_exactly_the_isa_opcodes():
    assert {i.opcode for i in load_isa().instructions.values()} == set(reference.OPCODES)
    assert len(load_isa().instructions) >= 25


def test_every_instruction_is_covered_here():
    assert set(ALU) | set(BRANCH_TAKEN) | {"SW", "HALT"} == set(load_isa().instructions)


@pytest.mark.parametrize("mnemonic", sorted(ALU))
def test_register_results(mnemonic):
    ops, expected = ALU[mnemonic]
    r = run(f"{mnemonic} {ops}")
    assert r.final.regs[3] == expected & M
    assert r.retirements[4].insn >> 26 == load_isa()[mnemonic].opcode
    assert disassemble(r.retirements[4].insn).split()[0] == mnemonic


@pytest.mark.parametrize("mnemonic", sorted(BRANCH_TAKEN))
def test_branches(mnemonic):
    r = run(f"{mnemonic} r1, r2, 2")  # taken skips "ADDI r5, r0, 1"
    assert r.final.regs[5] == (0 if BRANCH_TAKEN[mnemonic] else 1)


def test_store_and_halt():
    r = run("SW r1, r2, 9")
    assert r.final.dmem[12] == A and r.retirements[4].mem_we == 1
    assert r.final.halted and r.retirements[-1].insn >> 26 == 0x3F


def test_assembler_roundtrip_every_format():
    isa = load_isa()
    for insn in isa.instructions.values():
        ops = {n: (7 if n.startswith("r") else -3 if insn.format.fields[n].signed else 5) for n in insn.format.syntax}
        word = insn.encode(**ops)
        assert isa.decode(word) == (insn, {n: ops[n] for n in insn.format.fields})
        assert assemble(disassemble(word)) == [word]


def test_assembler_errors_are_clear():
    with pytest.raises(AsmError, match="line 2"):
        assemble("HALT\nADDI r1, r0, 999999")
    with pytest.raises(AsmError, match="takes"):
        assemble("ADD r1, r2")
