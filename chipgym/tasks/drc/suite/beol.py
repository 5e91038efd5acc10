"""Advanced-node metal and via rules for drc-v1: conditional spacing, marker scopes, jogs, corners, via arrays.

Each kind maps ``(rng, category, tech)`` to a :class:`~chipgym.tasks.drc.suite.rule.Rule` whose
thresholds come from the task's :class:`~chipgym.tasks.drc.suite.tech.Tech`, so the rules of one task
agree (a wide-metal spacing is larger than the minimum spacing drawn for the same task).

>>> import random
>>> from chipgym.tasks.drc.suite.tech import draw_tech
>>> r = projection_space(random.Random(0), "m_s_2", draw_tech(random.Random(1)))
>>> r.deck.split(".output")[0]
'm2.space(0.12, projection)'
"""
from __future__ import annotations

import random

from chipgym.tasks.drc.suite import probes
from chipgym.tasks.drc.suite.checks import out
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.kit import diagonal_offset, enclosed_box, gap_scenes, pinch, row, say_units
from chipgym.tasks.drc.suite.layouts import Scene, Shape, l_shape, polygon, rect
from chipgym.tasks.drc.suite.phrasing import value
from chipgym.tasks.drc.suite.rule import Enclosure, Rule
from chipgym.tasks.drc.suite.tech import Tech


def _conditional_space(cat: str, m: str, select: str, s: int, cond: tuple[Shape, ...],
                       plain: tuple[Shape, ...], sep: str = "separation") -> tuple[str, list[Scene]]:
    """Deck and scenes of "shapes selected by ``select`` need ``s`` to any other ``m``": ``cond`` is a
    selected shape and ``plain`` one just missing the condition (``sep``: the DSL spelling, or ``sep``)."""
    deck = (f"{cat}_c = {select}\n({cat}_c.{sep}({m}.not_interacting({cat}_c), {value(s / 1000)}) + "
            f"{cat}_c.space({value(s / 1000)})){out(cat, f'{m} space < {value(s / 1000)} um to a selected {m}')}")
    scenes = gap_scenes(f"{cat}_cb", cond, m, s, 60, 900)
    scenes += gap_scenes(f"{cat}_pb", plain, m, s, 60, 900)[:1]
    x1 = max(p[0] for sh in cond for p in sh.points)
    y1 = max(p[1] for sh in cond for p in sh.points)
    for d, sfx in free(cat, "conditional_space").offsets(s)[:2]:
        g, k = s + d, diagonal_offset(s, d < 0, -d)
        moved = tuple(Shape(sh.layer, tuple((x + x1 + g, y) for x, y in sh.points)) for sh in cond)
        diag = tuple(Shape(sh.layer, tuple((x + x1 + k, y + y1 + k) for x, y in sh.points)) for sh in cond)
        scenes += [Scene(f"{cat}_cc_par_{sfx}", cond + moved), Scene(f"{cat}_cc_corner_{sfx}", cond + diag)]
    return deck, scenes


