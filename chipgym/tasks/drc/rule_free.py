"""A learner that never reads a rule: how much what a task teaches (its public examples and training layouts)
tells about what it tests on (its evaluation layouts), measured without any knowledge of design rules.

It reads a layout as its *rank pattern* (every polygon's corners with each coordinate replaced by its rank among
the layout's distinct x, or y, coordinates, and its layer) and the gaps between consecutive distinct coordinates.
Trained on labelled layouts, it answers a layout's verdict per category from the nearest taught layout of the same
rank pattern (the fewest dbu of gaps apart), and from the category's commonest taught verdict where it has seen
no layout of that pattern. A redraw keeps a scene's rank pattern and most of its gaps, so on pools redrawn from the
evaluation scenes this learner passes tasks it never understood (issue 39); on pools drawn independently of them it
should do no better on the evaluation layouts than on a fresh independent draw.

Layouts are parsed here, in this process: only a built dataset's own layouts (``DrcTask.built``) are read.

>>> from chipgym.tasks.drc.suite.layouts import Scene, rect, scene_gds
>>> def case(width):
...     gds = scene_gds(Scene("w", rect("met1", 0, 0, width, 1500)), {"met1": (68, 20)})
...     return Testcase(f"w{width}", gds, {"m1.1": int(width < 140)})
>>> learner = RuleFreeLearner(("m1.1",), [case(100), case(139), case(141), case(300)])
>>> learner.predict(case(138).gds), learner.predict(case(150).gds)
({'m1.1': 1}, {'m1.1': 0})
"""
from __future__ import annotations

import functools
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Mapping, Sequence

import gdstk

from chipgym.tasks.drc.task import DrcTask, Testcase

Pattern = tuple
Gaps = tuple[int, ...]


@functools.lru_cache(maxsize=4096)  # a task's layouts, read once for every learner measured on it
def rank_pattern(gds: bytes) -> tuple[Pattern, Gaps]:
    """A layout's rank pattern and its gaps in dbu (x gaps, then y gaps)."""
    with tempfile.NamedTemporaryFile(suffix=".gds") as file:
        file.write(gds)
        file.flush()
        library = gdstk.read_gds(file.name)
    dbu = library.precision / library.unit  # in the library's user unit
    polygons = [(p.layer, p.datatype, [(round(x / dbu), round(y / dbu)) for x, y in p.points])
                for top in library.top_level() for p in top.get_polygons(include_paths=True)]
    xs = sorted({x for *_, points in polygons for x, _ in points})
    ys = sorted({y for *_, points in polygons for _, y in points})
    x_rank, y_rank = {x: i for i, x in enumerate(xs)}, {y: i for i, y in enumerate(ys)}
    pattern = tuple(sorted((layer, datatype, tuple((x_rank[x], y_rank[y]) for x, y in points))
                           for layer, datatype, points in polygons))
    gaps = tuple(b - a for a, b in zip(xs, xs[1:])) + tuple(b - a for a, b in zip(ys, ys[1:]))
    return pattern, gaps


class RuleFreeLearner:
    """Nearest taught layout of the same rank pattern, per category; the commonest taught verdict otherwise."""

    def __init__(self, categories: Sequence[str], taught: Sequence[Testcase]):
        self.categories = tuple(categories)
        self.by_pattern: dict[Pattern, list[tuple[Gaps, Mapping[str, int]]]] = defaultdict(list)
        for case in taught:
            pattern, gaps = rank_pattern(case.gds_bytes())
            self.by_pattern[pattern].append((gaps, case.labels))
        self.commonest = {c: Counter(case.labels[c] for case in taught).most_common(1)[0][0] if taught else 0
                          for c in self.categories}

    def predict(self, gds: bytes) -> dict[str, int]:
        """Its verdict per category on a layout."""
        return self.answer(*rank_pattern(gds))

    def answer(self, pattern: Pattern, gaps: Gaps) -> dict[str, int]:
        if not (seen := self.by_pattern.get(pattern)):
            return dict(self.commonest)
        _, labels = min(seen, key=lambda entry: sum(abs(a - b) for a, b in zip(entry[0], gaps)))
        return {c: int(labels[c]) for c in self.categories}


@dataclass(frozen=True)
class Measure:
    """The learner on one task's evaluation layouts: whether it passes (every layout right), how many layouts it
    gets right, and how many have a rank pattern it was taught."""

    task: str
    group: str
    passed: bool
    right: int
    known: int
    layouts: int


def measure(task: DrcTask, taught: Sequence[Testcase], tested: Sequence[Testcase] | None = None) -> Measure:
    """The learner taught ``taught`` (by default the task's public examples and training layouts), tested on
    ``tested`` (by default its evaluation layouts)."""
    if not task.built:
        raise ValueError(f"{task.id}: only a built dataset's own layouts are parsed in this process")
    tested = task.hidden_testcases if tested is None else tested
    learner = RuleFreeLearner(task.categories, taught)
    read = [rank_pattern(case.gds_bytes()) for case in tested]
    right = [learner.answer(*layout) == {c: int(case.labels[c]) for c in task.categories}
             for layout, case in zip(read, tested)]
    known = sum(pattern in learner.by_pattern for pattern, _ in read)
    return Measure(task.id, task.group, all(right), sum(right), known, len(tested))
