"""Shared fixtures for the DRC task tests: one KLayout pool and a labelled slice of drc-v0."""
from __future__ import annotations

from typing import Callable

import pytest

from chipgym.tasks.drc.runner import VerdictPool
from chipgym.tasks.drc.suite import SUITE_SEED, build_suite, generate_drafts
from chipgym.tasks.drc.task import DrcTask


@pytest.fixture
def assert_gold_reproduces_labels(pool, tmp_path) -> Callable[[DrcTask], None]:
    """A check of a labelled task: every category has a passing and a failing hidden layout, and the gold
    deck, run again in real KLayout, gives every label of its hidden and public layouts."""
    def check(task: DrcTask) -> None:
        for category in task.categories:
            assert {c.labels[category] for c in task.hidden_testcases} == {0, 1}, (task.id, category)
        cases = task.hidden_testcases + task.public_examples
        paths = []
        for i, case in enumerate(cases):
            paths.append(tmp_path / f"{task.id}_{i}.gds")
            paths[-1].write_bytes(case.gds_bytes())
        for case, verdict in zip(cases, pool.run_deck(task.gold_deck, paths), strict=True):
            labels = {c: int(verdict.get(c, 0) > 0) for c in task.categories}
            assert labels == dict(case.labels), (task.id, case.name)
    return check


@pytest.fixture(scope="session")
def slice_ids() -> list[str]:
    """First, middle and last task of each group (covers single- and multi-rule tasks)."""
    drafts = generate_drafts(SUITE_SEED)
    ids = []
    for group in ("sky130", "synthetic", "syntax"):
        members = [d.id for d in drafts if d.group == group]
        ids += [members[0], members[len(members) // 2], members[-1]]
    return ids


@pytest.fixture(scope="session")
def pool():
    with VerdictPool(workers=2) as p:
        yield p


@pytest.fixture(scope="session")
def suite_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("drc-cache")


@pytest.fixture(scope="session")
def labelled_slice(pool, suite_cache, slice_ids):
    """Three labelled tasks per group, built through the on-disk cache."""
    return build_suite(seed=SUITE_SEED, run_deck=pool.run_deck, cache_dir=suite_cache, ids=slice_ids)
