"""Both NoC fixtures pass every check, public and held-out, and the formal gate."""
import random

import pytest

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.registry import load_task

TASK = load_task("noc")
TEST_SEED = random.Random().randrange(1 << 30)  # any seed: never a grading seed


@pytest.mark.parametrize("fixture", sorted(TASK.fixtures))
def test_fixture_passes_public_and_heldout_traces(fixture):
    report = check_design(TASK.fixtures[fixture], task="noc", formal=False, grading_seed=TEST_SEED)
    assert report.passed, report.summary()
    public = TASK.public_workloads()
    assert set(public) < set(report.stats) and any(name.startswith("heldout-") for name in report.stats)
    assert all(report.stats[name]["cycles"] > 0 for name in public)


@pytest.mark.parametrize("fixture", sorted(TASK.fixtures))
def test_fixture_passes_formal(fixture):
    report = check_design(TASK.fixtures[fixture], task="noc", workloads=[], formal=True)
    assert report.passed, report.summary()
    assert "formal" in report.timings


def test_the_topologies_differ_in_timing():
    """Same traffic, other cycles: the timing is the design's own, the deliveries the reference's."""
    reports = {f: check_design(TASK.fixtures[f], task="noc", formal=False) for f in TASK.fixtures}
    cycles = {f: [r.stats[n]["cycles"] for n in TASK.public_workloads()] for f, r in reports.items()}
    assert cycles["crossbar"] != cycles["mesh"]
