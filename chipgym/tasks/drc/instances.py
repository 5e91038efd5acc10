"""Fresh hidden layouts for every submit of the training regime, so that remembering layouts cannot pay.

Each fresh layout is one of the task's hidden layouts under one of the eight rotations and mirrorings, at a
random offset, with a randomly turned copy of a passing hidden layout placed far beside it. The layouts are
new bytes and new coordinates every time; their labels come from running the gold deck on them
(:func:`label_fresh`), never from the labels of the layouts they were made from.

>>> import numpy as np
>>> from chipgym.tasks.drc.task import Testcase
>>> from chipgym.tasks.drc.layout_text import shapes_to_gds
>>> bar = Testcase("bar", shapes_to_gds([{"layer": [1, 0], "box": [0, 0, 0.1, 2]}]), {"w": 1})
>>> wide = Testcase("wide", shapes_to_gds([{"layer": [1, 0], "box": [0, 0, 1, 2]}]), {"w": 0})
>>> layouts = fresh_layouts([bar, wide], np.random.default_rng(0), count=4)
>>> len(layouts), len(set(layouts)), bar.gds in layouts
(4, 4, False)
"""

from __future__ import annotations

from typing import Sequence

import klayout.db as kdb
import numpy as np

from chipgym.engines.klayout import DrcResult
from chipgym.tasks.drc.task import Testcase

MIN_FRESH = 12  # layouts per submit at least: a coin-flip deck passes one task in 4096 or fewer
MAX_OFFSET = 50_000  # dbu by which a layout is moved at most
GAP = 20_000  # dbu between a layout and the passing one placed beside it


def fresh_layouts(cases: Sequence[Testcase], rng: np.random.Generator, count: int) -> list[bytes]:
    """``count`` new layouts made from ``cases`` (each case used in turn, in a random order)."""
    sources = [_read(case.gds_bytes()) for case in cases]
    passing = [source for source, case in zip(sources, cases) if not case.failing]
    order = [int(i) for i in rng.permutation(len(cases))]
    layouts = []
    for index in range(count):
        main = sources[order[index % len(cases)]]
        parts = [(main, _trans(rng, int(rng.integers(-MAX_OFFSET, MAX_OFFSET)),
                               int(rng.integers(-MAX_OFFSET, MAX_OFFSET))))]
        if passing:
            beside = passing[int(rng.integers(len(passing)))]
            parts.append((beside, _beside(rng, main, parts[0][1], beside)))
        layouts.append(_compose(parts))
    return layouts


def label_fresh(layouts: Sequence[bytes], gold: Sequence[DrcResult],
                categories: Sequence[str]) -> list[Testcase] | None:
    """Testcases labelled by the gold deck's results, or None when the gold deck failed on one of them or
    some category has no passing or no failing layout (then the caller makes another set)."""
    if not all(result.ok for result in gold):
        return None
    cases = [
        Testcase(f"fresh{i}", layout, {c: int(result.counts.get(c, 0) > 0) for c in categories})
        for i, (layout, result) in enumerate(zip(layouts, gold, strict=True))
    ]
    if any({case.labels[c] for case in cases} != {0, 1} for c in categories):
        return None
    return cases


def _read(gds: bytes) -> kdb.Layout:
    layout = kdb.Layout()
    layout.read_bytes(gds)
    return layout


def _trans(rng: np.random.Generator, dx: int, dy: int) -> kdb.Trans:
    return kdb.Trans(int(rng.integers(4)), bool(rng.integers(2)), dx, dy)


def _beside(rng: np.random.Generator, main: kdb.Layout, main_trans: kdb.Trans, beside: kdb.Layout) -> kdb.Trans:
    """A random orientation for ``beside`` that puts it GAP or more to the right of ``main``."""
    placed = _bbox(main).transformed(main_trans)
    turn = _trans(rng, 0, 0)
    box = _bbox(beside).transformed(turn)
    dx = placed.right + GAP + int(rng.integers(GAP)) - box.left
    dy = placed.bottom + int(rng.integers(-GAP, GAP)) - box.bottom
    return kdb.Trans(dx, dy) * turn


def _bbox(layout: kdb.Layout) -> kdb.Box:
    return layout.top_cell().bbox()


def _compose(parts: list[tuple[kdb.Layout, kdb.Trans]]) -> bytes:
    out = kdb.Layout()
    out.dbu = parts[0][0].dbu
    top = out.create_cell("TOP")
    for index, (source, trans) in enumerate(parts):
        cell = out.create_cell(f"PART{index}")
        cell.copy_tree(source.top_cell())
        top.insert(kdb.CellInstArray(cell.cell_index(), trans))
    options = kdb.SaveLayoutOptions()
    options.format = "GDS2"
    return out.write_bytes(options)
