"""The sky130 group of drc-v1: size, scenes, DSL, rule coverage, and labels reproduced by real KLayout runs."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from chipgym.tasks.drc.dsl import dsl_methods, dsl_methods_used, unsupported_methods
from chipgym.tasks.drc.suite import build_suite, fingerprint, generate_drafts
from chipgym.tasks.drc.suite.sky130_periphery import LAYERS, TABLE, sky130_periphery_drafts


@pytest.fixture(scope="module")
def drafts():
    return [d for d in generate_drafts(name="drc-v1") if d.group == "sky130"]


def test_task_and_layout_counts(drafts):
    assert len(drafts) >= 320 and all(d.id.startswith("sky130-") for d in drafts)
    hidden = [len(d.scenes()) for d in drafts]
    assert min(hidden) >= 10 and sum(hidden) >= 5000
    assert len({d.title for d in drafts}) == len(drafts)


def test_every_table_rule_is_a_task_of_its_own(drafts):
    singles = {d.title for d in drafts if len(d.rules) == 1}
    assert singles == {name for _, name, _ in TABLE}
    combos = [d for d in drafts if len(d.rules) > 1]
    assert {len(d.rules) for d in combos} <= {2, 3, 4} and len(combos) >= 100
    assert all(len({d.metadata["module"]} | {m for m, n, _ in TABLE if n in d.title.split(" + ")}) == 1
               for d in combos)


def test_real_layer_numbers_and_exemptions(drafts):
    assert LAYERS["met1"] == (68, 20) and LAYERS["nsdm"] == (93, 44) and LAYERS["areaid_ce"] == (81, 2)
    decks = "\n".join(d.deck() for d in drafts)
    for needle in (".not_inside(areaid_ce)", ".inside(areaid_sc)", ".not_inside(areaid_mt)", "psdm", "nsdm"):
        assert needle in decks


def test_decks_stay_in_klayout_0_28_5_dsl(drafts):
    used = set().union(*(dsl_methods_used(d.deck()) for d in drafts))
    assert len(used) >= 30 and used <= dsl_methods()
    assert not any(unsupported_methods(d.deck()) for d in drafts)


def test_texts_name_rules_and_vary(drafts):
    singles = [d for d in drafts if len(d.rules) == 1]
    assert all(d.title in d.description() for d in singles)
    assert len(Counter(d.description().split()[0] for d in singles)) >= 10
    assert {u for d in drafts for u in ("um", "µm", "microns") if f" {u}" in d.description()} == {"um", "µm",
                                                                                                  "microns"}


def test_generation_is_deterministic(drafts):
    again = sky130_periphery_drafts(random.Random(7))
    assert again == sky130_periphery_drafts(random.Random(7))
    assert fingerprint(drafts) == fingerprint([d for d in generate_drafts(name="drc-v1") if d.group == "sky130"])


def test_gold_decks_reproduce_their_labels(drafts, pool, tmp_path, assert_gold_reproduces_labels):
    """Label a slice (first, middle and last task: a single rule with an exemption and combinations)."""
    ids = [drafts[1].id, drafts[len(drafts) // 2].id, drafts[-1].id]
    tasks = build_suite("drc-v1", run_deck=pool.run_deck, cache_dir=tmp_path / "cache", ids=ids)
    for task in tasks:
        assert_gold_reproduces_labels(task)
