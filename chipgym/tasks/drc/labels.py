"""Labelling layouts by running a gold deck, and picking public examples.

The engine is injected (:data:`~chipgym.tasks.drc.runner.RunDeck`), usually
:meth:`chipgym.tasks.drc.runner.VerdictPool.run_deck`.

>>> cases = [Testcase(f"c{i}", b"", {"a": i % 2}) for i in range(6)]
>>> sorted(c.labels["a"] for c in pick_public(cases, __import__("random").Random(0), 2))
[0, 1]
"""
from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Sequence

from chipgym.errors import LabellingError
from chipgym.tasks.drc.runner import RunDeck
from chipgym.tasks.drc.task import Testcase


def label_layouts(
    deck: str, layouts: Sequence[tuple[str, bytes]], categories: Sequence[str], run_deck: RunDeck
) -> list[Testcase]:
    """Run ``deck`` on named GDS blobs; label 1 where a category has markers."""
    with tempfile.TemporaryDirectory(prefix="chipgym-label-") as tmp:
        paths = []
        for index, (_, data) in enumerate(layouts):
            path = Path(tmp) / f"{index}.gds"  # a name may be a path (pass/x)
            path.write_bytes(data)
            paths.append(path)
        verdicts = run_deck(deck, paths)
    cases = []
    for (name, data), verdict in zip(layouts, verdicts, strict=True):
        if isinstance(verdict, Exception):
            raise LabellingError(f"gold deck failed on {name}: {verdict}")
        cases.append(Testcase(name, data, {c: int(verdict.get(c, 0) > 0) for c in categories}))
    return cases


def discriminates(cases: Sequence[Testcase], categories: Sequence[str]) -> list[str]:
    """Categories lacking a positive or a negative testcase (empty when all are covered)."""
    return [c for c in categories if {case.labels[c] for case in cases} != {0, 1}]


def pick_public(cases: Sequence[Testcase], rng: random.Random, n_public: int) -> list[Testcase]:
    """Up to ``n_public`` examples, alternating failing and passing ones (seeded order)."""
    failing = rng.sample([c for c in cases if c.failing], sum(c.failing for c in cases))
    passing = rng.sample([c for c in cases if not c.failing], sum(not c.failing for c in cases))
    order = [c for pair in zip(failing, passing) for c in pair] + failing[len(passing):] + passing[len(failing):]
    return order[:n_public]
