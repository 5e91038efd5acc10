"""Traffic traces: the packets each endpoint injects, and from which cycle.

A source offers its packets in trace order, back to back: packet ``p``'s head is offered from cycle
``max(p.release, the cycle after the previous packet's last flit was accepted)``.

>>> p = Packet(src=1, dst=6, release=0, flits=(0x0031, 0xBEEF))
>>> t = Trace("demo", (p,))
>>> t.flits, t.sources()[1] == [p]
(2, True)
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Packet:
    src: int
    dst: int
    release: int
    """first cycle its source may offer the head"""
    flits: tuple[int, ...]
    """head first; the last one is the tail"""


@dataclass(frozen=True)
class Trace:
    name: str
    packets: tuple[Packet, ...]
    slow: tuple[int, ...] = ()
    """endpoints whose ejection port is slow (accepts rarely) in the back-pressured runs"""
    weight: float = 1.0
    """its weight in the score's means"""

    @property
    def flits(self) -> int:
        return sum(len(p.flits) for p in self.packets)

    def sources(self) -> dict[int, list[Packet]]:
        """Each source's packets in the order it offers them."""
        out: dict[int, list[Packet]] = {}
        for p in self.packets:
            out.setdefault(p.src, []).append(p)
        return out
