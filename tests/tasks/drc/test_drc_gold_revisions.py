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


@pytest.mark.parametrize("rule", ["nsd.7", "psd.7"])
def test_abutting_edges_are_exempt_from_the_implant_spacing(pool, tmp_path, rule):
    """nsd.7 and psd.7 are "for non-abutting diff/tap edges": a p+ diff butting an n+ tap, nsdm over the tap as
    cells draw it, passes; an nsdm shape short of the spacing beside another edge of the same diff fails. The
    deck that measures every edge (the published one) differs on the butted pair alone."""
    draft = next(d for d in drc_v2().values() if d.title == rule)
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    category = draft.rules[0].category
    assert (verdicts[f"{category}_abut"], verdicts[f"{category}_abut_near"]) == (0, 1)
    spacing = draft.rules[0].spacing
    every_edge = draft.deck().replace(f"{spacing.subject}.edges.separation(({spacing.to}).edges.not("
                                      f"{spacing.butting}.edges), ", f"{spacing.subject}.separation({spacing.to}, ")
    assert every_edge != draft.deck() and "that butt" in draft.description()
    without = _verdicts(pool, draft, every_edge, tmp_path)
    assert {name for name in verdicts if verdicts[name] != without[name]} == {f"{category}_abut"}


@pytest.mark.parametrize("rule", ["poly.4", "poly.5", "hvdifftap.23"])
def test_a_shape_touching_the_zone_it_is_checked_outside_is_checked_and_the_text_says_so(pool, tmp_path, rule):
    """KLayout's ``outside`` keeps a shape that touches the zone; here the zone is the layer spaced to, so the
    touching shape fails at spacing 0. No sentence of the text says a touching shape is not checked."""
    draft = next(d for d in drc_v2().values() if d.title == rule)
    assert not any(wrong in draft.description() for wrong in ("not touching", "touching or overlapping"))
    assert "touches" in draft.description()
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    category = draft.rules[0].category
    assert (verdicts[f"{category}_space_touch"], verdicts[f"{category}_space_overlap"]) == (1, 0)


@pytest.mark.parametrize("rule", ["licon.4", "licon.4 (poly/diff/tap)"])
def test_a_licon_must_overlap_what_it_connects(pool, tmp_path, rule):
    """licon.4 asks for an overlap: a licon that only touches its li1 fails, as the text now says; the published
    deck (``not_interacting``) differs on those scenes alone."""
    draft = next(d for d in drc_v2().values() if d.title == rule)
    assert "touching it is not enough" in draft.description()
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    touching = {name for name in verdicts if name.endswith("_in_touch")}
    assert touching and all(verdicts[name] for name in touching)
    published = _verdicts(pool, draft, draft.deck().replace(".not_overlapping(", ".not_interacting("), tmp_path)
    assert {name for name in verdicts if verdicts[name] != published[name]} == touching


def test_capm_bottom_plates_are_whole_met3_shapes(pool, tmp_path):
    """capm.2b spaces bottom plates, the met3 shapes under capms (which they enclose by 0.14 um): plates short of
    1.2 um fail though their capms are further apart; the published deck (met3 AND capm) differs there alone."""
    draft = next(d for d in drc_v2().values() if d.title == "capm.2b")
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    assert (verdicts["capm_2b_plates_lt"], verdicts["capm_2b_plates_eq"]) == (1, 0)
    published = _verdicts(pool, draft, draft.deck().replace("met3.interacting(capm).space(", "met3.and(capm).space("),
                          tmp_path)
    assert {name for name in verdicts if verdicts[name] != published[name]} == {"capm_2b_plates_lt"}


