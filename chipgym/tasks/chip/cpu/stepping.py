"""Step a CPU design on one public program, cycle by cycle, and read its signals and retirements beside the
reference's (the ``simulate`` action of ``chipgym/RtlDesign-v0``, and ``chipgym chip sim``).

The design is built with pyverilator and stepped in a sandboxed session
(:mod:`chipgym.engines.pyverilator`) by ``dv/harness.py``, the C++ harness's memory model in Python: the same
latencies at the design's clock period, the same cycle numbers as the check, exact memories or the check's
seeded random stalls (``stall_seed``: the seed a check failure names). Programs are the public ones or assembly
text; held-out kernels never come here.

>>> from chipgym.tasks.chip.design import load_design
>>> stepper = Stepper(load_design("chipgym/tasks/chip/cpu/fixtures/multicycle"), resolve_program("memcpy"))
...                                                                     # doctest: +SKIP
>>> print(stepper.run(start=0, cycles=20, patterns=("pc", "state")).text())   # doctest: +SKIP
>>> stepper.close()                                                     # doctest: +SKIP
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Sequence

from chipgym.engines.pyverilator import Session
from chipgym.errors import AsmError, ProgramError, SimulationError
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.assembler import assemble, disassemble
from chipgym.tasks.chip.cpu.checks import STALL_PERMILLE
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.testbench import SimResult, divergence, first_mismatch
from chipgym.tasks.chip.cpu.trace import FIELDS, Retirement
from chipgym.tasks.chip.cpu.workloads import programs
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.pysim import MAX_CYCLE, MAX_SIGNALS, library
from chipgym.waveform import Signal, Waveform

BENCH = Path(__file__).parent / "dv" / "harness.py"
DEFAULT_SIGNALS = ("imem_req_valid", "imem_req_addr", "imem_resp_valid", "dmem_req_valid", "dmem_req_addr",
                   "dmem_req_we", "dmem_resp_valid", "ret_valid", "ret_pc", "halted")
MAX_SHOWN = 40  # retirements listed per window
MAX_PRINTED_SHOWN = 1000  # characters of what the design printed
MAX_REFERENCE = 200_000  # instructions the reference runs of a program given as assembly
CYCLES_PER_SECOND = 20_000  # a floor of the stepping speed, for time limits
BASE_TIMEOUT = 10.0


@cache
def public_programs() -> dict[str, Program]:
    return {p.name: p for p in programs()}


def resolve_program(text: str) -> Program:
    """The public program named ``text``, else ``text`` assembled (AsmError names the line, or says why the
    program cannot run)."""
    if text in public_programs():
        return public_programs()[text]
    if "\n" not in text and " " not in text.strip():
        raise AsmError(f"no public program {text!r}; the public programs are {', '.join(public_programs())}")
    words, limit = tuple(assemble(text)), load_arch().memory_bytes["imem"] // 4
    if len(words) > limit:
        raise AsmError(f"{len(words)} instruction words, over the instruction memory's {limit}")
    return Program("program", words)


@dataclass(frozen=True)
class Row:
    """One retirement of the design, and the reference's retirement of the same index (None past its end)."""

    index: int
    cycle: int
    got: Retirement
    expected: Retirement | None


