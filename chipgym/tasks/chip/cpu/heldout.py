"""Held-out kernels for grading, generated from a secret seed that is never committed.

The seed comes from the ``seed`` argument or ``$CHIPGYM_GRADING_SEED`` (:mod:`chipgym.tasks.grading_seed`).
Each kernel gets a random size (10,000-16,000 retirements), random data and a random
register renaming, so a design cannot be tuned to the public kernels' exact code.

>>> [p.name for p in heldout_programs(seed=1234, count=2)]  # doctest: +ELLIPSIS
['heldout-0-...', 'heldout-1-...']
"""
from __future__ import annotations

import random

from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.workloads import KERNELS, kernel, random_program
from chipgym.tasks.grading_seed import required_grading_seed

# Size ranges per kernel that keep retirements within 10,000-16,000 instructions.
SIZES = {
    "memcpy": (1700, 2040), "dot_product": (1300, 1500), "bubble_sort": (53, 62),
    "crc32": (46, 66), "fibonacci": (14, 14), "matmul": (10, 11),
}
FREE = [f"r{i}" for i in range(1, 13)]  # r13-r15 keep their roles (stack, link) in kernels


def heldout_programs(seed: int | None = None, count: int = 8) -> list[Program]:
    """``count`` held-out programs: renamed, resized kernels and one long random program."""
    rng = random.Random(required_grading_seed(seed))
    out = []
    for i in range(count - 1):
        name = rng.choice(sorted(KERNELS))
        lo, hi = SIZES[name]
        perm = rng.sample(FREE, len(FREE))
        size = rng.randint(lo, hi)
        prog = kernel(name, seed=rng.getrandbits(32), rename=dict(zip(FREE, perm)), n=size)
        out.append(Program(f"heldout-{i}-{name}", prog.imem, prog.dmem))
    prog = random_program(rng.getrandbits(32), length=600, fault_rate=0.0)
    out.append(Program(f"heldout-{count - 1}-random", prog.imem, prog.dmem))
    return out

