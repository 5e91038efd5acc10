"""Retirement records and final architectural state, shared by the reference and the testbench.

>>> Retirement(pc=0, insn=0xFC000000).fields()["rd"]
0
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

FIELDS = ("pc", "insn", "rd", "rd_wdata", "mem_en", "mem_we", "mem_addr", "mem_wdata", "mem_rdata")


@dataclass(frozen=True)
class Retirement:
    """One retired instruction. ``rd``/``rd_wdata`` are 0 when no register is written
    (a write to r0 reports rd=0 and rd_wdata=0); memory fields are 0 when ``mem_en`` is 0;
    ``mem_rdata`` is 0 for stores and ``mem_wdata`` is 0 for loads."""

    pc: int
    insn: int
    rd: int = 0
    rd_wdata: int = 0
    mem_en: int = 0
    mem_we: int = 0
    mem_addr: int = 0
    mem_wdata: int = 0
    mem_rdata: int = 0

    def fields(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class FinalState:
    """State after a run: ``fault`` is a code from arch.xml (0 = none); ``dmem`` holds nonzero words."""

    regs: tuple[int, ...]
    dmem: dict[int, int]
    halted: bool
    fault: int
