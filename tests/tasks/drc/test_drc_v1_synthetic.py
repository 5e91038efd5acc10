"""The synthetic group of drc-v1: size, scenes, DSL census, determinism, labels reproduced by real KLayout."""
from __future__ import annotations

import functools
import random
import statistics
from collections import Counter

import pytest

from chipgym.tasks.drc.dsl import dsl_methods, dsl_methods_used, unsupported_methods
from chipgym.tasks.drc.suite import build_suite, fingerprint, generate_drafts
from chipgym.tasks.drc.suite.synthetic_v1 import KINDS
from chipgym.tasks.drc.suite.tech import draw_tech


@functools.cache
def synthetic() -> tuple:
    return tuple(d for d in generate_drafts(name="drc-v1") if d.group == "synthetic")


def test_group_size_rules_and_scenes():
    drafts = synthetic()
    assert len(drafts) >= 500 and all(d.id == f"synthetic-{i:04d}" for i, d in enumerate(drafts))
    assert {len(d.rules) for d in drafts} == {2, 3, 4, 5}
    scenes = [len(d.scenes()) for d in drafts]
    assert min(scenes) >= 10 and sum(scenes) >= 10_000 and statistics.mean(scenes) < 40
    assert all(len({s.name for s in d.scenes()}) == len(d.scenes()) for d in drafts)


def test_every_kind_is_used_and_texts_vary():
    drafts = synthetic()
    kinds = Counter(k for d in drafts for k in d.metadata["kinds"])
    assert set(kinds) == set(KINDS) and len(KINDS) >= 40 and min(kinds.values()) >= 10
    assert set(Counter(d.metadata["style"] for d in drafts)) == {"prose", "numbered", "table"}
    units = " ".join(d.description() for d in drafts)
    assert all(u in units for u in (" um", " µm", " microns"))


def test_decks_stay_in_klayout_0_28_5_dsl():
    decks = [d.deck() for d in synthetic()]
    used = set().union(*(dsl_methods_used(deck) for deck in decks))
    assert len(used) >= 35 and used <= dsl_methods()
    assert {"corners", "enclosed", "two_opposite_sides_allowed", "projection_limits"} <= used
    assert not any(unsupported_methods(deck) for deck in decks)


def test_generation_is_deterministic_and_thresholds_agree():
    assert generate_drafts(name="drc-v1") == generate_drafts(name="drc-v1")
    assert fingerprint(generate_drafts(name="drc-v1")) == fingerprint(generate_drafts(name="drc-v1"))
    for seed in range(50):
        t = draw_tech(random.Random(seed)).nm
        assert t["wide_s"] > t["m_s"] and t["big_s"] > t["m_s"] and t["proj_s"] > t["m_s"]
        assert t["arr_d"] >= t["arr_s"] > t["v_s"] and t["enc_side"] > t["enc"] and t["jog"] < t["m_w"]


@pytest.fixture(scope="module")
def labelled(pool, suite_cache):
    """Four tasks of the group, labelled through the on-disk cache."""
    drafts = synthetic()
    ids = [drafts[i].id for i in (0, 17, len(drafts) // 2, len(drafts) - 1)]
    return build_suite("drc-v1", run_deck=pool.run_deck, cache_dir=suite_cache, ids=ids)


def test_gold_decks_reproduce_their_labels(labelled, assert_gold_reproduces_labels):
    for task in labelled:
        assert_gold_reproduces_labels(task)
