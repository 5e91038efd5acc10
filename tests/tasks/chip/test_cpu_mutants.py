"""Every mutant fails, and for the reason its ``expect`` file states."""
import pytest

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.workloads import programs
from chipgym.tasks.chip.registry import load_task

CPU = load_task("cpu")

MUTANTS = CPU.mutants


def test_enough_mutants():
    assert len(MUTANTS) >= 8


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_caught(name, tmp_path):
    mutant = MUTANTS[name]
    formal = mutant.check == "formal"
    report = check_design(mutant.materialize(tmp_path / name), workloads=programs(range(3)), formal=formal)
    assert not report.passed, f"{name} survived: {mutant.breaks}"
    if formal:
        assert "formal" in report.failed_checks(), report.summary()
    else:
        assert report.failures[0][0] == mutant.check, report.summary()
