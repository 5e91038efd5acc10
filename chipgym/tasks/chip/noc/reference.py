"""The untimed reference: what every endpoint must receive from a trace, as one ordered list per source.

It knows nothing of cycles or of any network: a packet goes to the endpoint its trace entry names, and
the packets of one (source, destination) pair keep their trace order.

>>> from chipgym.tasks.chip.noc.traffic import Packet, Trace
>>> t = Trace("demo", (Packet(0, 3, 0, (0x3,)), Packet(0, 3, 5, (0x43, 0x1)), Packet(2, 3, 0, (0x13,))))
>>> expected(t)[3]
{0: [(3,), (67, 1)], 2: [(19,)]}
>>> expected(t)[0]
{}
"""
from __future__ import annotations

from chipgym.tasks.chip.noc.arch import Arch, load_arch
from chipgym.tasks.chip.noc.traffic import Trace

Received = dict[int, dict[int, list[tuple[int, ...]]]]
"""destination -> source -> the packets (their flits) in the order they must arrive"""


def expected(trace: Trace, arch: Arch | None = None) -> Received:
    arch = arch or load_arch()
    out: Received = {e: {} for e in range(arch.endpoints)}
    for p in trace.packets:
        out[p.dst].setdefault(p.src, []).append(p.flits)
    return out