@dataclass(frozen=True)
class Window:
    """What one ``simulate`` saw: cycles ``waveform.start`` to ``waveform.end - 1``."""

    program: str
    waveform: Waveform
    rows: tuple[Row, ...]
    retired: int
    """retirements from cycle 0 to the window's end"""
    divergence: str | None
    """the first difference from the reference so far (a retirement, or once the run ended, its end)"""
    divergence_index: int | None
    ended: str | None
    """why the run ended ("halted", "fault", "protocol"), or None while it goes on"""
    unmatched: tuple[str, ...]
    printed: str
    stepped: int
    """cycles run in this window"""

    def text(self) -> str:
        wave = self.waveform
        if self.ended and self.stepped == 0:
            return (f"The run of {self.program} has ended ({self.ended}) before cycle {wave.start}: simulate "
                    f"without continue to start again.\n== first divergence from the reference ==\n"
                    f"{self.divergence or 'none: every retirement and the end match'}")
        state = f"the run ended ({self.ended}) at cycle {wave.end - 1}" if self.ended else \
            f"the run goes on from cycle {wave.end}"
        lines = [f"Simulated {self.program}: cycles {wave.start}-{wave.end - 1}; {self.retired} retirements so "
                 f"far; {state}.", "== signals (hex, cycle:value at each change) =="]
        lines.append(wave.text())
        if self.unmatched:
            lines.append("no signal matches " + ", ".join(self.unmatched))
        lines.append("== retirements in the window: got | reference ==")
        for row in self.rows[:MAX_SHOWN]:
            mark = "   <-- first divergence" if row.index == self.divergence_index else ""
            same = "same" if row.got == row.expected else \
                _record(row.expected) if row.expected else "(none: the reference has ended)"
            lines.append(f"#{row.index} cycle {row.cycle}: {_record(row.got)} | {same}{mark}")
        if len(self.rows) > MAX_SHOWN:
            lines.append(f"... and {len(self.rows) - MAX_SHOWN} more retirements in the window")
        if not self.rows:
            lines.append("(none)")
        lines.append("== first divergence from the reference ==")
        lines.append(self.divergence or ("none: every retirement and the end match" if self.ended else
                                         "none so far"))
        if self.printed:
            lines += ["== the design printed ==", self.printed]
        return "\n".join(lines)


def _record(r: Retirement) -> str:
    text = f"pc {r.pc:#x} {disassemble(r.insn)}"
    if r.rd:
        text += f" -> r{r.rd}={r.rd_wdata:#x}"
    if r.mem_en:
        text += f" [{'st' if r.mem_we else 'ld'} {r.mem_addr:#x}={(r.mem_wdata if r.mem_we else r.mem_rdata):#x}]"
    return text


