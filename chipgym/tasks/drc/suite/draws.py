"""Independent draws of the scene families: layouts a task teaches with, drawn from its own generators anew.

A scene family (:mod:`~chipgym.tasks.drc.suite.probes`) is a function of a rule's threshold and of dimensions it
leaves free (a bar's length, a neighbour's width, how far from the threshold its failing and passing features
sit). The evaluation scenes take every free dimension at its stated value and probe each threshold at 1 dbu either
side. Inside :func:`drawing`, the same generators draw each free dimension anew (0.6 to 1.6 times its value, on
its grid) and each distance from the threshold (1 dbu up to a tenth of it), from a random generator of the family
call's own, seeded by the draw's seed, the family and the call's tag. So a task's draw depends on no other task
and on no evaluation scene: nothing is computed from one (no redraw, no respacing, no copied part). A draw with
``stated_offsets`` keeps the evaluation scenes' 1 dbu offsets and draws the free dimensions only: layouts as hard
to judge as the evaluation scenes, and as many (a control for a learner, or evaluation scenes of one's own).

>>> from chipgym.tasks.drc.suite.layouts import rect
>>> free("r0", "bar").size(1500), free("r0", "bar").offsets(140)
(1500, ((-1, 'lt'), (0, 'eq'), (1, 'gt')))
>>> with drawing("train0"):
...     bar = free("r0", "bar")
...     print(bar.size(1500) != 1500, [name for _, name in bar.offsets(140)])
True ['lt', 'eq', 'gt']
>>> with drawing("fresh", stated_offsets=True):
...     free("r0", "bar").offsets(140) == OFFSETS
True
"""
from __future__ import annotations

import contextlib
import random
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

DRAW_FORMAT = 5
"""Bump when a draw changes (part of the name of a dataset artifact whose pools are drawn)."""
OFFSETS = ((-1, "lt"), (0, "eq"), (1, "gt"))
"""The evaluation scenes' offsets (dbu) from every threshold, with their scene-name suffix."""
SCALE = (0.6, 1.6)  # a drawn free dimension, as a multiple of its stated value
REACH = 10  # a drawn offset is at most a tenth of the threshold (and at least 3 dbu of reach)

_DRAW: ContextVar[tuple[str, bool] | None] = ContextVar("chipgym_drc_draw", default=None)


@contextlib.contextmanager
def drawing(seed: str, stated_offsets: bool = False) -> Iterator[None]:
    """Scene families called inside draw their free dimensions under ``seed``, and their offsets from each
    threshold unless ``stated_offsets`` (see the module doc)."""
    token = _DRAW.set((seed, stated_offsets))
    try:
        yield
    finally:
        _DRAW.reset(token)


@dataclass(frozen=True)
class Free:
    """The free dimensions of one family call: stated values outside a draw, drawn ones inside."""

    rng: random.Random | None
    stated_offsets: bool = False

    def size(self, value: int, grid: int = 5) -> int:
        """A free length (dbu): ``value``, or drawn on ``grid`` around it."""
        if self.rng is None:
            return value
        return max(grid, round(value * self.rng.uniform(*SCALE) / grid) * grid)

    def pick(self, stated: int, drawn: tuple[int, ...]) -> int:
        """A free choice: ``stated`` outside a draw, one of ``drawn`` inside (a scale, a count)."""
        return stated if self.rng is None else self.rng.choice(drawn)

    def offsets(self, threshold: int) -> tuple[tuple[int, str], ...]:
        """The failing, equal and passing offsets from ``threshold`` (dbu), named ``lt``, ``eq``, ``gt``."""
        if self.rng is None or self.stated_offsets:
            return OFFSETS
        reach = max(3, threshold // REACH)
        below = self.rng.randint(1, max(1, min(reach, threshold - 1)))
        return (-below, "lt"), (0, "eq"), (self.rng.randint(1, reach), "gt")


def free(tag: str, family: str) -> Free:
    """The free dimensions of the family ``family`` called for ``tag`` (its scenes' name prefix)."""
    draw = _DRAW.get()
    if draw is None:
        return Free(None)
    seed, stated_offsets = draw
    return Free(random.Random(f"{seed}/{family}/{tag}"), stated_offsets)