def wide_metal_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Width-dependent spacing: polygons with a part wider than W (a W/2 undersize survives) need S."""
    m, w, s = t.ly["metal"], t.nm["wide_w"], t.nm["wide_s"]
    select = f"{m}.interacting({m}.sized(-{value(w / 2000)}))"
    n = free(cat, "wide_metal").size(2 * w)
    deck, scenes = _conditional_space(cat, m, select, s, rect(m, 0, 0, n, w + 1), rect(m, 0, 0, n, w),
                                      rng.choice(("separation", "sep")))
    text = say_units(rng, (
        "A {m} polygon that is wider than {w} {u} anywhere is wide metal; wide metal must be spaced at least "
        "{s} {u} from every other {m} shape.",
        "Spacing to wide {m} (any part of the polygon wider than {w} {u}) shall be no less than {s} {u}.",
        "If either of two {m} shapes has a width above {w} {u}, their spacing must be {s} {u} or more.",
    ), m=m, w=w / 1000, s=s / 1000)
    return Rule(cat, text, deck, (m,), {f"{cat}_width": w / 1000, f"{cat}_space": s / 1000}, tuple(scenes))


def large_plate_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Area-dependent spacing: polygons of area >= A need S to other shapes."""
    m, a, s = t.ly["metal"], t.nm["big_a"], t.nm["big_s"]
    h = a // 500
    deck, scenes = _conditional_space(cat, m, f"{m}.with_area({value(a / 1e6)}, nil)", s,
                                      rect(m, 0, 0, 500, h), rect(m, 0, 0, 500, h - 1))
    text = say_units(rng, (
        "{m} plates with an area of {a} {u}² or more must keep {s} {u} from any other {m}.",
        "Large-area {m} (polygon area >= {a} {u}²) requires a spacing of at least {s} {u} to neighbouring {m}.",
        "Minimum spacing between a {m} polygon of at least {a} {u}² and any other {m} is {s} {u}.",
    ), m=m, a=a / 1e6, s=s / 1000)
    return Rule(cat, text, deck, (m,), {f"{cat}_area": a / 1e6, f"{cat}_space": s / 1000}, tuple(scenes))


def projection_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Facing-edge (run-length > 0) spacing, measured in projection; corner pairs are exempt."""
    m, s = t.ly["metal"], t.nm["proj_s"]
    deck = f"{m}.space({value(s / 1000)}, projection){out(cat, f'{m} facing-edge space < {value(s / 1000)} um')}"
    text = say_units(rng, (
        "Facing {m} edges (edges whose projections overlap) must be at least {s} {u} apart; corner-to-corner "
        "distances are not checked by this rule.",
        "Side-to-side spacing of {m} is {s} {u} minimum, measured perpendicular to parallel facing edges.",
        "{m} parallel-edge spacing (projection metric) shall be no less than {s} {u}.",
    ), m=m, s=s / 1000)
    f = free(cat, "projection_space")
    w, h = f.size(200), f.size(1000)
    base = rect(m, 0, 0, w, h)
    scenes = gap_scenes(cat, base, m, s, 200, 1000)
    scenes += [Scene(f"{cat}_run_{sfx}", base + rect(m, w + s + d, h - 10, 2 * w + s + d, 2 * h))
               for d, sfx in f.offsets(s)[:1]]
    return Rule(cat, text, deck, (m,), {cat: s / 1000}, tuple(scenes))


def isolated_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Spacing between different polygons only (notches within one polygon are another rule)."""
    m, s = t.ly["metal"], t.nm["m_s"]
    method = rng.choice(("isolated", "iso"))
    deck = f"{m}.{method}({value(s / 1000)}){out(cat, f'{m} polygon to polygon space < {value(s / 1000)} um')}"
    text = say_units(rng, (
        "Two different {m} polygons must be at least {s} {u} apart; gaps inside one polygon (notches) are not "
        "checked by this rule.",
        "Minimum {m} spacing between separate shapes is {s} {u} (same-polygon spacing excluded).",
        "{m} isolation: distinct {m} polygons shall keep {s} {u} or more between them.",
    ), m=m, s=s / 1000)
    scenes = probes.space_scenes(cat, m, m, s)
    keep = tuple(x for x in scenes if not x.name.endswith("_gt") and "_hier_" not in x.name)
    return Rule(cat, text, deck, (m,), {cat: s / 1000}, keep)


