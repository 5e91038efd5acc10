"""Advanced-node front-end rules for drc-v1: gate spacing, contact to gate, field poly, thick-oxide gates.

Kinds map ``(rng, category, tech)`` to a :class:`~chipgym.tasks.drc.suite.rule.Rule`; a gate is
poly AND diffusion.  Scenes draw a diffusion ``od`` of 1200 x 600 nm crossed by vertical poly.

>>> import random
>>> from chipgym.tasks.drc.suite.tech import draw_tech
>>> r = gate_space(random.Random(0), "po_s_2", draw_tech(random.Random(1)))
>>> r.deck.split(".output")[0]
'po.and(aa).space(0.13)'
"""
from __future__ import annotations

import random

from chipgym.tasks.drc.suite.checks import out
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.kit import diagonal_offset, gap_scenes, pinch, say_units
from chipgym.tasks.drc.suite.layouts import Scene, Shape, rect
from chipgym.tasks.drc.suite.phrasing import value
from chipgym.tasks.drc.suite.rule import Rule
from chipgym.tasks.drc.suite.tech import Tech

OD_W, OD_H, EXT = 1200, 600, 250


def _gate(od: str, po: str, x: int, length: int) -> tuple[Shape, ...]:
    """The diffusion box and one vertical poly line of ``length`` at ``x`` crossing it."""
    return rect(od, 0, 0, OD_W, OD_H) + rect(po, x, -EXT, x + length, OD_H + EXT)


def contact_gate_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Contact to gate spacing (contacts on field poly or diffusion near, but not over, a gate)."""
    co, po, od, s, cw = t.ly["cut"], t.ly["poly"], t.ly["diff"], t.nm["co_g"], t.nm["co_w"]
    deck = (f"{cat}_g = {po}.and({od})\n{co}.separation({cat}_g, {value(s / 1000)})"
            f"{out(cat, f'{co} to gate space < {value(s / 1000)} um')}")
    text = say_units(rng, (
        "{co} must be at least {s} {u} from any transistor gate ({po} AND {od}).",
        "Minimum spacing of {co} to gate (poly over diffusion) is {s} {u}; {co} next to {po} outside {od} is not "
        "checked by this rule.",
        "Contact-to-gate space: {s} {u} or more between {co} and the {po}/{od} overlap.",
    ), co=co, po=po, od=od, s=s / 1000)
    f = free(cat, "contact_gate")
    x, near, length = f.size(500, grid=10), s + f.offsets(s)[0][0], f.size(100, grid=10)
    gate = _gate(od, po, x, length)
    scenes = []
    for d, sfx in f.offsets(s)[:2]:
        g = s + d
        scenes.append(Scene(f"{cat}_cg_left_{sfx}", gate + rect(co, x - g - cw, 200, x - g, 200 + cw)))
        k = diagonal_offset(s, d < 0, -d)
        scenes.append(Scene(f"{cat}_cg_corner_{sfx}", gate + rect(co, x + length + k, OD_H + k, x + length + k + cw,
                                                                  OD_H + k + cw)))
    scenes.append(Scene(f"{cat}_cg_field", rect(od, 0, 0, OD_W, OD_H) + rect(po, x, -EXT, x + length, OD_H + 900)
                        + rect(co, x - near - cw, OD_H + 400, x - near, OD_H + 400 + cw)))
    scenes.append(Scene(f"{cat}_cg_above_lt", gate + rect(co, x, OD_H + near, x + cw, OD_H + near + cw)))
    return Rule(cat, text, deck, (co, po, od), {cat: s / 1000}, tuple(scenes))


def gate_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Gate to gate spacing on diffusion (poly lines over the same or nearby diffusion)."""
    po, od, s = t.ly["poly"], t.ly["diff"], t.nm["g_s"]
    deck = f"{po}.and({od}).space({value(s / 1000)}){out(cat, f'gate space < {value(s / 1000)} um')}"
    text = say_units(rng, (
        "Gates ({po} over {od}) must be spaced at least {s} {u} apart.",
        "Minimum gate-to-gate spacing on {od} is {s} {u} (field {po} is covered by the {po} spacing rule).",
        "Two transistor gates formed by {po} crossing {od} need {s} {u} or more between them.",
    ), po=po, od=od, s=s / 1000)
    f = free(cat, "gate_space")
    x, near, scenes = f.size(300, grid=10), s + f.offsets(s)[0][0], []
    for d, sfx in f.offsets(s)[:2]:
        scenes.append(Scene(f"{cat}_gs_pair_{sfx}", _gate(od, po, x, 100) + rect(po, x + 100 + s + d, -EXT,
                                                                                x + 200 + s + d, OD_H + EXT)))
    scenes.append(Scene(f"{cat}_gs_field_lt", rect(od, 0, 0, OD_W, OD_H) + rect(po, x, OD_H + 100, x + 100, 1600)
                        + rect(po, x + 100 + near, OD_H + 100, x + 200 + near, 1600)))
    for d, sfx in f.offsets(s)[:2]:
        k = diagonal_offset(s, d < 0, -d)
        second = rect(od, OD_W + k, OD_H + k, 2 * OD_W + k, 2 * OD_H + k) + rect(po, OD_W + k, OD_H - EXT + k,
                                                                                 OD_W + k + 100, 2 * OD_H + EXT + k)
        scenes.append(Scene(f"{cat}_gs_corner_{sfx}", rect(od, 0, 0, OD_W, OD_H)
                            + rect(po, OD_W - 100, -EXT, OD_W, OD_H + EXT) + second))
    return Rule(cat, text, deck, (po, od), {cat: s / 1000}, tuple(scenes))


