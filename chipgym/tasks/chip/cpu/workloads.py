"""Workloads: seeded random hazard programs and named kernels.

>>> from chipgym.tasks.chip.cpu.reference import execute
>>> p = random_program(seed=3)
>>> execute(p).final.halted or execute(p).final.fault > 0
True
>>> sorted(KERNELS)
['bubble_sort', 'crc32', 'dot_product', 'fibonacci', 'matmul', 'memcpy']
"""
from __future__ import annotations

import random
import re
from typing import Callable

from chipgym.tasks.chip.cpu.assembler import assemble
from chipgym.tasks.chip.cpu.program import Program

DATA = 0x400  # base of the data window random programs load and store around (held in r14)
LOOP, BASE, LINK = "r13", "r14", "r15"
ALU_R = ["ADD", "SUB", "AND", "OR", "XOR", "SLL", "SRL", "SRA", "SLT", "SLTU", "MUL"]
ALU_I = ["ADDI", "ANDI", "ORI", "XORI", "SLTI", "SLTIU"]
SHIFT_I = ["SLLI", "SRLI", "SRAI"]
BRANCHES = ["BEQ", "BNE", "BLT", "BGE", "BLTU", "BGEU"]
EDGE_IMMS = [0, 1, -1, 131071, -131072, 0x7FFF, -0x8000]
FAULTS = ["illegal", "misaligned_load", "misaligned_store", "range_load", "range_store", "jalr_misaligned", "jump_out"]


class _Gen:
    """Emits hazard-heavy straight-line code with forward branches and counted loops."""

    def __init__(self, rng: random.Random):
        self.rng, self.lines, self.labels = rng, [], 0
        self.dst = [f"r{i}" for i in range(0, 13)]  # r0 included: writes to r0 must vanish
        self.src = [f"r{i}" for i in range(0, 15)]
        self.last = "r1"

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels}"

    def emit(self, line: str) -> None:
        self.lines.append(line)

    def reg(self) -> str:  # bias toward the register written last (back-to-back dependences)
        return self.last if self.rng.random() < 0.5 else self.rng.choice(self.src)

    def rd(self) -> str:
        self.last = self.rng.choice(self.dst)
        return self.last

    def offset(self) -> int:
        return 4 * self.rng.randint(-32, 32)

    def alu(self) -> None:
        r = self.rng
        kind = r.random()
        if kind < 0.4:
            self.emit(f"{r.choice(ALU_R)} {self.rd()}, {self.reg()}, {self.reg()}")
        elif kind < 0.7:
            imm = r.choice(EDGE_IMMS) if r.random() < 0.3 else r.randint(-2048, 2047)
            self.emit(f"{r.choice(ALU_I)} {self.rd()}, {self.reg()}, {imm}")
        elif kind < 0.85:
            self.emit(f"{r.choice(SHIFT_I)} {self.rd()}, {self.reg()}, {r.choice([0, 1, 31, r.randint(0, 31)])}")
        else:
            self.emit(f"LUI {self.rd()}, {r.choice([0, 1, 0x3FFFFF, r.randint(0, 0x3FFFFF)])}")

    def memory(self) -> None:
        r, off = self.rng, self.offset()
        kind = r.random()
        if kind < 0.35:  # load-use
            dst = self.rd()
            self.emit(f"LW {dst}, {BASE}, {off}")
            self.emit(f"{r.choice(ALU_R)} {self.rd()}, {dst}, {self.reg()}")
        elif kind < 0.7:  # store-load aliasing, then a store of the loaded value
            self.emit(f"SW {self.reg()}, {BASE}, {off}")
            self.emit(f"LW {self.rd()}, {BASE}, {off}")
            self.emit(f"SW {self.last}, {BASE}, {self.offset()}")
        elif kind < 0.85:
            self.emit(f"LW {self.rd()}, {BASE}, {off}")
        else:
            self.emit(f"SW {self.reg()}, {BASE}, {off}")

    def branch(self) -> None:
        r, skip, hop = self.rng, self.label(), self.label()
        if r.random() < 0.3:  # branch to a branch
            self.emit(f"{r.choice(BRANCHES)} {self.reg()}, {self.reg()}, {hop}")
            self.alu()
            self.emit(f"{hop}: {r.choice(BRANCHES)} {self.reg()}, {self.reg()}, {skip}")
        elif r.random() < 0.5:
            self.emit(f"JAL {self.rd()}, {skip}")
        else:
            self.emit(f"ADDI {LINK}, r0, {skip}")
            self.emit(f"JALR {self.rd()}, {LINK}, 0")
        for _ in range(r.randint(0, 3)):
            self.alu()
        self.emit(f"{skip}:")

    def loop(self, depth: int) -> None:
        top = self.label()
        self.emit(f"ADDI {LOOP}, r0, {self.rng.randint(1, 4)}")
        self.emit(f"{top}:")
        self.block(self.rng.randint(2, 6), depth + 1)
        self.emit(f"ADDI {LOOP}, {LOOP}, -1")
        self.emit(f"BNE {LOOP}, r0, {top}")

    def block(self, n: int, depth: int = 0) -> None:
        for _ in range(n):
            x = self.rng.random()
            if x < 0.45:
                self.alu()
            elif x < 0.75:
                self.memory()
            elif x < 0.93 or depth:
                self.branch()
            else:
                self.loop(depth)

    def fault(self, kind: str) -> None:
        r = self.rng
        if kind == "illegal":
            self.emit(f".word {r.choice([0, 0x3E << 26, r.randint(0x0C, 0x0F) << 26 | r.getrandbits(26)])}")
        elif kind.startswith("misaligned"):
            self.emit(f"{'LW r1' if kind.endswith('load') else 'SW r1'}, {BASE}, {self.offset() + r.randint(1, 3)}")
        elif kind.startswith("range"):
            self.emit(f"LUI r2, {r.choice([16, 17, 0x3FFFFF])}")
            self.emit(f"{'LW r1' if kind.endswith('load') else 'SW r1'}, r2, {4 * r.randint(0, 8)}")
        elif kind == "jalr_misaligned":
            self.emit(f"ADDI {LINK}, r0, {4 * r.randint(0, 8) + r.randint(1, 3)}")
            self.emit(f"JALR r1, {LINK}, 0")
        else:
            self.emit(f"JAL r1, {r.choice([4096, 100000, -131072])}")


