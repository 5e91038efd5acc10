"""A program: an instruction-memory image and initial data-memory words.

>>> from chipgym.tasks.chip.cpu.assembler import assemble
>>> p = Program("halt", tuple(assemble("HALT")), {0: 7})
>>> len(p.imem), p.dmem[0]
(1, 7)
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Program:
    """``imem`` words load at address 0; ``dmem`` maps byte addresses to initial words (rest is 0)."""

    name: str
    imem: tuple[int, ...]
    dmem: dict[int, int] = field(default_factory=dict)
