"""Gold-deck revisions: fixes to a class of gold decks that a later suite applies to the same generators, so that a
frozen suite (drc-v0, drc-v1) keeps its published answers and the new version (drc-v2) has the right ones.

>>> from chipgym.tasks.drc.suite.rule import Enclosure, Rule
>>> via = Rule("via_4a", "via must be enclosed by met1 by at least 0.055 um.",
...            'met1.enclosing(via, 0.055).output("via_4a", "via_4a: enclosure")', ("via", "met1"), {}, (),
...            Enclosure("via", "met1", "via", "met1", whole=True))
>>> print(covered_enclosures(via).deck)
met1.enclosing(via, 0.055).output("via_4a", "via_4a: enclosure")
(via).not(met1).output("via_4a", "via_4a: via outside met1")
"""
from __future__ import annotations

from dataclasses import replace

from chipgym.tasks.drc.suite.checks import nm
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, rect
from chipgym.tasks.drc.suite.manual import (
    FET_EXEMPT,
    FIELD_PART_CHECKED,
    MUST_OVERLAP,
    PRECISION_RESISTOR,
    TOUCHING_CHECKED,
)
from chipgym.tasks.drc.suite.phrasing import reword
from chipgym.tasks.drc.suite.rule import Rule


def covered_enclosures(rule: Rule) -> Rule:
    """An enclosure rule whose gold deck also flags the part of an inner shape outside the outer one (issue 27 §1).

    ``enclosing`` measures only the inner shape's edges that lie inside the outer one, so a via half off its metal
    (or wholly off, for a rule whose inner shape needs the outer one: ``Enclosure.whole``) passed. The rule's text
    says which reading it takes; the second ``.output`` to the same category is one category in the report."""
    e = rule.enclosure
    if e is None:
        return rule
    inner = f"({e.inner})" if e.whole else f"({e.inner}).overlapping({e.outer})"
    what = f"{rule.category}: {e.inner_words} outside {e.outer_words}"
    line = f'{inner}.not({e.outer}).output("{rule.category}", "{what}")'
    said = (f" Every {e.inner_words} must lie inside {e.outer_words}: one wholly or partly outside it is a violation."
            if e.whole else f" A {e.inner_words} partly outside {e.outer_words} is a violation too.")
    return replace(rule, deck=f"{rule.deck}\n{line}", text=rule.text + said)


def butting_edges_exempt(rule: Rule) -> Rule:
    """An enclosure rule whose gold deck leaves out the inner shape's edges that butt another layer, as the rule
    table says ("except for butting edge": a diff's edge on a tap, where the implant changes), with scenes that
    tell the two apart (issue 27 §2): butting and flush (passes), butting and short elsewhere (fails), flush one
    step away from the other layer (fails). Apply it before :func:`covered_enclosures`."""
    e = rule.enclosure
    if e is None or e.butting is None or e.drawn is None:
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "butting")
    w, h, other, m = f.size(600, grid=10), f.size(400, grid=10), f.size(300, grid=10), v + f.size(100)
    inner, butted = rect(e.drawn, 0, 0, w, h), rect(e.butting, w, 0, w + other, h)
    scenes = (Scene(f"{rule.category}_butt_flush", inner + butted + rect(e.outer, -m, -m, w, h + m)),
              Scene(f"{rule.category}_butt_short", inner + butted + rect(e.outer, -m, -m, w, h + v - 1)),
              Scene(f"{rule.category}_butt_apart", inner + rect(e.butting, w + 10, 0, w + 10 + other, h)
                    + rect(e.outer, -m, -m, w, h + m)))
    return _revised(rule, f"{e.outer}.enclosing({e.inner}, ",
                    f"{e.outer}.edges.enclosing(({e.inner}).edges.not({e.butting}.edges), ", e.butting, scenes,
                    f" Edges of a {e.inner_words} that butt {e.butting} are exempt.")


