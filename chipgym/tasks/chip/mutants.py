"""Mutants of a chip task: small edits of a fixture that a check must catch.

``<task>/mutants/<name>/expect`` is one line ``<check>: <what it breaks>``; ``<task>/mutants/<name>/patch.toml``
names the fixture (one of ``<task>/fixtures/``) and lists ``[[edit]]`` tables (file, old, new) where ``old``
occurs exactly once.

>>> from chipgym.tasks.chip.registry import load_task
>>> m = load_mutants(load_task("noc").folder)["misrouted_destination"]
>>> m.fixture, m.check
('crossbar', 'functional')
"""
from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from chipgym.tasks.chip.edits import Edit, apply_edits, load_edits


@dataclass(frozen=True)
class Mutant:
    name: str
    fixture: str
    """the name of the fixture it edits"""
    check: str
    breaks: str
    edits: tuple[Edit, ...]
    task_folder: Path

    def materialize(self, dest: Path) -> Path:
        """Write the mutated fixture to ``dest`` (a new folder) and return it."""
        shutil.copytree(self.task_folder / "fixtures" / self.fixture, dest)
        apply_edits(dest, self.edits, f"mutant {self.name}")
        return dest


def load_mutants(task_folder: Path) -> dict[str, Mutant]:
    """The mutants in ``task_folder/mutants``, by name."""
    out = {}
    for folder in sorted(p for p in (task_folder / "mutants").iterdir() if (p / "expect").is_file()):
        check, _, breaks = (folder / "expect").read_text().strip().partition(":")
        fixture = tomllib.loads((folder / "patch.toml").read_text())["fixture"]
        edits = load_edits(folder / "patch.toml")
        out[folder.name] = Mutant(folder.name, fixture, check.strip(), breaks.strip(), edits, task_folder)
    return out
