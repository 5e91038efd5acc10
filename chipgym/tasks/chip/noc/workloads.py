"""Public traffic: seeded synthetic patterns at several injection rates, biased toward the hard cases.

Each source injects ``packets`` packets whose releases follow a Bernoulli process at ``rate`` flits per
cycle (a bursty source alternates long on and off periods); destinations follow the pattern. The hard
cases: every source to one endpoint at full rate, head-of-line blocking (a hotspot behind which packets
for idle endpoints wait), slow ejection ports (in the back-pressured runs), and packets of only minimum
or only maximum length.

>>> [t.name for t in public_traces()][:3]
['uniform-0.1', 'uniform-0.3', 'uniform-0.6']
>>> t = traffic("transpose", 0.3, seed=1)
>>> len(t.packets), all(p.dst == transpose(p.src, 8) for p in t.packets)
(96, True)
>>> traffic("uniform", 0.3, seed=1) == traffic("uniform", 0.3, seed=1)
True
"""
from __future__ import annotations

import random
from typing import Callable

from chipgym.tasks.chip.noc.arch import Arch, load_arch
from chipgym.tasks.chip.noc.traffic import Packet, Trace

PACKETS_PER_SOURCE = 12


def transpose(src: int, n: int) -> int:
    """Rotate the endpoint index's bits by half their width (a matrix transpose for square ``n``)."""
    bits = max(1, (n - 1).bit_length())
    half = (bits + 1) // 2
    return ((src << half) | (src >> (bits - half))) & (n - 1)


Pattern = Callable[[int, int, random.Random], int]
PATTERNS: dict[str, Pattern] = {
    "uniform": lambda s, n, r: r.randrange(n),
    "transpose": lambda s, n, r: transpose(s, n),
    "complement": lambda s, n, r: ~s & (n - 1),
    "hotspot": lambda s, n, r: 0 if r.random() < 0.5 else r.randrange(n),
    "neighbour": lambda s, n, r: (s + r.choice((1, -1))) % n,
    "bursty": lambda s, n, r: r.randrange(n),
    "all-to-one": lambda s, n, r: n // 2 - 1,
    "hol-blocking": lambda s, n, r: 0 if r.random() < 0.7 else (s + 1 + r.randrange(n - 1)) % n,
}


def traffic(pattern: str, rate: float, seed: int, packets: int = PACKETS_PER_SOURCE,
            lengths: tuple[int, int] | None = None, slow: tuple[int, ...] = (), weight: float = 1.0,
            name: str | None = None, arch: Arch | None = None) -> Trace:
    """``packets`` packets per source under ``pattern`` at ``rate`` offered flits per cycle per source, with
    payload lengths drawn from ``lengths`` (inclusive; default every legal length)."""
    arch = arch or load_arch()
    rng = random.Random(f"{pattern}:{rate}:{seed}")
    lo, hi = lengths or (0, arch.max_payload_flits)
    tag_bits = arch.fields["tag"][1]
    out = []
    for src in range(arch.endpoints):
        t = rng.randrange(4)
        on = True
        for _ in range(packets):
            length = rng.randint(lo, hi)
            dst = PATTERNS[pattern](src, arch.endpoints, rng)
            head = arch.head(dst=dst, src=src, length=length, tag=rng.getrandbits(tag_bits))
            payload = tuple(rng.getrandbits(arch.flit_bits) for _ in range(length))
            out.append(Packet(src, dst, t, (head, *payload)))
            gap = _gap(rng, rate, 1 + length)
            if pattern == "bursty":  # on periods at full rate, off periods of tens of cycles
                on = rng.random() < 0.8 if on else rng.random() < 0.3
                gap = 1 + length if on else 1 + length + rng.randint(20, 80)
            t += gap
    return Trace(name or f"{pattern}-{rate}", tuple(out), slow, weight)


def _gap(rng: random.Random, rate: float, flits: int) -> int:
    """Cycles from one release to the next: each flit's cycle plus idle cycles, geometric with mean
    (1 - rate) / rate, so that a source offers ``rate`` flits per cycle on average."""
    gap = flits
    for _ in range(flits):
        while rate < 1.0 and rng.random() > rate:
            gap += 1
    return gap


def public_traces(seed: int = 1) -> list[Trace]:
    """The traces of the public check, in order."""
    return [
        *(traffic("uniform", r, seed) for r in (0.1, 0.3, 0.6)),
        traffic("transpose", 0.3, seed), traffic("transpose", 0.8, seed),
        traffic("complement", 0.3, seed), traffic("complement", 0.8, seed),
        traffic("hotspot", 0.3, seed), traffic("neighbour", 0.5, seed), traffic("bursty", 0.5, seed),
        traffic("all-to-one", 1.0, seed),
        traffic("hol-blocking", 1.0, seed),
        traffic("uniform", 0.5, seed, slow=(2, 5), name="slow-ejection"),
        traffic("uniform", 1.0, seed, lengths=(0, 0), packets=32, name="min-length"),
        traffic("uniform", 1.0, seed, lengths=(7, 7), name="max-length"),
    ]


SCORED = {"uniform-0.3": 1.0, "transpose-0.3": 1.0, "complement-0.3": 1.0, "hotspot-0.3": 1.0,
          "neighbour-0.5": 1.0, "bursty-0.5": 1.0, "all-to-one-1.0": 0.5, "min-length": 0.5, "max-length": 0.5}
"""the public traces that are scored, with their weights"""


def scored_traces() -> list[Trace]:
    """The public scored traces, weighted."""
    return [Trace(t.name, t.packets, t.slow, SCORED[t.name]) for t in public_traces() if t.name in SCORED]
