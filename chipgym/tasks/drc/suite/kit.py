"""Small scene builders shared by the drc-v1 synthetic kinds (integer nm).

>>> diagonal_offset(100, fail=True), diagonal_offset(100, fail=False)
(70, 71)
>>> [s.name for s in gap_scenes("c", rect("m1", 0, 0, 100, 1000), "m1", 100, 50, 1000)]
['c_par_lt', 'c_par_eq', 'c_corner_lt', 'c_corner_eq']
"""
from __future__ import annotations

import math
import random

from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, Shape, rect
from chipgym.tasks.drc.suite.phrasing import say

UNITS = ("um", "µm", "microns", "um")
"""Unit spellings of drc-v1 rule texts."""


def say_units(rng: random.Random, templates: tuple[str, ...], **fields: object) -> str:
    """:func:`~chipgym.tasks.drc.suite.phrasing.say` with the unit drawn from :data:`UNITS`."""
    return say(rng, templates, u=rng.choice(UNITS), **fields)


def diagonal_offset(g: int, fail: bool, below: int = 1) -> int:
    """x = y offset of two corners whose Euclidean distance is at most ``g - below`` (``fail``) or at least ``g``."""
    return math.floor((g - below) / math.sqrt(2)) if fail else math.ceil(g / math.sqrt(2))


def gap_scenes(tag: str, base: tuple[Shape, ...], layer: str, g: int, w: int, h: int,
               extra: tuple[Shape, ...] = ()) -> list[Scene]:
    """A ``w`` x ``h`` box on ``layer`` right of ``base`` (whose bbox has its upper-right at its max x/y)
    at gap g-1 / g, facing and corner to corner (only the Euclidean metric sees the corner pair); in a draw
    (:mod:`~chipgym.tasks.drc.suite.draws`) the box's size and the failing gap are drawn."""
    x1 = max(p[0] for s in base for p in s.points)
    y1 = max(p[1] for s in base for p in s.points)
    y0 = min(p[1] for s in base for p in s.points)
    f = free(tag, "gap")
    w, h, out = f.size(w), f.size(h), []
    for d, sfx in f.offsets(g)[:2]:
        out.append(Scene(f"{tag}_par_{sfx}", base + extra + rect(layer, x1 + g + d, y0, x1 + g + d + w, y0 + h)))
    for d, sfx in f.offsets(g)[:2]:
        k = diagonal_offset(g, d < 0, -d)
        out.append(Scene(f"{tag}_corner_{sfx}", base + extra + rect(layer, x1 + k, y1 + k, x1 + k + w, y1 + k + h)))
    return out


def enclosed_box(outer: str, inner: str, size: int, left: int, right: int, bottom: int, top: int,
                 cell: str = "TOP") -> tuple[Shape, ...]:
    """An ``inner`` square of side ``size`` at the origin, ``outer`` around it with the given margins."""
    return rect(outer, -left, -bottom, size + right, size + top, cell) + rect(inner, 0, 0, size, size)


def row(layer: str, n: int, size: int, gap: int, x0: int = 0, y0: int = 0) -> tuple[Shape, ...]:
    """``n`` squares of side ``size`` in a horizontal row, ``gap`` apart."""
    return tuple(s for i in range(n) for s in rect(layer, x0 + i * (size + gap), y0, x0 + i * (size + gap) + size,
                                                        y0 + size))


def pinch(layer: str, t: int, fail: bool, n: int = 600) -> tuple[Shape, ...]:
    """Two ``n`` squares overlapping at one corner: a neck narrower than ``t`` only in the Euclidean metric."""
    k = diagonal_offset(t, fail)
    return rect(layer, 0, 0, n, n) + rect(layer, n - k, n - k, 2 * n - k, 2 * n - k)
