"""Trusted testbench: run a built simulator on a program and compare it with the reference.

>>> from chipgym.tasks.chip.cpu.workloads import kernel
>>> from chipgym.tasks.chip.cpu.reference import execute
>>> exp = execute(kernel("memcpy", n=3))
>>> n = len(exp.retirements)
>>> got = SimResult(exp.retirements, list(range(n)), n, True, 0, {"cycles": n, "retired": n, "stalls": 0},
...                 exp.final.dmem)
>>> divergence(exp, got) is None
True
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from chipgym.engines import verilator
from chipgym.tasks.chip.cpu.arch import Arch
from chipgym.tasks.chip.cpu.assembler import disassemble
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import Run
from chipgym.tasks.chip.cpu.trace import FIELDS, Retirement

HARNESS = Path(__file__).parent / "dv" / "harness.cpp"


@dataclass
class SimResult:
    retirements: list[Retirement]
    cycles: list[int]
    """cycle of each retirement"""
    end_cycle: int
    halted: bool
    fault: int
    counters: dict[str, int]
    dmem: dict[int, int]
    error: str | None = None
    toggles: list[int] | None = None
    """gate-level runs only: per bit of the netlist's chipgym_nets, the cycles in which it changed"""


def simulate(binary: Path, program: Program, arch: Arch, latency: dict[str, int], watchdog: int,
             stall_seed: int = 0, stall_permille: int = 0, timeout: float = 120) -> SimResult:
    """Run ``program`` on the simulator; ``stall_permille`` > 0 adds seeded random memory stalls."""
    dmem = {a: v for a, v in program.dmem.items() if v}
    nonce = secrets.token_hex(8)  # the harness's lines carry it; the design's own output cannot
    stdin = "\n".join([
        f"{nonce} {arch.memory_bytes['imem']} {arch.memory_bytes['dmem']} {latency['imem']} {latency['dmem']} "
        f"{stall_seed} {stall_permille} {watchdog}",
        str(len(program.imem)), " ".join(f"{w:x}" for w in program.imem),
        str(len(dmem)), " ".join(f"{a:x} {v:x}" for a, v in dmem.items()), "",
    ])
    res = verilator.run_simulator(binary, stdin, timeout)
    out = SimResult([], [], -1, False, 0, {}, {})
    for line in res.stdout.splitlines():
        mark, _, rest = line.partition(" ")
        if mark != nonce:
            continue
        try:
            tag, *vals = rest.split()
            if tag != "E" and not all(len(v) <= 20 and v.removeprefix("-").isalnum() for v in vals):
                raise ValueError(rest)  # the harness writes numbers of at most 64 bits
            if tag == "R":
                out.cycles.append(int(vals[0]))
                out.retirements.append(Retirement(*(int(v, 16) for v in vals[1:])))
            elif tag == "E":
                out.error = " ".join(vals)
            elif tag == "END":
                end, halted, fault, c, r, s = map(int, vals)
                out.end_cycle, out.halted, out.fault = end, bool(halted), fault
                out.counters = {"cycles": c, "retired": r, "stalls": s}
            elif tag == "A":
                out.toggles = [int(v) for v in vals]
            elif tag == "M":
                out.dmem[int(vals[0], 16)] = int(vals[1], 16)
        except (ValueError, IndexError, KeyError, TypeError):  # not a line of the harness's
            out.error = f"the simulator wrote a malformed line: {rest[:80]}"
            break
    if out.error is None and (not res.ok or out.end_cycle < 0):
        out.error = f"simulator crashed (exit {res.returncode}): {res.tail(5)}"
    return out


def _hex(v: int) -> str:
    return f"0x{v:x}"


def first_mismatch(expected: Sequence[Retirement], got: Sequence[Retirement], cycles: Sequence[int],
                   name: str, begin: int = 0) -> tuple[int, str] | None:
    """The first retirement from index ``begin`` on where ``got`` differs from ``expected`` (compared as far as
    both go), with what differs: (index, message)."""
    for i in range(begin, min(len(expected), len(got))):
        e, g = expected[i], got[i]
        for f in FIELDS:
            ev, gv = getattr(e, f), getattr(g, f)
            if ev != gv:
                where = f"{name}: retirement {i} (pc {_hex(e.pc)}: {disassemble(e.insn)}, cycle {cycles[i]})"
                return i, f"{where}: field {f} expected {_hex(ev)} got {_hex(gv)}"
    return None


def divergence(expected: Run, got: SimResult) -> str | None:
    """The first difference between the reference run and the simulation, or None."""
    name = expected.program.name
    if (mismatch := first_mismatch(expected.retirements, got.retirements, got.cycles, name)):
        return mismatch[1]
    n, m = len(expected.retirements), len(got.retirements)
    if got.error:
        return f"{name}: {got.error} (after {m} of {n} retirements)"
    if n != m:
        return f"{name}: retirement {min(n, m)}: expected {n} retirements, got {m}"
    fin = expected.final
    if (fin.halted, fin.fault) != (got.halted, got.fault):
        return (f"{name}: final state: expected halted={int(fin.halted)} fault={fin.fault}, "
                f"got halted={int(got.halted)} fault={got.fault}")
    for addr in sorted(set(fin.dmem) | set(got.dmem)):
        if fin.dmem.get(addr, 0) != got.dmem.get(addr, 0):
            return (f"{name}: final dmem[{_hex(addr)}] expected {_hex(fin.dmem.get(addr, 0))} "
                    f"got {_hex(got.dmem.get(addr, 0))}")
    counters = {"cycles": got.end_cycle, "retired": n, "stalls": got.end_cycle - n}
    for k, v in counters.items():
        if got.counters[k] != v:
            return f"{name}: counter {k} expected {v} (from the trace) got {got.counters[k]}"
    return None
