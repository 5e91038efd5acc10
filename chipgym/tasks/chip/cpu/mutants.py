"""Mutants: small edits of a fixture that a check must catch.

``mutants/<name>/expect`` is one line ``<check>: <what it breaks>``; ``mutants/<name>/patch.toml``
names the fixture and lists ``[[edit]]`` tables (file, old, new) where ``old`` occurs exactly once.

>>> m = load_mutants()["wrong_add"]
>>> m.fixture, m.check
('pipelined', 'functional')
"""
from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
MUTANTS = HERE / "mutants"
FIXTURES = HERE / "fixtures"


@dataclass(frozen=True)
class Mutant:
    name: str
    fixture: str
    check: str
    breaks: str
    edits: tuple[tuple[str, str, str], ...]

    def materialize(self, dest: Path) -> Path:
        """Write the mutated fixture to ``dest`` (a new folder) and return it."""
        shutil.copytree(FIXTURES / self.fixture, dest)
        for file, old, new in self.edits:
            path = dest / file
            text = path.read_text()
            if text.count(old) != 1:
                raise ValueError(f"mutant {self.name}: {old!r} occurs {text.count(old)} times in {file}")
            path.write_text(text.replace(old, new))
        return dest


def load_mutants() -> dict[str, Mutant]:
    out = {}
    for folder in sorted(p for p in MUTANTS.iterdir() if (p / "expect").is_file()):
        check, _, breaks = (folder / "expect").read_text().strip().partition(":")
        patch = tomllib.loads((folder / "patch.toml").read_text())
        edits = tuple((e["file"], e["old"], e["new"]) for e in patch["edit"])
        out[folder.name] = Mutant(folder.name, patch["fixture"], check.strip(), breaks.strip(), edits)
    return out