def random_program(seed: int, length: int = 60, fault_rate: float = 0.2, fault: str | None = None) -> Program:
    """A random hazard program; about ``fault_rate`` of them plan a fault (``fault`` forces one of
    ``FAULTS``). Unreachable words after the HALT hold illegal opcodes and stray jumps."""
    rng = random.Random(seed)
    g = _Gen(rng)
    g.emit(f"ADDI {BASE}, r0, {DATA}")
    g.block(length // 3)
    if fault or rng.random() < fault_rate:
        g.fault(fault or rng.choice(FAULTS))
    g.block(length // 3)
    g.emit("HALT")
    for _ in range(rng.randint(2, 6)):
        g.emit(rng.choice([".word 0", f".word {0x3F << 26 ^ 1 << 26}", "JAL r0, -4", "JAL r1, 2"]))
    dmem = {DATA + 4 * i: rng.getrandbits(32) for i in range(-32, 33) if rng.random() < 0.7}
    name = f"random-{seed}" + (f"-{fault}" if fault else "")
    return Program(name, tuple(assemble("\n".join(g.lines))), dmem)


def _words(rng: random.Random, base: int, n: int, bits: int = 32) -> dict[int, int]:
    return {base + 4 * i: rng.getrandbits(bits) for i in range(n)}


def _signed(rng: random.Random, base: int, n: int) -> dict[int, int]:
    return {base + 4 * i: rng.randint(-1000, 1000) & 0xFFFFFFFF for i in range(n)}


def memcpy(rng: random.Random, n: int = 2000) -> tuple[str, dict[int, int]]:
    return f"""
        ADDI r1, r0, 0
        ADDI r2, r0, 8192
        ADDI r3, r0, {n}
    loop: LW r4, r1, 0
        SW r4, r2, 0
        ADDI r1, r1, 4
        ADDI r2, r2, 4
        ADDI r3, r3, -1
        BNE r3, r0, loop
        HALT""", _words(rng, 0, n)


def dot_product(rng: random.Random, n: int = 1500) -> tuple[str, dict[int, int]]:
    return f"""
        ADDI r1, r0, 0
        ADDI r2, r0, {4 * n}
        ADDI r3, r0, {n}
    loop: LW r4, r1, 0
        LW r5, r2, 0
        MUL r6, r4, r5
        ADD r7, r7, r6
        ADDI r1, r1, 4
        ADDI r2, r2, 4
        ADDI r3, r3, -1
        BNE r3, r0, loop
        SW r7, r0, {8 * n}
        HALT""", _signed(rng, 0, 2 * n)


def bubble_sort(rng: random.Random, n: int = 56) -> tuple[str, dict[int, int]]:
    return f"""
        ADDI r10, r0, {n - 1}
    outer: ADDI r1, r0, 256
        ADD r11, r10, r0
    inner: LW r4, r1, 0
        LW r5, r1, 4
        BGE r5, r4, noswap
        SW r5, r1, 0
        SW r4, r1, 4
    noswap: ADDI r1, r1, 4
        ADDI r11, r11, -1
        BNE r11, r0, inner
        ADDI r10, r10, -1
        BNE r10, r0, outer
        HALT""", _signed(rng, 256, n)


def crc32(rng: random.Random, n: int = 55) -> tuple[str, dict[int, int]]:
    return f"""
        LUI r9, {0xEDB88320 >> 10}
        ORI r9, r9, {0xEDB88320 & 0x3FF}
        ADDI r2, r0, -1
        ADDI r1, r0, 0
        ADDI r3, r0, {n}
    word: LW r4, r1, 0
        XOR r2, r2, r4
        ADDI r6, r0, 32
    bit: ANDI r5, r2, 1
        SRLI r2, r2, 1
        SUB r5, r0, r5
        AND r5, r5, r9
        XOR r2, r2, r5
        ADDI r6, r6, -1
        BNE r6, r0, bit
        ADDI r1, r1, 4
        ADDI r3, r3, -1
        BNE r3, r0, word
        XORI r2, r2, -1
        SW r2, r0, 4096
        HALT""", _words(rng, 0, n)


def fibonacci(rng: random.Random, n: int = 14) -> tuple[str, dict[int, int]]:
    return f"""
        ADDI r13, r0, 16380
        ADDI r1, r0, {n}
        JAL r15, fib
        SW r2, r0, 0
        HALT
    fib: ADDI r2, r1, 0
        SLTI r3, r1, 2
        BNE r3, r0, ret
        ADDI r13, r13, -12
        SW r15, r13, 0
        SW r1, r13, 4
        ADDI r1, r1, -1
        JAL r15, fib
        SW r2, r13, 8
        LW r1, r13, 4
        ADDI r1, r1, -2
        JAL r15, fib
        LW r3, r13, 8
        ADD r2, r2, r3
        LW r15, r13, 0
        ADDI r13, r13, 12
    ret: JALR r0, r15, 0""", {}


def matmul(rng: random.Random, n: int = 10) -> tuple[str, dict[int, int]]:
    a, b, c = 0, 4 * n * n, 8 * n * n
    return f"""
        ADDI r1, r0, 0
    row: ADDI r2, r0, 0
    col: ADDI r7, r0, 0
        ADDI r3, r0, 0
        ADDI r12, r0, {4 * n}
        MUL r4, r1, r12
        SLLI r5, r2, 2
    dot: LW r8, r4, {a}
        LW r9, r5, {b}
        MUL r8, r8, r9
        ADD r7, r7, r8
        ADDI r4, r4, 4
        ADDI r5, r5, {4 * n}
        ADDI r3, r3, 1
        SLTI r10, r3, {n}
        BNE r10, r0, dot
        MUL r11, r1, r12
        SLLI r10, r2, 2
        ADD r11, r11, r10
        SW r7, r11, {c}
        ADDI r2, r2, 1
        SLTI r10, r2, {n}
        BNE r10, r0, col
        ADDI r1, r1, 1
        SLTI r10, r1, {n}
        BNE r10, r0, row
        HALT""", _signed(rng, 0, 2 * n * n)


KERNELS: dict[str, Callable[..., tuple[str, dict[int, int]]]] = {
    f.__name__: f for f in (memcpy, dot_product, bubble_sort, crc32, fibonacci, matmul)
}


def kernel(name: str, seed: int = 0, rename: dict[str, str] | None = None, **size: int) -> Program:
    """Build a named kernel with seeded data; ``rename`` maps registers (e.g. ``{'r1': 'r7'}``)."""
    source, dmem = KERNELS[name](random.Random(seed), **size)
    if rename:
        source = re.sub(r"\br\d+\b", lambda m: rename.get(m.group(0), m.group(0)), source)
    return Program(name, tuple(assemble(source)), dmem)


def programs(seeds: range = range(8)) -> list[Program]:
    """The public check set: random hazard programs, one program planning each fault, every kernel."""
    faults = [random_program(1000 + i, fault=f) for i, f in enumerate(FAULTS)]
    return [random_program(s) for s in seeds] + faults + [kernel(k) for k in KERNELS]
