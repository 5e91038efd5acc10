"""Every NoC mutant fails, and for the reason its ``expect`` file states."""
import pytest

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.noc.workloads import public_traces
from chipgym.tasks.chip.registry import load_task

NOC = load_task("noc")

MUTANTS = NOC.mutants
SHORT = ("uniform-0.6", "transpose-0.3", "all-to-one-1.0", "min-length")
"""a few traces that every mutant fails on (the whole public set is the benchmark's)"""


def test_enough_mutants():
    assert len(MUTANTS) >= 8
    assert {m.fixture for m in MUTANTS.values()} == {"crossbar", "mesh"}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_caught(name, tmp_path):
    mutant = MUTANTS[name]
    formal = mutant.check == "formal"
    traces = [t for t in public_traces() if t.name in SHORT]
    report = check_design(mutant.materialize(tmp_path / name), task="noc", workloads=traces, formal=formal)
    assert not report.passed, f"{name} survived: {mutant.breaks}"
    if formal:
        assert "formal" in report.failed_checks(), report.summary()
    else:
        assert report.failures[0][0] == mutant.check, report.summary()
