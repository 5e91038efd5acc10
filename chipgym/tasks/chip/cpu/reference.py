"""Untimed reference interpreter: the golden retirement stream and final state.

It decodes words itself (opcode in bits 31:26, rd/rs2 in 25:22, rs1 in 21:18, rs2 of r3 in 17:14,
immediates in the low bits) so that a test can cross-check it against ``isa.xml`` and the assembler.

>>> from chipgym.tasks.chip.cpu.assembler import assemble
>>> from chipgym.tasks.chip.cpu.program import Program
>>> run = execute(Program("t", tuple(assemble("ADDI r1, r0, -2\\nSW r1, r0, 8\\nHALT"))))
>>> run.final.regs[1], run.final.dmem, run.final.halted, len(run.retirements)
(4294967294, {8: 4294967294}, True, 3)
"""
from __future__ import annotations

from dataclasses import dataclass

from chipgym.errors import ProgramError
from chipgym.tasks.chip.cpu.arch import Arch, load_arch
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.trace import FinalState, Retirement

M32 = 0xFFFFFFFF


def u32(x: int) -> int:
    return x & M32


def s32(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def sext(x: int, bits: int) -> int:
    return x - (1 << bits) if x >> (bits - 1) & 1 else x


ALU_R = {
    0x01: lambda a, b: a + b,
    0x02: lambda a, b: a - b,
    0x03: lambda a, b: a & b,
    0x04: lambda a, b: a | b,
    0x05: lambda a, b: a ^ b,
    0x06: lambda a, b: a << (b & 31),
    0x07: lambda a, b: a >> (b & 31),
    0x08: lambda a, b: s32(a) >> (b & 31),
    0x09: lambda a, b: int(s32(a) < s32(b)),
    0x0A: lambda a, b: int(a < b),
    0x0B: lambda a, b: a * b,
}
ALU_I = {0x10: 0x01, 0x11: 0x03, 0x12: 0x04, 0x13: 0x05, 0x14: 0x06, 0x15: 0x07, 0x16: 0x08, 0x17: 0x09, 0x18: 0x0A}
BRANCH = {
    0x28: lambda a, b: a == b,
    0x29: lambda a, b: a != b,
    0x2A: lambda a, b: s32(a) < s32(b),
    0x2B: lambda a, b: s32(a) >= s32(b),
    0x2C: lambda a, b: a < b,
    0x2D: lambda a, b: a >= b,
}
LUI, LW, SW, JAL, JALR, HALT = 0x19, 0x20, 0x21, 0x30, 0x31, 0x3F
OPCODES = frozenset(ALU_R) | frozenset(ALU_I) | frozenset(BRANCH) | {LUI, LW, SW, JAL, JALR, HALT}


@dataclass(frozen=True)
class Run:
    program: Program
    retirements: list[Retirement]
    final: FinalState
    pc: int
    """pc of the next (or faulting) instruction."""


def execute(program: Program, arch: Arch | None = None, max_steps: int = 1_000_000) -> Run:
    """Run ``program`` until HALT, a fault, or ``max_steps`` retirements (then ProgramError)."""
    arch = arch or load_arch()
    faults, imem_bytes, dmem_bytes = arch.faults, arch.memory_bytes["imem"], arch.memory_bytes["dmem"]
    regs = [0] * arch.registers
    dmem = {a: v for a, v in program.dmem.items() if v}
    trace: list[Retirement] = []
    pc, fault, halted = 0, 0, False

    def mem_fault(addr: int) -> int:
        return faults["MISALIGNED"] if addr % 4 else faults["OUT_OF_RANGE"] if addr >= dmem_bytes else 0

    while not (halted or fault):
        if len(trace) >= max_steps:
            raise ProgramError(f"{program.name}: no HALT within {max_steps} instructions")
        if pc % 4:
            fault = faults["MISALIGNED"]
            break
        if pc >= imem_bytes:
            fault = faults["OUT_OF_RANGE"]
            break
        index = pc // 4
        insn = program.imem[index] if index < len(program.imem) else 0
        op, rd, rs1, rs2r = insn >> 26, (insn >> 22) & 15, (insn >> 18) & 15, (insn >> 14) & 15
        a, c = regs[rs1], regs[rd]  # c: the register in bits 25:22, read as a source by SW and branches
        imm18, imm22 = sext(insn & 0x3FFFF, 18), insn & 0x3FFFFF
        nxt, wb, mem = u32(pc + 4), None, {}
        if op in ALU_R:
            wb = ALU_R[op](a, regs[rs2r])
        elif op in ALU_I:
            wb = ALU_R[ALU_I[op]](a, u32(imm18))
        elif op == LUI:
            wb = imm22 << 10
        elif op in (LW, SW):
            addr = u32(a + imm18)
            if (fault := mem_fault(addr)):
                break
            if op == LW:
                wb = dmem.get(addr, 0)
                mem = dict(mem_en=1, mem_addr=addr, mem_rdata=wb)
            else:
                dmem[addr] = c
                mem = dict(mem_en=1, mem_we=1, mem_addr=addr, mem_wdata=c)
        elif op in BRANCH:
            if BRANCH[op](a, c):
                nxt = u32(pc + 4 * imm18)
        elif op == JAL:
            wb, nxt = pc + 4, u32(pc + 4 * sext(imm22, 22))
        elif op == JALR:
            wb, nxt = pc + 4, u32(a + imm18)
        elif op == HALT:
            halted = True
        else:
            fault = faults["ILLEGAL"]
            break
        write = {}
        if wb is not None and rd != 0:
            regs[rd] = u32(wb)
            write = dict(rd=rd, rd_wdata=regs[rd])
        trace.append(Retirement(pc=pc, insn=insn, **write, **mem))
        pc = pc if halted else nxt
    dmem = {a: v for a, v in dmem.items() if v}
    return Run(program, trace, FinalState(tuple(regs), dmem, halted, fault), pc)
