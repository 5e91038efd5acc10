"""drc-v1's syntax-coverage group: size, DSL census, determinism, labels reproduced by real KLayout runs."""
from __future__ import annotations

import random

import pytest

from chipgym.tasks.drc.dsl import dsl_methods, dsl_methods_used, unsupported_methods
from chipgym.tasks.drc.suite import build_suite, generate_drafts
from chipgym.tasks.drc.suite.coverage import NEW_KINDS, coverage_drafts


@pytest.fixture(scope="module")
def drafts():
    return [d for d in generate_drafts(name="drc-v1") if d.group == "syntax"]


def test_group_size_and_hidden_layouts(drafts):
    assert len(drafts) >= 220
    assert [d.id for d in drafts] == [f"syntax-{i:04d}" for i in range(len(drafts))]
    assert min(len(d.scenes()) for d in drafts) >= 10
    assert sum(len(d.scenes()) for d in drafts) >= 2900
    assert {d.metadata["kind"] for d in drafts} >= set(NEW_KINDS)


def test_census_reaches_150_methods_inside_the_0_28_5_dsl(drafts):
    used = set().union(*(dsl_methods_used(d.deck()) for d in drafts))
    assert len(used) >= 150 and used <= dsl_methods()
    assert not any(unsupported_methods(d.deck()) for d in drafts)
    v0 = set().union(*(dsl_methods_used(d.deck()) for d in generate_drafts(name="drc-v0")))
    assert len(used - v0) >= 80


def test_generation_is_deterministic_and_wording_varies(drafts):
    assert coverage_drafts(random.Random(5)) == coverage_drafts(random.Random(5))
    assert coverage_drafts(random.Random(5)) != coverage_drafts(random.Random(6))
    assert len({d.rules[0].text.split()[0] for d in drafts}) >= 20


SLICE = ("density", "transforms", "side_enclosure", "layer_totals", "chip_boundary")


def test_gold_decks_reproduce_their_labels(drafts, pool, suite_cache, assert_gold_reproduces_labels):
    ids = [next(d.id for d in drafts if d.metadata["kind"] == kind) for kind in SLICE]
    tasks = build_suite("drc-v1", run_deck=pool.run_deck, cache_dir=suite_cache, ids=ids)
    for task in tasks:
        assert_gold_reproduces_labels(task)


def test_text_labels_reach_the_gds_and_survive_mirroring():
    from chipgym.tasks.drc.suite.layouts import Scene, Text, rect, scene_gds, text

    scene = Scene("t", rect("pad", 0, 0, 500, 500) + text("pin", 250, 100, "VDD"))
    assert scene.mirrored("m").shapes[1] == Text("pin", ((-250, 100),), "TOP", "VDD")
    assert b"VDD" in scene_gds(scene, {"pad": (1, 0), "pin": (2, 0)})
