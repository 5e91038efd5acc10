"""drc-v2's fixes to classes of gold decks (``chipgym/tasks/drc/suite/gold.py``), run in real KLayout; drc-v0 and
drc-v1 keep their published decks (their pinned fingerprints: test_drc_suite_build.py)."""
from __future__ import annotations

import functools

import pytest

from chipgym.tasks.drc.mutate import drop_rule_mutants
from chipgym.tasks.drc.suite import generate_drafts
from chipgym.tasks.drc.suite.layouts import scene_gds
from chipgym.tasks.drc.suite.rule import TaskDraft


@functools.cache
def drc_v2() -> dict[str, TaskDraft]:
    return {d.id: d for d in generate_drafts(name="drc-v2")}


def _enclosure_tasks() -> list[tuple[str, bool]]:
    """The first single-rule enclosure task of each group and reading (``whole`` or partial) in drc-v2."""
    firsts: dict[tuple[str, bool], str] = {}
    for draft in drc_v2().values():
        if len(draft.rules) == 1 and (enclosure := draft.rules[0].enclosure):
            firsts.setdefault((draft.group, enclosure.whole), draft.id)
    return [(task_id, whole) for (_, whole), task_id in sorted(firsts.items())]


def _verdicts(pool, draft: TaskDraft, deck: str, tmp_path) -> dict[str, int]:
    layers = {n: draft.layers[n] for n in sorted({layer for r in draft.rules for layer in r.layers})}
    scenes = draft.scenes()
    paths = []
    for index, scene in enumerate(scenes):
        paths.append(tmp_path / f"{index}.gds")
        paths[-1].write_bytes(scene_gds(scene, layers))
    category = draft.rules[0].category
    return {scene.name: int(v[category] > 0) for scene, v in zip(scenes, pool.run_deck(deck, paths), strict=True)}


@pytest.mark.parametrize("task_id, whole", _enclosure_tasks())
def test_an_inner_shape_outside_its_enclosure_fails_and_the_deck_without_that_check_is_killed(pool, tmp_path,
                                                                                              task_id, whole):
    """A via half off its metal fails (``enclosing`` alone measures only the edges inside the metal); one wholly off
    fails where the rule's text says every inner shape needs the outer one (a via), and passes where the outer one is
    optional (a licon off its diff may sit on poly). The text states the reading."""
    draft = drc_v2()[task_id]
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    protruding = [name for name in verdicts if name.endswith("_enc_protrude")]
    outside = [name for name in verdicts if name.endswith("_enc_outside")]
    assert protruding and all(verdicts[name] for name in protruding), task_id
    assert all(verdicts[name] == int(whole) for name in outside), task_id
    assert ("wholly or partly outside" if whole else "partly outside") in draft.description()

    without = [m for m in drop_rule_mutants(draft.deck()) if "outside" not in m.deck.splitlines()[-1]]
    assert len(without) == 1
    assert _verdicts(pool, draft, without[0].deck, tmp_path) != verdicts, "the mutant survives the hidden layouts"


@pytest.mark.parametrize("rule", ["nsd.5a", "psd.5b"])
def test_butting_edges_are_exempt_and_nothing_else_changes(pool, tmp_path, rule):
    """The rule table's "except for butting edge": a diff flush with its implant where it butts a tap passes; short
    elsewhere, or flush one step away from the tap, it fails. The same deck without the exemption (the published
    one's check) differs on the butting scene alone, so it is killed."""
    draft = next(d for d in drc_v2().values() if d.title == rule)
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    category = draft.rules[0].category
    assert [verdicts[f"{category}_butt_{s}"] for s in ("flush", "short", "apart")] == [0, 1, 1]
    enclosure = draft.rules[0].enclosure
    exempting = f"{enclosure.outer}.edges.enclosing(({enclosure.inner}).edges.not({enclosure.butting}.edges), "
    published = draft.deck().replace(exempting, f"{enclosure.outer}.enclosing({enclosure.inner}, ")
    assert published != draft.deck()
    without = _verdicts(pool, draft, published, tmp_path)
    assert {name for name in verdicts if verdicts[name] != without[name]} == {f"{category}_butt_flush"}


def test_licon_7_checks_isolated_taps_only(pool, tmp_path):
    """licon.7 is the table's rule for a licon in an isolated tap: short margins on two adjacent sides fail in a
    tap alone and pass in a tap that butts a diff; the deck that checks every tap differs there alone."""
    draft = next(d for d in drc_v2().values() if d.title == "licon.7")
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    assert (verdicts["licon_7_iso_butted"], verdicts["licon_7_iso_alone"]) == (0, 1)
    every_tap = draft.deck().replace("tap.not_interacting(diff).enclosing(", "tap.enclosing(")
    assert every_tap != draft.deck()
    without = _verdicts(pool, draft, every_tap, tmp_path)
    assert {name for name in verdicts if verdicts[name] != without[name]} == {"licon_7_iso_butted"}