def field_poly_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Field poly (poly not touching diffusion) to diffusion spacing."""
    po, od, s = t.ly["poly"], t.ly["diff"], t.nm["fpo_s"]
    deck = (f"{po}.not_interacting({od}).separation({od}, {value(s / 1000)})"
            f"{out(cat, f'field {po} to {od} space < {value(s / 1000)} um')}")
    text = say_units(rng, (
        "Field {po} (a {po} shape that does not touch {od}) must be at least {s} {u} from {od}.",
        "Minimum spacing of {po} lying entirely in the field to {od} is {s} {u}; {po} forming a gate is exempt.",
        "{po} interconnect that never crosses {od} shall keep {s} {u} from every {od} shape.",
    ), po=po, od=od, s=s / 1000)
    base = rect(od, 0, 0, OD_W, OD_H)
    scenes = gap_scenes(cat, base, po, s, 100, 900)
    scenes += [Scene(f"{cat}_fp_gate", base + rect(po, 300, -EXT, 400, OD_H + EXT)
                     + rect(od, 400 + s - 1, -EXT - 600, 900, -EXT - s + 1)),
               Scene(f"{cat}_fp_touch", base + rect(po, OD_W, 0, OD_W + 100, OD_H))]
    return Rule(cat, text, deck, (po, od), {cat: s / 1000}, tuple(scenes))


def hv_gate_length(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Thick-oxide gates: a larger minimum gate width for gates fully inside the HV marker."""
    po, od, hv, g = t.ly["poly"], t.ly["diff"], t.ly["hv"], t.nm["hv_l"]
    deck = (f"{po}.and({od}).inside({hv}).width({value(g / 1000)})"
            f"{out(cat, f'{hv} gate length < {value(g / 1000)} um')}")
    text = say_units(rng, (
        "Gates ({po} AND {od}) completely inside {hv} (thick-oxide devices) must be at least {g} {u} long and wide.",
        "Inside {hv}, the minimum width of the {po}/{od} gate region is {g} {u}.",
        "Thick-oxide rule: the gate of a device covered by {hv} shall not be narrower than {g} {u}.",
    ), po=po, od=od, hv=hv, g=g / 1000)
    f = free(cat, "hv_gate")
    x, short = f.size(300, grid=10), g + f.offsets(g)[0][0]
    cover = rect(hv, -300, -600, OD_W + 300, OD_H + 600)
    scenes = [Scene(f"{cat}_hv_lt", cover + _gate(od, po, x, short)),
              Scene(f"{cat}_hv_eq", cover + _gate(od, po, x, g)),
              Scene(f"{cat}_hv_bare_lt", _gate(od, po, x, short)),
              Scene(f"{cat}_hv_half_lt", rect(hv, -300, -600, x + g // 2, OD_H + 600) + _gate(od, po, x, short))]
    for fail, sfx in ((True, "lt"), (False, "eq")):
        scenes.append(Scene(f"{cat}_hv_pinch_{sfx}", rect(hv, -300, -300, 1500, 1500) + rect(od, -100, -100, 1300, 1300)
                            + pinch(po, g, fail, 500)))
    return Rule(cat, text, deck, (po, od, hv), {cat: g / 1000}, tuple(scenes))


def contact_square_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Contact spacing in the square metric (the larger of the x and y distances)."""
    co, s, cw = t.ly["cut"], t.nm["co_s"], t.nm["co_w"]
    deck = f"{co}.space({value(s / 1000)}, square){out(cat, f'{co} space (x/y) < {value(s / 1000)} um')}"
    text = say_units(rng, (
        "{co} to {co} spacing is {s} {u} minimum, measured as the larger of the x and y distances (square metric).",
        "Keep {co} cuts {s} {u} apart in x or in y; diagonal neighbours count by their larger offset.",
        "Minimum {co} spacing (square measure) is {s} {u}.",
    ), co=co, s=s / 1000)
    f = free(cat, "square_space")
    base, near = rect(co, 0, 0, cw, cw), s + f.offsets(s)[0][0]
    scenes = [Scene(f"{cat}_sq_par_{sfx}", base + rect(co, cw + s + d, 0, 2 * cw + s + d, cw))
              for d, sfx in f.offsets(s)[:2]]
    scenes += [Scene(f"{cat}_sq_corner_{sfx}", base + rect(co, cw + s + d, cw + s + d, 2 * cw + s + d, 2 * cw + s + d))
               for d, sfx in f.offsets(s)[:2]]
    scenes += [Scene(f"{cat}_sq_skew_lt", base + rect(co, cw + near, cw + s // 3, 2 * cw + near, 2 * cw + s // 3)),
               Scene(f"{cat}_sq_euclid", base + rect(co, cw + diagonal_offset(s, False), cw + diagonal_offset(s, False),
                                                     2 * cw + diagonal_offset(s, False),
                                                     2 * cw + diagonal_offset(s, False)))]
    return Rule(cat, text, deck, (co,), {cat: s / 1000}, tuple(scenes))
