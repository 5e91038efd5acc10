"""The NoC's architectural contract, loaded from ``arch.xml``: endpoints, flit width, head-flit fields, watchdog.

>>> arch = load_arch()
>>> arch.endpoints, arch.flit_bits, arch.max_payload_flits
(8, 16, 7)
>>> head = arch.head(dst=5, src=2, length=3, tag=0x41)
>>> arch.field(head, "dst"), arch.field(head, "src"), arch.field(head, "length"), arch.field(head, "tag")
(5, 2, 3, 65)
"""
from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ARCH_XML = Path(__file__).with_name("arch.xml")


@dataclass(frozen=True)
class Arch:
    endpoints: int
    flit_bits: int
    max_payload_flits: int
    fields: dict[str, tuple[int, int]]
    """head-flit field name -> (lsb, bits)"""
    idle_cycles: int
    cycles_per_flit: int
    slack: int

    def field(self, head: int, name: str) -> int:
        lsb, bits = self.fields[name]
        return (head >> lsb) & ((1 << bits) - 1)

    def head(self, **values: int) -> int:
        """The head flit with the named fields set (the others zero)."""
        flit = 0
        for name, value in values.items():
            lsb, bits = self.fields[name]
            if not 0 <= value < 1 << bits:
                raise ValueError(f"head field {name}={value} does not fit in {bits} bits")
            flit |= value << lsb
        return flit

    def watchdog(self, flits: int) -> int:
        """Cycle budget of a run that injects ``flits`` flits."""
        return self.slack + self.cycles_per_flit * flits


@functools.cache
def load_arch(path: Path = ARCH_XML) -> Arch:
    root = ET.parse(path).getroot()
    packet, wd = root.find("packet"), root.find("watchdog")
    return Arch(
        endpoints=int(root.get("endpoints")),
        flit_bits=int(root.get("flit_bits")),
        max_payload_flits=int(packet.get("max_payload_flits")),
        fields={f.get("name"): (int(f.get("lsb")), int(f.get("bits"))) for f in packet.iter("field")},
        idle_cycles=int(wd.get("idle_cycles")),
        cycles_per_flit=int(wd.get("cycles_per_flit")),
        slack=int(wd.get("slack")),
    )