def test_poly_5_measures_the_field_part_of_a_poly_that_crosses_tap(pool, tmp_path):
    """poly.5 is for poly on field, also the field part of a poly that crosses a tap (legal in low-voltage nwell):
    short of the spacing beside another tap it fails, where the published deck (polys wholly outside tap only)
    passed it and the zone scenes whose poly straddles a tap; no other verdict changes."""
    draft = next(d for d in drc_v2().values() if d.title == "poly.5")
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    assert (verdicts["poly_5_field_part_lt"], verdicts["poly_5_field_part_eq"], verdicts["poly_5_space_touch"]) == \
        (1, 0, 1)
    published = _verdicts(pool, draft, "\n".join(draft.deck().splitlines()[:-1]), tmp_path)
    changed = {name for name in verdicts if verdicts[name] != published[name]}
    assert "poly_5_field_part_lt" in changed and all(n.endswith(("_field_part_lt", "_zstraddle")) for n in changed)
    assert "entirely outside" not in draft.description()


def test_licon_11_exempts_fets_inside_areaid_sc_not_licons(pool, tmp_path):
    """"Except for all FETs inside areaid.sc": a failing pair whose gate alone is in areaid.sc passes, whose licon
    alone is there fails; the published deck (keyed on the licon) has both the other way round."""
    draft = next(d for d in drc_v2().values() if d.title == "licon.11")
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    assert (verdicts["licon_11_fet_in_sc"], verdicts["licon_11_licon_in_sc"]) == (0, 1)
    published = _verdicts(pool, draft, draft.deck().replace(
        "licon1.and(diff).separation(poly.and(diff).not_inside(areaid_sc), ",
        "licon1.and(diff).not_inside(areaid_sc).separation(poly.and(diff), "), tmp_path)
    assert (published["licon_11_fet_in_sc"], published["licon_11_licon_in_sc"]) == (1, 0)
    assert "all FETs inside areaid.sc are exempt" in draft.description()


@pytest.mark.parametrize("rule", ["li.5", "via.5a", "licon.8a"])
def test_short_stretches_of_adjacent_sides_violate_where_they_meet(pool, tmp_path, rule):
    """"On one of two adjacent sides": short stretches of two adjacent sides that do not meet at the corner pass
    (signed-off cells draw them), two whole short adjacent sides still fail; the published deck (any short
    horizontal and any short vertical stretch) differs on the stretches apart alone."""
    draft = next(d for d in drc_v2().values() if d.title == rule)
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    category = draft.rules[0].category
    assert (verdicts[f"{category}_adj_apart"], verdicts[f"{category}_adj_lb_lt"]) == (0, 1)
    deck = draft.deck().replace(".with_angle(0).interacting(", ".with_angle(0)).interacting(")
    published = _verdicts(pool, draft, deck.replace(".with_angle(90)))", ".with_angle(90))"), tmp_path)
    assert {name for name in verdicts if verdicts[name] != published[name]} == {f"{category}_adj_apart"}


@pytest.mark.parametrize("rule", ["hvtr.2", "hvi.5"])
def test_a_spacing_says_that_it_does_not_flag_an_overlap(pool, tmp_path, rule):
    """Whether "min space of hvtp to hvtr" forbids an overlap reads both ways; the gold deck passes the overlap
    scene, and the text says it does."""
    draft = next(d for d in drc_v2().values() if d.title == rule)
    assert "does not flag an overlap" in draft.description()
    assert _verdicts(pool, draft, draft.deck(), tmp_path)[f"{draft.rules[0].category}_space_overlap"] == 0


def test_licon_1_exempts_licons_in_a_precision_resistor_not_in_any_rpm(pool, tmp_path):
    """licon.1's exemption is for a precision resistor (rpm AND (poly overlapping polyres) AND psdm): a short licon
    in one passes, in rpm, poly and psdm without the resistor id it fails, where the published deck (any rpm)
    passed it."""
    draft = next(d for d in drc_v2().values() if d.title == "licon.1")
    verdicts = _verdicts(pool, draft, draft.deck(), tmp_path)
    assert (verdicts["licon_1_in_resistor"], verdicts["licon_1_in_rpm_only"]) == (0, 1)
    published = _verdicts(pool, draft, draft.deck().replace(
        "licon1.not_inside(rpm.and(poly.overlapping(polyres)).and(psdm))", "licon1.not_inside(rpm)"), tmp_path)
    assert published["licon_1_in_rpm_only"] == 0 and "precision resistor" in draft.description()
