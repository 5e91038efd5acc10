"""Held-out traffic for grading, generated from the grading seed (never committed).

Each trace draws its pattern, injection rate, payload lengths and seed from the grading seed, with more
packets per source than the public traces, so that a design cannot be tuned to the public traces' exact packets.

>>> [t.name for t in heldout_traces(seed=1234, count=2)]
['heldout-0', 'heldout-1']
>>> heldout_traces(1234) == heldout_traces(1234)
True
"""
from __future__ import annotations

import random

from chipgym.tasks.chip.noc.traffic import Trace
from chipgym.tasks.chip.noc.workloads import PATTERNS, traffic

RATES = (0.1, 0.2, 0.3, 0.5, 0.8, 1.0)
PACKETS = 20


def heldout_traces(seed: int, count: int = 6) -> list[Trace]:
    """``count`` held-out traces of the grading ``seed``, weight 1 each."""
    rng = random.Random(f"chipgym-noc-heldout:{seed}")
    out = []
    for i in range(count):
        pattern, rate = rng.choice(sorted(PATTERNS)), rng.choice(RATES)
        lo = rng.randint(0, 7)
        lengths = (lo, rng.randint(lo, 7))
        slow = tuple(sorted(rng.sample(range(8), rng.randint(0, 2))))
        out.append(traffic(pattern, rate, rng.getrandbits(32), PACKETS, lengths, slow, name=f"heldout-{i}"))
    return out