class Stepper:
    """``design`` running ``program`` in a sandboxed pyverilator session (BuildError when it does not build,
    SimulationError when the session dies, AsmError when the reference does not halt)."""

    default_signals = DEFAULT_SIGNALS

    def __init__(self, design: Design, program: Program, stall_seed: int | None = None):
        arch = load_arch()
        self.design, self.program, self.stall_seed = design, program, stall_seed
        try:
            self.reference = execute(program, arch, max_steps=MAX_REFERENCE)
        except ProgramError:
            raise AsmError(f"the reference does not halt within {MAX_REFERENCE:,} instructions") from None
        self.key = design.digest()
        self.session = Session(library(design), BENCH)
        try:
            self.signals = dict(self.session.start())
            job = {"imem_bytes": arch.memory_bytes["imem"], "dmem_bytes": arch.memory_bytes["dmem"],
                   "latency": {m: arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")},
                   "imem": list(program.imem), "dmem": sorted(program.dmem.items()),
                   "stall_seed": stall_seed or 0, "stall_permille": 0 if stall_seed is None else STALL_PERMILLE}
            self.session.request({"op": "reset", "job": job}, BASE_TIMEOUT)
        except BaseException:
            self.session.close()
            raise
        self.cycle = 0
        self.got: list[Retirement] = []
        self.cycles: list[int] = []
        self.ended: str | None = None
        self.final: SimResult | None = None
        self.mismatch: tuple[int, str] | None = None

    def run(self, start: int, cycles: int, patterns: Sequence[str]) -> Window:
        """Runs to cycle ``start`` (from where it is), then traces ``cycles`` cycles of the signals matching
        ``patterns`` (names or glob patterns, inside the top module: ``pc``, ``regs[*]``)."""
        names, unmatched = self.matching(patterns or DEFAULT_SIGNALS)
        until = min(start + cycles, MAX_CYCLE)
        first, before = len(self.got), self.cycle
        if self.ended is None:
            timeout = BASE_TIMEOUT + (until - self.cycle) / CYCLES_PER_SECOND
            reply = self.session.request({"op": "run", "until": until, "trace_from": start, "signals": names},
                                         timeout)
            changes = self._read(reply, names)
        else:
            changes = {}
        printed = self.session.take_printed()[:MAX_PRINTED_SHOWN]
        if self.mismatch is None:
            self.mismatch = first_mismatch(self.reference.retirements, self.got, self.cycles, self.program.name,
                                           begin=first)
        n, m = len(self.reference.retirements), len(self.got)
        if self.mismatch is None and self.final is None and m > n:  # the design goes on after the reference ended
            self.mismatch = n, f"{self.program.name}: retirement {n}: expected {n} retirements, got {m} so far"
        problem = self.mismatch[1] if self.mismatch else divergence(self.reference, self.final) if self.final \
            else None
        end = max(start + 1, min(until, self.cycle))
        rows = tuple(Row(i, c, g, self.reference.retirements[i] if i < len(self.reference.retirements) else None)
                     for i, (c, g) in enumerate(zip(self.cycles, self.got)) if start <= c < end)
        wave = Waveform(tuple(Signal(n, self.signals[n]) for n in names), changes, start, end,
                        self.design.clock_period_ps, self.design.top)
        name = self.program.name + ("" if self.stall_seed is None else f" [random stalls, seed {self.stall_seed}]")
        return Window(name, wave, rows, sum(c < end for c in self.cycles), problem,
                      self.mismatch[0] if self.mismatch else None, self.ended, unmatched, printed,
                      max(0, self.cycle - max(start, before)))

    def matching(self, patterns: Sequence[str]) -> tuple[list[str], tuple[str, ...]]:
        """The design's signals that ``patterns`` name (at most MAX_SIGNALS), and the patterns that name none."""
        names, unmatched = [], []
        for pattern in patterns:
            glob = re.compile(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."))  # brackets are literal
            found = [pattern] if pattern in self.signals else \
                sorted((n for n in self.signals if glob.fullmatch(n)), key=_natural)
            names += [n for n in found if n not in names]
            if not found:
                unmatched.append(pattern)
        return names[:MAX_SIGNALS], tuple(unmatched)

    def _read(self, reply: dict[str, Any], names: list[str]) -> dict[str, tuple[tuple[int, int], ...]]:
        """Takes in the worker's reply (untrusted: every field is checked); the waveform's changes."""
        try:
            cycle, events, raw = int(reply["cycle"]), list(reply["events"]), dict(reply["changes"])
            for event in events:
                tag, values = event[0], event[1:]
                if tag == "R":
                    self.cycles.append(int(values[0]))
                    self.got.append(Retirement(*(int(v) for v in values[1:1 + len(FIELDS)])))
                elif tag == "E":
                    self._end(str(values[0]), error=f"{values[0]} {values[1]}"[:500])
                elif tag == "END":
                    end, halted, fault, *counters = (int(v) for v in values)
                    self._end("halted" if halted else "fault", end, bool(halted), fault, counters)
                elif tag == "M":
                    self.final.dmem[int(values[0])] = int(values[1])
            changes = {n: tuple((int(t), int(v)) for t, v in raw.get(n, ())) for n in names}
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            self.session.stop()
            raise SimulationError("the simulation process wrote a malformed reply") from None
        self.cycle = cycle
        return changes

    def _end(self, why: str, end: int = -1, halted: bool = False, fault: int = 0,
             counters: Sequence[int] = (0, 0, 0), error: str | None = None) -> None:
        self.ended = why
        self.final = SimResult(self.got, self.cycles, end, halted, fault,
                               dict(zip(("cycles", "retired", "stalls"), counters)), {}, error)

    def close(self) -> None:
        self.session.close()


def _natural(name: str) -> tuple:
    """``regs[2]`` before ``regs[10]``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))
