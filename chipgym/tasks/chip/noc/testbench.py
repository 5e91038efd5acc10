"""Trusted testbench: run a built NoC simulator on a trace and compare what it delivered with the reference.

>>> from chipgym.tasks.chip.noc.traffic import Packet, Trace
>>> t = Trace("demo", (Packet(0, 3, 0, (0x43, 0x1)),))
>>> divergence(t, SimResult({3: [(2, 0x43, 0), (3, 0x1, 1)]}, 3))
>>> divergence(t, SimResult({3: [(2, 0x43, 0), (3, 0x2, 1)]}, 3))
'demo: endpoint 3: packet 0 from source 0: expected 2 flits [0x43 0x1], got 2 [0x43 0x2]'
>>> divergence(t, SimResult({3: [(2, 0x43, 1)]}, 2))
'demo: endpoint 3: cycle 2: a packet whose head says 1 payload flits ends after 0 [0x43]'
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from chipgym.engines import verilator
from chipgym.tasks.chip.noc.arch import Arch, load_arch
from chipgym.tasks.chip.noc.reference import expected
from chipgym.tasks.chip.noc.traffic import Trace

HARNESS = Path(__file__).parent / "dv" / "harness.cpp"
SLOW_PERMILLE = 900
"""ejection ready of a trace's slow endpoints drops on this share of cycles in the back-pressured runs"""

Flit = tuple[int, int, int]
"""(cycle, data, last) of a delivered flit"""


@dataclass
class SimResult:
    deliveries: dict[int, list[Flit]]
    """per endpoint, every flit it accepted, in order"""
    drained: int
    """the cycle in which the last flit was accepted (-1: never)"""
    error: str | None = None
    toggles: list[int] | None = None
    """gate-level runs only: per bit of the netlist's chipgym_nets, the cycles in which it changed"""
    injected: int = 0
    delivered: int = 0
    stats: dict[str, int] = field(default_factory=dict)

    def cycles(self, endpoint: int) -> list[int]:
        return [c for c, _, _ in self.deliveries.get(endpoint, [])]


def simulate(binary: Path, trace: Trace, stall_seed: int = 0, stall_permille: int = 0, timeout: float = 120,
             arch: Arch | None = None) -> SimResult:
    """Run ``trace`` on the simulator; ``stall_permille`` > 0 adds seeded random ejection back-pressure (and the
    trace's slow endpoints accept on only 10% of cycles)."""
    arch = arch or load_arch()
    nonce = secrets.token_hex(8)  # the harness's lines carry it; the design's own output cannot
    slow = [SLOW_PERMILLE if stall_permille and e in trace.slow else 0 for e in range(arch.endpoints)]
    order = sorted(trace.packets, key=lambda p: p.src)  # stable: each source's packets keep their trace order
    lines = [
        f"{nonce} {arch.endpoints} {arch.flit_bits} {stall_seed} {stall_permille} {arch.idle_cycles} "
        f"{arch.watchdog(trace.flits)}",
        " ".join(map(str, slow)), str(len(order)),
        *(f"{p.src} {p.release} {len(p.flits)} " + " ".join(f"{f:x}" for f in p.flits) for p in order), "",
    ]
    res = verilator.run_simulator(binary, "\n".join(lines), timeout)
    out = SimResult({e: [] for e in range(arch.endpoints)}, -1)
    ended = False
    for line in res.stdout.splitlines():
        mark, _, rest = line.partition(" ")
        if mark != nonce:
            continue
        try:
            tag, *vals = rest.split()
            if tag != "E" and not all(len(v) <= 20 and v.removeprefix("-").isalnum() for v in vals):
                raise ValueError(rest)  # the harness writes numbers of at most 64 bits
            if tag == "D":
                out.deliveries[int(vals[1])].append((int(vals[0]), int(vals[2], 16), int(vals[3])))
            elif tag == "E":
                out.error = " ".join(vals)
            elif tag == "END":
                out.drained, out.delivered, out.injected = map(int, vals)
                ended = True
            elif tag == "A":
                out.toggles = [int(v) for v in vals]
        except (ValueError, IndexError, KeyError, TypeError):  # not a line of the harness's
            out.error = f"the simulator wrote a malformed line: {rest[:80]}"
            break
    if out.error is None and (not res.ok or not ended):
        out.error = f"simulator crashed (exit {res.returncode}): {res.tail(5)}"
    return out


def _flits(flits) -> str:
    return "[" + " ".join(f"0x{f:x}" for f in flits) + "]"


def received(got: SimResult, endpoint: int, arch: Arch) -> tuple[dict[int, list[tuple[int, ...]]], str | None]:
    """The packets ``endpoint`` received, by the source their head names, and the first malformed one."""
    packets: dict[int, list[tuple[int, ...]]] = {}
    current: list[int] = []
    for cycle, data, last in got.deliveries.get(endpoint, []):
        current.append(data)
        if not last:
            if len(current) > 1 + arch.max_payload_flits:
                return packets, f"a packet longer than {1 + arch.max_payload_flits} flits ends at cycle {cycle}"
            continue
        head = current[0]
        src, dst = arch.field(head, "src"), arch.field(head, "dst")
        if dst != endpoint:
            return packets, f"cycle {cycle}: a packet for endpoint {dst} from source {src} {_flits(current)}"
        if arch.field(head, "length") + 1 != len(current):
            return packets, (f"cycle {cycle}: a packet whose head says {arch.field(head, 'length')} payload flits "
                             f"ends after {len(current) - 1} {_flits(current)}")
        packets.setdefault(src, []).append(tuple(current))
        current = []
    if current:
        return packets, f"a packet's last flit never came {_flits(current)}"
    return packets, None


def divergence(trace: Trace, got: SimResult, arch: Arch | None = None) -> str | None:
    """The first way the simulation's deliveries differ from the reference's, or None."""
    arch = arch or load_arch()
    name = trace.name
    want_all = expected(trace, arch)
    got_all = {}
    for endpoint in want_all:  # a misrouted or malformed packet first: it explains what goes missing elsewhere
        got_all[endpoint], malformed = received(got, endpoint, arch)
        if malformed:
            return f"{name}: endpoint {endpoint}: {malformed}"
    for endpoint, by_source in want_all.items():
        packets = got_all[endpoint]
        for src in sorted(set(by_source) | set(packets)):
            want, have = by_source.get(src, []), packets.get(src, [])
            for i, (w, h) in enumerate(zip(want, have)):
                if w != h:
                    later = (" (out of order: it is a later one)" if h in want[i + 1:] else
                             " (a duplicate of an earlier one)" if h in want[:i] else "")
                    return (f"{name}: endpoint {endpoint}: packet {i} from source {src}: expected {len(w)} flits "
                            f"{_flits(w)}, got {len(h)} {_flits(h)}{later}")
            if len(have) > len(want):
                dup = " (a duplicate)" if have[len(want)] in want else ""
                return f"{name}: endpoint {endpoint}: {len(have) - len(want)} extra packets from source {src}{dup}"
            if len(have) < len(want) and not got.error:
                return (f"{name}: endpoint {endpoint}: received {len(have)} of {len(want)} packets from source "
                        f"{src}; packet {len(have)} {_flits(want[len(have)])} never came")
    if got.error:
        return f"{name}: {got.error} (the trace has {trace.flits})"
    return None
