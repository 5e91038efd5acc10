"""The formal gate proves the protocol properties of a fixture (bounded, ABC bmc3)."""
from pathlib import Path

from chipgym.tasks.chip.cpu.checks import DV, FORMAL_DEPTH
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.formal import formal_check

FIXTURES = Path(__file__).resolve().parents[3] / "chipgym" / "tasks" / "chip" / "cpu" / "fixtures"


def test_multicycle_fixture_passes_formal():
    assert formal_check(load_design(FIXTURES / "multicycle"), DV / "formal.sv", FORMAL_DEPTH) == []