def jog_length(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Minimum jog (step) length: no metal edge shorter than J."""
    m, j, w = t.ly["metal"], t.nm["jog"], t.nm["m_w"] + 100
    deck = f"{m}.edges.with_length(nil, {value(j / 1000)}){out(cat, f'{m} jog < {value(j / 1000)} um')}"
    text = say_units(rng, (
        "Every {m} edge, including jogs and steps, must be at least {j} {u} long.",
        "Minimum {m} jog length is {j} {u}: steps in a {m} outline shorter than that are not allowed.",
        "{m} outline segments below {j} {u} (small jogs) are violations.",
    ), m=m, j=j / 1000)

    f = free(cat, "jog_length")
    n, short = f.size(1200, grid=10), j + f.offsets(j)[0][0]

    def step(d: int) -> tuple[Shape, ...]:
        return polygon(m, [(0, 0), (n, 0), (n, w), (n // 2, w), (n // 2, w + d), (0, w + d)])

    scenes = [Scene(f"{cat}_jog_lt", step(short)), Scene(f"{cat}_jog_eq", step(j)),
              Scene(f"{cat}_jog_bar", rect(m, 0, 0, n, w)), Scene(f"{cat}_jog_ell", l_shape(m, 0, 0, w, n)),
              Scene(f"{cat}_jog_split", rect(m, 0, 0, n // 2, w) + rect(m, n // 2, 0, n, w + short, cell="SUB"))]
    return Rule(cat, text, deck, (m,), {cat: j / 1000}, tuple(scenes))


def marker_width(rng: random.Random, cat: str, t: Tech) -> Rule:
    """A larger minimum width for metal polygons fully inside a marker layer."""
    m, mk, w = t.ly["metal"], t.ly["marker"], t.nm["mk_w"]
    deck = f"{m}.inside({mk}).width({value(w / 1000)}){out(cat, f'{m} inside {mk} width < {value(w / 1000)} um')}"
    text = say_units(rng, (
        "Inside the {mk} marker, {m} must be at least {w} {u} wide (only {m} completely inside {mk} is checked).",
        "{m} shapes lying entirely within {mk} have a minimum width of {w} {u}.",
        "Minimum width of {m} fully covered by {mk}: {w} {u}.",
    ), m=m, mk=mk, w=w / 1000)
    f = free(cat, "marker_width")
    n, narrow = f.size(1000, grid=10), w + f.offsets(w)[0][0]
    box = rect(mk, -300, -300, n + 500, n + 500)
    scenes = [Scene(f"{cat}_mw_lt", box + rect(m, 0, 0, narrow, n)),
              Scene(f"{cat}_mw_eq", box + rect(m, 0, 0, w, n)),
              Scene(f"{cat}_mw_out", rect(mk, n // 2, 0, n + 500, n) + rect(m, 0, 0, narrow, n)),
              Scene(f"{cat}_mw_straddle", rect(mk, -300, -300, n + 500, n // 2) + rect(m, 0, 0, narrow, n)),
              Scene(f"{cat}_mw_pinch_lt", rect(mk, -300, -300, 3000, 3000) + pinch(m, w, True)),
              Scene(f"{cat}_mw_pinch_eq", rect(mk, -300, -300, 3000, 3000) + pinch(m, w, False))]
    return Rule(cat, text, deck, (m, mk), {cat: w / 1000}, tuple(scenes))


def marker_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """A larger minimum spacing between metal polygons both fully inside a marker layer."""
    m, mk, s = t.ly["metal"], t.ly["marker"], t.nm["mk_s"]
    metric = rng.choice(("", ", euclidian"))
    deck = (f"{m}.inside({mk}).space({value(s / 1000)}{metric})"
            f"{out(cat, f'{m} inside {mk} space < {value(s / 1000)} um')}")
    text = say_units(rng, (
        "Within {mk}, the spacing between {m} shapes must be at least {s} {u} (both shapes fully inside {mk}).",
        "{m} to {m} spacing inside the {mk} region is {s} {u} minimum; {m} crossing the {mk} edge is exempt.",
        "Minimum space of {m} polygons entirely within {mk}: {s} {u}.",
    ), m=m, mk=mk, s=s / 1000)
    f = free(cat, "marker_space")
    w, h, g = f.size(200), f.size(1000), s + f.offsets(s)[0][0]
    base = rect(m, 0, 0, w, h)
    box = rect(mk, -300, -300, 2000, 2500)
    scenes = gap_scenes(f"{cat}_in", base, m, s, 200, 1000, extra=box)
    scenes += [Scene(f"{cat}_out_lt", base + rect(m, w + g, 0, 2 * w + g, h)),
               Scene(f"{cat}_half_lt", base + rect(m, w + g, 0, 2 * w + g, h)
                     + rect(mk, -300, -300, w + g // 2, h + 300))]
    return Rule(cat, text, deck, (m, mk), {cat: s / 1000}, tuple(scenes))


def via_array_space(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Vias in an array (a cluster of >= N vias whose neighbours are within D) need spacing S."""
    v, n, d, s, vw = t.ly["via"], t.nm["arr_n"], t.nm["arr_d"], t.nm["arr_s"], t.nm["v_w"]
    deck = (f"{cat}_a = {v}.interacting({v}.sized({value(d / 2000)}).interacting({v}, {n}))\n"
            f"{cat}_a.space({value(s / 1000)}){out(cat, f'{v} array space < {value(s / 1000)} um')}")
    text = say_units(rng, (
        "{v} arrays: when {n} or more {v} are chained with neighbour spacing of {d} {u} or less, every {v} of the "
        "array must be spaced at least {s} {u} from the others.",
        "Via array rule: a group of at least {n} {v} cuts, each within {d} {u} of another cut of the group, requires "
        "{v} spacing of {s} {u} or more.",
        "Minimum {v} spacing inside arrays of {n}+ vias (cuts no more than {d} {u} apart form an array) is {s} {u}.",
    ), v=v, n=n, d=d / 1000, s=s / 1000)
    f = free(cat, "via_array")
    g, far = s + f.offsets(s)[0][0], d + f.offsets(d)[2][0]
    last = (n - 2) * (vw + g) + vw
    scenes = [Scene(f"{cat}_arr_lt", row(v, n, vw, g)), Scene(f"{cat}_arr_eq", row(v, n, vw, s)),
              Scene(f"{cat}_arr_short", row(v, n - 1, vw, g)),
              Scene(f"{cat}_arr_far_eq", row(v, n - 1, vw, g) + rect(v, last + d, 0, last + d + vw, vw)),
              Scene(f"{cat}_arr_far_gt", row(v, n - 1, vw, g) + rect(v, last + far, 0, last + far + vw, vw))]
    edge = (n - 2) * (vw + s) + vw
    for offset, sfx in f.offsets(s)[:2]:
        k = diagonal_offset(s, offset < 0, -offset)
        scenes.append(Scene(f"{cat}_arr_corner_{sfx}", row(v, n - 1, vw, s) + rect(v, edge + k, vw + k, edge + k + vw,
                                                                                   2 * vw + k)))
    return Rule(cat, text, deck, (v,), {f"{cat}_count": float(n), f"{cat}_dist": d / 1000, f"{cat}_space": s / 1000},
                tuple(scenes))


SIDE_FILTERS = {
    "one_side_allowed": ("on at least three of its four sides", "one side may be below {e} {u}"),
    "two_opposite_sides_allowed": ("on all four sides, except that exactly two opposite sides may both be below it",
                                   "a via may fall short of {e} {u} only on two opposite sides together"),
    "two_connected_sides_allowed": ("on all four sides, except that two adjacent sides (a corner) may both be "
                                    "below it", "a shortfall on two sides meeting at a corner is waived"),
    "two_sides_allowed": ("on at least two of its four sides", "any two sides may be below {e} {u}"),
    "three_sides_allowed": ("on at least one of its four sides", "up to three sides may be below {e} {u}"),
}
"""KLayout's rectangle filters for ``enclosed``, with how a manual states each."""


def via_side_enclosure(rng: random.Random, cat: str, t: Tech) -> Rule:
    """Enclosure of a via by metal of E on some sides (a KLayout rectangle filter waives the others)."""
    v, m, e, vw = t.ly["via"], t.ly["metal"], t.nm["enc_side"], t.nm["v_w"]
    kind = rng.choice(sorted(SIDE_FILTERS))
    rule, hint = SIDE_FILTERS[kind]
    deck = (f"{v}.enclosed({m}, {value(e / 1000)}, projection, {kind})"
            f"{out(cat, f'{v} enclosure by {m} < {value(e / 1000)} um ({kind})')}")
    text = say_units(rng, (
        "{m} must enclose {v} by at least {e} {u} " + rule + ".",
        "Enclosure of {v} by {m} is {e} {u} minimum " + rule + " (" + hint + ").",
        "The {v} cut needs {e} {u} of {m} around it " + rule + ".",
    ), m=m, v=v, e=e / 1000)
    f = free(cat, "via_side_enclosure")
    short, big = e + f.offsets(e)[0][0], e + f.size(200)
    patterns = {"none": (e, e, e, e), "one": (short, e, e, e), "opp": (short, short, e, e),
                "adj": (short, e, short, e), "three": (short, short, short, e), "four": (short,) * 4,
                "oppwide": (short, short, big, big)}
    scenes = [Scene(f"{cat}_se_{k}", enclosed_box(m, v, vw, *p)) for k, p in patterns.items()]
    k = diagonal_offset(e, True, e - short)
    notch = rect(m, -big, -k, vw + big, vw + big) + rect(m, -k, -big, vw + big, vw + big)
    scenes.append(Scene(f"{cat}_se_notch", notch + rect(v, 0, 0, vw, vw)))
    scenes.append(Scene(f"{cat}_se_out", rect(m, -big, -big, vw // 2, vw + big) + rect(v, 0, 0, vw, vw)))
    return Rule(cat, text, deck, (v, m), {cat: e / 1000}, tuple(scenes), Enclosure(v, m, v, m, whole=True))


def via_concave_corner(rng: random.Random, cat: str, t: Tech) -> Rule:
    """No via within D (in x and y) of a concave (inner) corner of the metal below."""
    v, m, d, vw = t.ly["via"], t.ly["metal"], t.nm["v_cc"], t.nm["v_w"]
    deck = (f"{v}.interacting({m}.corners(as_boxes, 90.0).sized({value((d - 1) / 1000)}))"
            f"{out(cat, f'{v} within {value(d / 1000)} um of a concave {m} corner')}")
    text = say_units(rng, (
        "{v} must not be placed within {d} {u} (measured along x and y) of an inner (concave) corner of {m}.",
        "Keep {v} at least {d} {u} away in x or y from any concave {m} corner; {v} touching that distance is "
        "a violation.",
        "Concave-corner rule: no {v} may overlap or touch the {d} {u} square window around an inner {m} corner.",
    ), v=v, m=m, d=d / 1000)
    f = free(cat, "via_concave_corner")
    arm = 2 * d + 3 * vw
    ell = l_shape(m, 0, 0, arm, arm + f.size(1500))
    def at(x: int, y: int) -> tuple[Shape, ...]:
        return ell + rect(v, x, y, x + vw, y + vw)
    scenes = [Scene(f"{cat}_cc_left_{sfx}", at(arm - d - o - vw, arm + 10)) for o, sfx in f.offsets(d)]
    scenes += [Scene(f"{cat}_cc_below_{sfx}", at(arm + 10, arm - d - o - vw)) for o, sfx in f.offsets(d)[1:]]
    scenes += [Scene(f"{cat}_cc_diag_{sfx}", at(arm - d - o - vw, arm - d - o - vw)) for o, sfx in f.offsets(d)[1:]]
    scenes.append(Scene(f"{cat}_cc_convex", at(0, 0)))
    return Rule(cat, text, deck, (v, m), {cat: d / 1000}, tuple(scenes))
