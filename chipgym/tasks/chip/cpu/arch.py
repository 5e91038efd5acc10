"""Architectural contract loaded from ``arch.xml``: memories, latencies, faults, watchdog.

>>> arch = load_arch()
>>> arch.latency_cycles("imem", clock_period_ps=1000)
3
>>> arch.faults["MISALIGNED"]
2
"""
from __future__ import annotations

import functools
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ARCH_XML = Path(__file__).with_name("arch.xml")


@dataclass(frozen=True)
class Arch:
    registers: int
    memory_bytes: dict[str, int]
    latency_ps: dict[str, int]
    faults: dict[str, int]
    watchdog_cpi: int
    watchdog_slack: int

    def latency_cycles(self, memory: str, clock_period_ps: int) -> int:
        """Memory latency in whole cycles at a clock period, rounded up, at least 1."""
        return max(1, math.ceil(self.latency_ps[memory] / clock_period_ps))

    def watchdog(self, retired: int) -> int:
        """Cycle budget of a run whose reference retires ``retired`` instructions."""
        return self.watchdog_slack + self.watchdog_cpi * retired


@functools.cache
def load_arch(path: Path = ARCH_XML) -> Arch:
    root = ET.parse(path).getroot()
    mems = list(root.iter("memory"))
    wd = root.find("watchdog")
    return Arch(
        registers=int(root.find("state/registers").get("count")),
        memory_bytes={m.get("name"): int(m.get("bytes")) for m in mems},
        latency_ps={m.get("name"): int(m.get("latency_ps")) for m in mems},
        faults={f.get("name"): int(f.get("code")) for f in root.iter("fault")},
        watchdog_cpi=int(wd.get("cycles_per_instruction")),
        watchdog_slack=int(wd.get("slack")),
    )
