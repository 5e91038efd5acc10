"""The cpu task's mutants (``mutants/<name>/``, see :mod:`chipgym.tasks.chip.mutants`).

>>> m = load_mutants()["wrong_add"]
>>> m.fixture, m.check
('pipelined', 'functional')
"""
from __future__ import annotations

from pathlib import Path

from chipgym.tasks.chip import mutants

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"


def load_mutants() -> dict[str, mutants.Mutant]:
    return mutants.load_mutants(HERE)
