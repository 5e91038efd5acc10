"""The registry of built-in DRC suites: each module of this package defines one :class:`Suite` as ``SUITE``.

A suite is a name, a public seed and its groups (one module of :mod:`chipgym.tasks.drc.suite` each, a
function from a seeded RNG to task drafts); a new suite is one new module here.

>>> sorted(suite_names())[:1]
['drc-v0']
>>> get_suite("drc-v0").seed
20250101
>>> get_suite("drc-v9")
Traceback (most recent call last):
...
ValueError: unknown DRC suite 'drc-v9' (known: drc-v0...)
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from chipgym.tasks.drc.suite.rule import Rule, TaskDraft

GroupDrafts = Callable[[random.Random], list[TaskDraft]]


@dataclass(frozen=True)
class Suite:
    """A built-in suite: its groups' drafts are drawn in order from one RNG seeded with ``seed``."""

    name: str
    seed: int
    """Public (hidden layouts are generated too, so it is no grading secret)."""
    groups: tuple[GroupDrafts, ...]
    test_fraction: float = 0.25
    min_hidden: int = 1
    """Fewest hidden layouts a task may have (each is labelled for every category of the task)."""
    pools: Literal["redrawn", "drawn"] = "redrawn"
    """How its public examples and training layouts are made: redrawn from the evaluation scenes (drc-v0 and
    drc-v1, kept as published) or drawn from the task's own generators independently of them (issue 39)."""
    revisions: tuple[Callable[[Rule], Rule], ...] = ()
    """Fixes to classes of gold decks (:mod:`chipgym.tasks.drc.suite.gold`), applied in order to every rule its
    groups make; drc-v0 and drc-v1 have none, so their published answers stay as they are."""
    frozen: bool = False
    """True once published: its fingerprint is pinned, so no change to a group may alter it."""
    fingerprint: str | None = None
    """A frozen suite's pinned fingerprint (of its decks, evaluation scenes, texts and KLayout version): its
    built artifact is found by it without running a generator, and a test checks the generators still give it."""

    def revise(self, rule: Rule) -> Rule:
        """``rule`` with this suite's revisions applied in order (unchanged in a suite with none)."""
        for revision in self.revisions:
            rule = revision(rule)
        return rule

    @property
    def pins_path(self) -> Path:
        """Where a frozen suite's content hashes are pinned: ``<name>.sha256`` beside the suites' modules."""
        return Path(__file__).parent / f"{self.name}.sha256"

    def pinned_content(self) -> dict[str, str] | None:
        """Each task's content hash (:func:`chipgym.tasks.drc.artifact.content_hash`) in build order, as pinned
        (``chipgym drc build NAME --pin`` writes them); None for a suite with none."""
        if not self.pins_path.is_file():
            return None
        lines = self.pins_path.read_text().splitlines()
        return {task_id: digest for digest, task_id in (line.split() for line in lines)}


@functools.cache
def _suites() -> dict[str, Suite]:
    found = {}
    for module in pkgutil.iter_modules(__path__):
        suite = importlib.import_module(f"{__name__}.{module.name}").SUITE
        found[suite.name] = suite
    return found


def suite_names() -> list[str]:
    """Names of the built-in suites, sorted."""
    return sorted(_suites())


def get_suite(name: str) -> Suite:
    """The built-in suite called ``name``; a clear error names the known ones otherwise."""
    try:
        return _suites()[name]
    except KeyError:
        known = ", ".join(suite_names())
        raise ValueError(f"unknown DRC suite {name!r} (known: {known})") from None
