"""drc-v1 as a whole: Rule2DRC's size or more, its group proportions, the DSL census, the hidden-layout floor."""
from __future__ import annotations

from collections import Counter

import pytest

from chipgym.scoring.drc import KLAYOUT_WORD
from chipgym.tasks.drc.dsl import dsl_methods, dsl_methods_used
from chipgym.tasks.drc.suite import generate_drafts
from chipgym.tasks.drc.suites import get_suite

RULE2DRC = {"sky130": 310, "synthetic": 490, "syntax": 200}
"""Rule2DRC's tasks per group: SkyWater-derived, synthetic multi-constraint, syntax coverage."""


@pytest.fixture(scope="module")
def drafts():
    return generate_drafts(name="drc-v1")


def test_at_least_rule2drc_in_every_group(drafts):
    counts = Counter(d.group for d in drafts)
    assert len(drafts) >= 1000
    assert all(counts[group] >= n for group, n in RULE2DRC.items()), counts
    assert [d.group for d in drafts] == sorted((d.group for d in drafts), key=list(RULE2DRC).index)


def test_hidden_layouts_reach_14000_and_10_per_task(drafts):
    """10 hidden layouts per task, each labelled for every category: a blind guess passes 1 time in 1,024."""
    assert get_suite("drc-v1").min_hidden == 10
    assert min(len(d.scenes()) for d in drafts) >= 10
    assert sum(len(d.scenes()) for d in drafts) >= 14000


def test_census_counts_150_methods_of_the_0_28_5_dsl(drafts):
    used = set().union(*(dsl_methods_used(d.deck()) for d in drafts))
    assert len(used) >= 150 and used <= dsl_methods()


def test_categories_are_words_the_published_evaluator_matches(drafts):
    """KLayout quotes a category that is not a word in its report, and the published evaluator never matches it."""
    assert all(KLAYOUT_WORD.fullmatch(category) for d in drafts for category in d.categories())


def test_ids_are_unique_and_splits_drawn(drafts):
    assert len({d.id for d in drafts}) == len(drafts)
    splits = Counter(d.split for d in drafts)
    assert 0.2 < splits["test"] / len(drafts) < 0.3
