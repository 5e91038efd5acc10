"""Mutants of the NoC fixtures: small edits that a check must catch.

``mutants/<name>/expect`` is one line ``<check>: <what it breaks>``; ``mutants/<name>/patch.toml`` names the
fixture and lists ``[[edit]]`` tables (file, old, new) where ``old`` occurs exactly once.

>>> m = load_mutants()["misrouted_destination"]
>>> m.fixture, m.check
('crossbar', 'functional')
"""
from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from chipgym.tasks.chip.edits import Edit, apply_edits, load_edits

HERE = Path(__file__).parent
MUTANTS = HERE / "mutants"
FIXTURES = HERE / "fixtures"


@dataclass(frozen=True)
class Mutant:
    name: str
    fixture: str
    check: str
    breaks: str
    edits: tuple[Edit, ...]

    def materialize(self, dest: Path) -> Path:
        """Write the mutated fixture to ``dest`` (a new folder) and return it."""
        shutil.copytree(FIXTURES / self.fixture, dest)
        apply_edits(dest, self.edits, f"mutant {self.name}")
        return dest


def load_mutants() -> dict[str, Mutant]:
    out = {}
    for folder in sorted(p for p in MUTANTS.iterdir() if (p / "expect").is_file()):
        check, _, breaks = (folder / "expect").read_text().strip().partition(":")
        fixture = tomllib.loads((folder / "patch.toml").read_text())["fixture"]
        edits = load_edits(folder / "patch.toml")
        out[folder.name] = Mutant(folder.name, fixture, check.strip(), breaks.strip(), edits)
    return out