def isolated_outer(rule: Rule) -> Rule:
    """An enclosure rule the table states for an isolated outer shape only (``licon.7``: a licon in a tap that
    butts no diff), whose published deck checked every one (issue 27 §2: on real cells, every tap it flagged
    butts a diff). Adds the scene that tells them apart: the failing margins in a tap that butts a diff (passes)."""
    e = rule.enclosure
    if e is None or e.isolated_from is None or e.drawn is None:
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "isolated")
    size, big, short = f.size(170, grid=10), v + f.size(200), v + f.offsets(v)[0][0]
    outer = rect(e.outer, -short, -short, size + big, size + big) + rect(e.drawn, 0, 0, size, size)
    butted = rect(e.isolated_from, size + big, -short, size + big + f.size(300), size + big)
    scenes = (Scene(f"{rule.category}_iso_butted", outer + butted),
              Scene(f"{rule.category}_iso_alone", outer))
    return _revised(rule, f"{rule.category}_e = {e.outer}.enclosing(",
                    f"{rule.category}_e = {e.outer}.not_interacting({e.isolated_from}).enclosing(", e.isolated_from,
                    scenes, f" Only a {e.outer} that butts no {e.isolated_from} (an isolated {e.outer}) is checked.")


def abutting_edges_exempt(rule: Rule) -> Rule:
    """A spacing rule the table states "for non-abutting diff/tap edges" (``nsd.7``, ``psd.7``), whose published
    deck measured every edge (issue 27 §2: on real cells, every marker was on a butting edge): measured from the
    edges that butt no ``butting`` shape. Adds the scenes that tell them apart: a butted pair with the subject's
    implant over the butting shape, as cells draw it (passes; the published deck flags it), and the same with a
    shape of the subject short of the threshold beside another edge (fails)."""
    s = rule.spacing
    if s is None:
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "abutting")
    w, h, d, m = f.size(400, grid=10), f.size(400, grid=10), f.size(600, grid=10), f.size(125)
    pair = (rect(s.butting, 0, 0, w, h) + rect(s.subject_layer, -m, -m, w, h + m) + rect(s.drawn, w, 0, w + d, h)
            + tuple(shape for layer in s.under for shape in rect(layer, w, -m, w + d + m, h + m)))
    gap = v + f.offsets(v)[0][0]
    near = rect(s.subject_layer, w + d // 4, h + gap, w + d - d // 4, h + gap + f.size(300, grid=10))
    scenes = (Scene(f"{rule.category}_abut", pair), Scene(f"{rule.category}_abut_near", pair + near))
    return _revised(rule, f"{s.subject}.separation({s.to}, ",
                    f"{s.subject}.edges.separation(({s.to}).edges.not({s.butting}.edges), ", s.butting, scenes,
                    f" Edges of a {s.to_words} that butt {s.butting} are exempt.")


def touching_outside_checked(rule: Rule) -> Rule:
    """A rule checked only outside a zone (``poly.4``, ``poly.5``, ``hvdifftap.23``): KLayout's ``outside`` keeps a
    shape that touches the zone, and there the zone is the layer it is spaced to, so the touching shape fails at
    spacing 0, where two of the manual's sentences said it is not checked (issue 27 §4). The text now says so."""
    return replace(rule, text=reword(rule.text, TOUCHING_CHECKED, **rule.words)) if rule.words.get("z") else rule


def overlap_not_touch(rule: Rule) -> Rule:
    """A rule that a shape must interact with a layer (``licon.4``: a licon and li1, and poly, diff or tap), which
    the table words as an overlap: a licon that only touches its li1 connects nothing (issue 27 §4). The deck
    keeps a shape that does not overlap (``not_overlapping``) where it kept one that does not interact, and the
    sentence says touching is not enough; its scenes already hold a touching and an abutting shape."""
    reworded = reword(rule.text, MUST_OVERLAP, **rule.words) if rule.words.get("b") else rule.text
    if reworded == rule.text or ".not_interacting(" not in rule.deck:
        return rule
    return replace(rule, deck=rule.deck.replace(".not_interacting(", ".not_overlapping(", 1), text=reworded)


def whole_bottom_plates(rule: Rule) -> Rule:
    """``capm.2b``, the spacing of MiM capacitor bottom plates, measured on met3 AND capm: a bottom plate is the
    whole met3 shape under a capm, which encloses the capm by 0.14 um (``capm.3``), so two capacitors whose plates
    are 1.0 um apart passed (issue 27 §3). Measured on ``met3.interacting(capm)``, said in the text, with two
    evaluation scenes: plates short of the spacing with their capms inset (fails; the published deck passes it)
    and plates at it (passes)."""
    opening = "met3.and(capm).space("
    if not rule.deck.startswith(opening):
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "plates")
    plate, inset = f.size(3000, grid=10), f.size(140, grid=5)

    def pair(gap: int) -> tuple:
        return tuple(shape for x in (0, plate + gap) for shape in
                     rect("met3", x, 0, x + plate, plate) + rect("capm", x + inset, inset, x + plate - inset,
                                                                 plate - inset))
    scenes = tuple(Scene(f"{rule.category}_plates_{sfx}", pair(v + d)) for d, sfx in f.offsets(v)[:2])
    return _revised(rule, opening, "met3.interacting(capm).space(", "capm", scenes,
                    " The bottom plate is the whole met3 shape under a capm, not only its part under the capm.")


