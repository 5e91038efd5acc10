"""Shared fixtures for the DRC task tests: one KLayout pool and a labelled slice of drc-v0."""
from __future__ import annotations

import pytest

from chipgym.tasks.drc.runner import VerdictPool
from chipgym.tasks.drc.suite import SUITE_SEED, build_suite, generate_drafts


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