def field_part_to_tap(rule: Rule) -> Rule:
    """``poly.5``, the spacing of poly on field to tap, checked only for a poly wholly outside tap: the table's rule is
    for the field part of every poly, and a poly may cross a tap inside low-voltage nwell (``poly.12``), so the field
    part of one that does was not measured (issue 27 §3). A second line measures it from its edges off the tap; the
    text says so (in place of the sentence that only a poly outside tap is checked). Two evaluation scenes: a poly
    crossing a tap whose field part runs short of the spacing beside another tap (fails; the published deck passes
    it), and at it (passes). Apply it before :func:`touching_outside_checked`."""
    opening = "poly.outside(tap).separation(tap, "
    if not rule.deck.startswith(opening):
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "field_part")
    w, h, pw = f.size(600, grid=10), f.size(400, grid=10), f.size(150, grid=10)
    crossed = rect("tap", 0, 0, w, h) + rect("poly", w // 3, -f.size(600, grid=10), w // 3 + pw, h // 2)
    scenes = tuple(Scene(f"{rule.category}_field_part_{sfx}",
                         crossed + rect("tap", w // 3 + pw + v + d, -h - 200, w // 3 + pw + v + d + w, -100))
                   for d, sfx in f.offsets(v)[:2])
    measured = rule.deck.split(".output(", 1)[0].replace(
        opening, "poly.overlapping(tap).not(tap).edges.not(tap.edges).separation(tap.edges, ")
    output = rule.deck[len(rule.deck.split(".output(", 1)[0]):]
    return replace(rule, deck=f"{rule.deck}\n{measured}{output}", scenes=rule.scenes + scenes,
                   text=reword(rule.text, FIELD_PART_CHECKED, **rule.words))


def fet_keyed_exemption(rule: Rule) -> Rule:
    """``licon.11``, the spacing of a licon on diff to a gate, "except for all FETs inside areaid.sc": the published
    deck exempted the licons inside areaid.sc, where the table exempts the gates (issue 27 §3). The exemption moves
    to the gate, the text says so, and two evaluation scenes tell them apart: a failing pair with only its gate in
    areaid.sc (passes; the published deck fails it) and with only its licon there (fails; the published passes)."""
    opening = "licon1.and(diff).not_inside(areaid_sc).separation(poly.and(diff), "
    if not rule.deck.startswith(opening):
        return rule
    [pair] = [scene for scene in rule.scenes if scene.name == f"{rule.category}_space_par_lt"]

    def zoned(name: str, layer: str) -> Scene:
        xs, ys = zip(*(point for shape in pair.shapes if shape.layer == layer for point in shape.points))
        return Scene(f"{rule.category}_{name}", pair.shapes + rect("areaid_sc", min(xs) - 10, min(ys) - 10,
                                                                   max(xs) + 10, max(ys) + 10))
    scenes = (zoned("fet_in_sc", "poly"), zoned("licon_in_sc", "licon1"))
    return replace(_revised(rule, opening, "licon1.and(diff).separation(poly.and(diff).not_inside(areaid_sc), ",
                            "areaid_sc", scenes, ""), text=reword(rule.text, FET_EXEMPT, **rule.words))


def short_sides_meet(rule: Rule) -> Rule:
    """The adjacent-sides enclosure rules (``li.5``, ``licon.5c``, ``licon.7``, ``licon.8a``, ``m1.5``, ``via.5a``,
    ...: "on one of two adjacent sides"), whose published deck flags an inner shape with any short horizontal and
    any short vertical enclosure, even where the two short stretches are parts of two sides that do not meet: cells
    signed off by the foundry draw that (issue 27 §5), so the reading taken is that the short stretches must meet at
    a corner of the inner shape. Said in the text, with an evaluation scene of the two apart (passes; the published
    deck fails it)."""
    e, cat = rule.enclosure, rule.category
    published = (f"{e.inner}.interacting({cat}_e.second_edges.with_angle(0))"
                 f".interacting({cat}_e.second_edges.with_angle(90))") if e else ""
    if not published or published not in rule.deck:
        return rule
    v, f = nm(rule.thresholds[cat]), free(cat, "short_sides")
    size, big, short = f.size(170, grid=10), v + f.size(200), v + f.offsets(v)[0][0]
    half = size // 2
    apart = (rect(e.outer, -big, -big, half, half) + rect(e.outer, -short, half, size + big, size + big)
             + rect(e.outer, half, -short, size + big, half) + rect(e.drawn, 0, 0, size, size))
    meeting = (f"{e.inner}.interacting({cat}_e.second_edges.with_angle(0)"
               f".interacting({cat}_e.second_edges.with_angle(90)))")
    return replace(rule, deck=rule.deck.replace(published, meeting, 1),
                   scenes=rule.scenes + (Scene(f"{cat}_adj_apart", apart),),
                   text=f"{rule.text} Short stretches of two adjacent sides of a {e.inner_words} violate only where "
                        "they meet at its corner.")


def overlap_not_spacing(rule: Rule) -> Rule:
    """A spacing of one layer to another ("Min space of hvtp to hvtr", ``hvtr.2``): whether it also forbids their
    overlap can be read both ways, and its evaluation scenes hold an overlap, which the gold deck passes (KLayout's
    ``separation`` measures no overlap). The text says so (issue 27 §5)."""
    measured = rule.deck.split(".output(", 1)[0]
    overlapping = any(scene.name == f"{rule.category}_space_overlap" for scene in rule.scenes)
    if not (overlapping and rule.words.get("b") and ".separation(" in measured and not measured.startswith("(")):
        return rule
    return replace(rule, text=f"{rule.text} Where {rule.words['a']} overlaps {rule.words['b']} there is no spacing "
                              "to measure: this rule does not flag an overlap.")


def precision_resistor_exemption(rule: Rule) -> Rule:
    """``licon.1``'s exemption, for any licon inside rpm, where the table exempts a licon inside a precision
    resistor, which SkyWater's layers reference defines as rpm AND (poly overlapping poly.rs) AND psdm (issue 27
    §3). The zone is that expression, the text says so, and two evaluation scenes tell them apart: a licon short of
    the size inside a precision resistor (passes) and inside rpm, poly and psdm without the resistor id (fails;
    the published deck passes it)."""
    published, zone = "licon1.not_inside(rpm)", "rpm.and(poly.overlapping(polyres)).and(psdm)"
    if published not in rule.deck:
        return rule
    [short] = [scene for scene in rule.scenes if scene.name == f"{rule.category}_size_lt"]
    f = free(rule.category, "precision_resistor")
    pad = f.size(300, grid=10)
    xs, ys = zip(*(point for shape in short.shapes for point in shape.points))

    def around(*layers: str) -> tuple:
        return tuple(s for layer in layers for s in rect(layer, min(xs) - pad, min(ys) - pad, max(xs) + pad,
                                                         max(ys) + pad))
    scenes = (Scene(f"{rule.category}_in_resistor", short.shapes + around("rpm", "poly", "polyres", "psdm")),
              Scene(f"{rule.category}_in_rpm_only", short.shapes + around("rpm", "poly", "psdm")))
    return replace(rule, deck=rule.deck.replace(published, f"licon1.not_inside({zone})"),
                   layers=tuple(dict.fromkeys(rule.layers + ("poly", "polyres", "psdm"))),
                   scenes=rule.scenes + scenes, text=reword(rule.text, PRECISION_RESISTOR, **rule.words))


def _revised(rule: Rule, opening: str, rewritten: str, layer: str, scenes: tuple[Scene, ...], said: str) -> Rule:
    """``rule`` with its deck's ``opening`` rewritten, ``layer`` read, ``scenes`` added and ``said`` in its text; a
    deck that does not open so was not made by the generator the revision fixes."""
    if not rule.deck.startswith(opening):
        raise ValueError(f"{rule.category}: this revision needs a deck that starts {opening!r}")
    return replace(rule, deck=rewritten + rule.deck[len(opening):], text=rule.text + said,
                   layers=tuple(dict.fromkeys(rule.layers + (layer,))), scenes=rule.scenes + scenes)
