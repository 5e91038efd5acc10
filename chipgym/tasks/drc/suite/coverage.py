"""drc-v1's syntax-coverage group: every drc-v0 syntax kind plus kinds for the rest of the 0.28.5 DSL.

New kinds cover in-place selectors, boolean forms, chip boundaries built with ``polygon_layer``,
negated filters, more universal-DRC measures, rectangle side filters, edge-pair filters,
transformations, sizing modes, density windows, corners, layer-wide numbers, edge segments,
angle classes, vertex counts and processing modes.  Several kinds re-use a drc-v0 kind's scenes
and text with another deck (:func:`_recast`), so one meaning is probed the same way in both suites.

>>> import random
>>> drafts = coverage_drafts(random.Random(0))
>>> len(drafts) >= 220, drafts[0].group, drafts[0].id
(True, 'syntax', 'syntax-0000')
"""
from __future__ import annotations

import math
import random
from dataclasses import replace

from chipgym.tasks.drc.suite import probes, syntax
from chipgym.tasks.drc.suite.checks import draw_um, nm, out
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Point, Scene, l_shape, polygon, rect, text
from chipgym.tasks.drc.suite.phrasing import say, value
from chipgym.tasks.drc.suite.rule import Enclosure, Rule, TaskDraft

_pick = syntax._pick
FRAMES = ("{m}.", "Design rule: {m}.", "{m}; the check applies to each polygon on its own.")
"""Ways of stating a one-sentence meaning (``{m}``)."""


def _state(rng: random.Random, meaning: str, **fields: object) -> str:
    """A meaning (a template with ``{a}``, ``{b}``, ...) in one of the :data:`FRAMES`."""
    return say(rng, tuple(f.replace("{m}", meaning) for f in FRAMES), **fields)


def _recast(rule: Rule, body: str, what: str, text: str = "") -> Rule:
    """``rule`` (a drc-v0 kind's scenes and thresholds) checked by another deck ``body`` (and text)."""
    return replace(rule, deck=body + out(rule.category, what), text=text or rule.text, enclosure=None)


SELECTS = (
    ("select_covering", "{a} shapes must not completely cover a {b} shape"),
    ("select_overlapping", "{a} must not overlap {b} (touching is allowed)"),
    ("select_not_outside", "{a} must lie completely outside {b} (touching is allowed)"),
    ("select_outside", "an {a} shape lying completely outside {b} is not allowed"),
    ("select_inside", "{a} shapes fully inside {b} are forbidden"),
    ("select_not_covering", "every {a} shape must completely cover at least one {b} shape"),
    ("select_not_overlapping", "every {a} shape must overlap {b}"),
    ("select_interacting", "{a} must neither touch nor overlap {b}"),
    ("select_not_interacting", "every {a} shape must touch or overlap a {b} shape"),
    ("select_not_inside", "every {a} shape must lie completely inside {b}"),
)


def select_in_place(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """The in-place selectors (``select_inside`` ...): same meanings as the plain ones."""
    method, meaning = _pick(k, SELECTS)
    deck = f"{a}.{method}({b})" + out(cat, f"{a} {method} {b}")
    return Rule(cat, _state(rng, meaning, a=a, b=b), deck, (a, b), {}, tuple(syntax._pair_scenes(cat, a, b)))


BOOLEANS = (
    ("{a}.andnot({b})[1]", "{a} must be completely covered by {b}"),
    ("{a}.andnot({b})[0]", "no part of {a} may be covered by {b}"),
    ("{a}.in_and_out({b})[0]", "{a} shapes that duplicate a {b} shape exactly are not allowed"),
    ("{a}.in_and_out({b})[1]", "every {a} shape must have an identical {b} shape"),
    ("({a} - {b})", "{a} outside of {b}, even partially, is not allowed"),
    ("({a} & {b})", "{a} and {b} must not overlap"),
    ("({a} ^ {b})", "{a} and {b} must be drawn identically"),
    ("{a}.edges.and({b}.edges)", "no {a} edge may run along a {b} edge (abutting or flush edges are not allowed)"),
    ("{a}.edges.intersections({b}.edges)",
     "the outlines of {a} and {b} must not meet: no crossing, touching or shared edge segments"),
)


def boolean_forms(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Two-output booleans (``andnot``, ``in_and_out``), operator forms and edge booleans."""
    form, meaning = _pick(k, BOOLEANS)
    deck = form.format(a=a, b=b) + out(cat, f"{a} vs {b}")
    return Rule(cat, _state(rng, meaning, a=a, b=b), deck, (a, b), {}, tuple(syntax._pair_scenes(cat, a, b)))


def edge_inside_length(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0's edge length inside/outside a layer, plus a bar crossing ``b`` whose parts inside and outside
    are t-1 / t / t+1 and 600 nm long (its other edges are long)."""
    rule = syntax.edge_inside_length(rng, cat, a, b, k)
    t = nm(rule.thresholds[cat])
    h, cover, crossing = max(1000, 2 * t + 200), rect(b, 0, 0, 2000, 3000), []
    for d, sfx in free(cat, "crossing").offsets(t):
        crossing += [Scene(f"{cat}_cx_in_{sfx}", cover + rect(a, 2000 - t - d, 500, 2600, 500 + h)),
                     Scene(f"{cat}_cx_out_{sfx}", cover + rect(a, 1400, 500, 2000 + t + d, 500 + h))]
    return replace(rule, scenes=rule.scenes + tuple(crossing))


def edge_parts(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0's edge length inside/outside a layer, with ``inside_outside_part`` (both parts at once)."""
    rule = edge_inside_length(rng, cat, a, b, k)
    v = value(rule.thresholds[cat])
    return _recast(rule, f"{a}.edges.inside_outside_part({b})[{k % 2}].with_length(nil, {v})", f"{a} edge < {v} um")


def _edge_probes(cat: str, layer: str, corners: list[Point], inward: bool) -> list[Scene]:
    """A 100 nm square flush against the middle of each edge of the counter-clockwise outline
    ``corners`` (inside it when ``inward``, else outside), and the same square crossing it by 1 nm."""
    scenes, square = [], free(cat, "edge_probes").size(100, grid=10)
    for i, (p, q) in enumerate(zip(corners, corners[1:] + corners[:1])):
        (mx, my), (dx, dy) = ((p[0] + q[0]) // 2, (p[1] + q[1]) // 2), (q[0] - p[0], q[1] - p[1])
        nx, ny = (-int(math.copysign(1, dy)) if dy else 0), (int(math.copysign(1, dx)) if dx else 0)
        side = 1 if inward else -1
        for cross, sfx in ((0, "flush"), (1, "cross")):
            sx, sy = mx - side * cross * nx, my - side * cross * ny  # the square's base, on the edge
            fx, fy = sx + side * square * nx, sy + side * square * ny
            ax, ay = (sx - square // 2, sy) if dx else (sx, sy - square // 2)
            bx, by = (fx + square // 2, fy) if dx else (fx, fy + square // 2)
            scenes.append(Scene(f"{cat}_eg{i}_{sfx}", rect(layer, ax, ay, bx, by)))
    return scenes


def chip_boundary(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """A boundary or keep-out drawn in the deck (``polygon_layer``, ``insert``, ``box``/``polygon``/``p``)."""
    w, h = draw_um(rng, 2000, 4000, 10), draw_um(rng, 2000, 4000, 10)
    form = _pick(k, ("box", "polygon", "keepout"))
    W, H = nm(w), nm(h)
    head = f"die_w = {value(w)}\ndie_h = {value(h)}\ndie = polygon_layer\n"
    if form == "box":
        outline = [(0, 0), (W, 0), (W, H), (0, H)]
        deck = head + f"die.insert(box(0.0, 0.0, die_w, die_h))\n{a}.not_inside(die)"
        text = say(rng, ("Every {a} shape must lie inside the chip boundary, the rectangle from (0, 0) to "
                         "({w}, {h}) {u}.",
                         "The die area is the box (0, 0) - ({w}, {h}) {u}; no {a} may extend beyond it."),
                   a=a, w=w, h=h)
    elif form == "polygon":
        outline = [(0, 0), (W, 0), (W, H // 2), (W // 2, H // 2), (W // 2, H), (0, H)]
        deck = head + ("die.insert(polygon([p(0, 0), p(die_w, 0), p(die_w, die_h / 2), p(die_w / 2, die_h / 2), "
                       f"p(die_w / 2, die_h), p(0, die_h)]))\n{a}.not_inside(die)")
        text = say(rng, ("The chip outline is L-shaped: the {w} x {h} {u} rectangle at the origin without its upper "
                         "right quarter. {a} must stay completely inside this outline.",), a=a, w=w, h=h)
    else:
        outline = [(0, 0), (W, 0), (W, H), (0, H)]
        deck = head.replace("die =", "keepout =") + f"keepout.insert(box(0.0, 0.0, die_w, die_h))\n{a}.and(keepout)"
        text = say(rng, ("The region from (0, 0) to ({w}, {h}) {u} is a keep-out zone for {a}: no {a} may overlap "
                         "it (touching its border is allowed).",), a=a, w=w, h=h)
    scenes = _edge_probes(cat, a, outline, inward=form != "keepout")
    z = free(cat, "chip_boundary").size
    x0, side, away = z(300), z(300), z(300)
    scenes += [Scene(f"{cat}_cb_in", rect(a, x0, x0, x0 + side, x0 + side, cell="SUB")),
               Scene(f"{cat}_cb_out", rect(a, -away - 2 * side, -away - 2 * side, -away, -away)),
               Scene(f"{cat}_cb_over", rect(a, -side, x0, side, x0 + side))]
    return Rule(cat, text, deck + out(cat, f"{a} vs boundary"), (a,), {f"{cat}_w": w, f"{cat}_h": h}, tuple(scenes))


def negated_filter(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0 filter kinds written with the opposite (``without_*``) or relative-height filter."""
    variant = k % 10
    if variant < 3:
        rule = syntax.bbox_size(rng, cat, a, b, variant + 1)
        method = ("without_bbox_height", "without_bbox_max", "without_bbox_min")[variant]
        return _recast(rule, f"{a}.{method}({value(rule.thresholds[cat])}, nil)", f"{a} {method}")
    if variant == 3:
        rule = syntax.perimeter(rng, cat, a, b, k)
        return _recast(rule, f"{a}.without_perimeter({value(rule.thresholds[cat])}, nil)", f"{a} perimeter")
    if variant in (4, 6, 7):
        rule = syntax.aspect_ratio(rng, cat, a, b, k)
        r = int(rule.thresholds[cat])
        if variant == 6:
            text = say(rng, ("The bounding box of each {a} shape must be less than {r} times as tall as it is wide.",
                             "{a} shapes whose bounding-box height is {r} times the width or more are not allowed."),
                       a=a, r=r)
        else:
            what = "long/short side ratio" if variant == 4 else "height/width ratio"
            text = say(rng, ("The bounding-box {w} of a {a} shape must not exceed {r}.",
                             "{a} shapes with a bounding-box {w} above {r} are not allowed."), a=a, r=r, w=what)
        body = {4: f"{a}.without_bbox_aspect_ratio(1.0, {r})", 6: f"{a}.with_relative_height({r}, 1000)",
                7: f"{a}.without_relative_height(0.0, {r})"}[variant]
        w = free(cat, "ratio_above").size(200)
        above = (Scene(f"{cat}_ar_gt", rect(a, 0, 0, w, w * r + 1)),
                 Scene(f"{cat}_ar_rotgt", rect(a, 0, 0, w * r + 1, w)))
        return replace(_recast(rule, body, f"{a} ratio vs {r}", text), scenes=rule.scenes + above)
    if variant == 5:
        rule = syntax.area_ratio(rng, cat, a, b, k)
        r = int(rule.thresholds[cat])
        text = say(rng, ("The bounding box of a {a} polygon may be at most {r} times its area.",), a=a, r=r)
        return _recast(rule, f"{a}.without_area_ratio(1.0, {r})", f"{a} area ratio", text)
    if variant == 8:
        rule = syntax.holes_allowed(rng, cat, a, b, 0)
        return _recast(rule, f"{a}.without_holes(0)", f"{a} with holes")
    rule = syntax.short_edges(rng, cat, a, b, k)
    return _recast(rule, f"{a}.edges.without_length({value(rule.thresholds[cat])}, nil)", f"{a} short edge")


def universal_measures(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Universal-DRC measures drc-v0 did not use (``bbox_min``, ``area_ratio``, ``if_none``, ``angle`` ...)."""
    variant = k % 7
    if variant < 2:
        rule = syntax.bbox_size(rng, cat, a, b, 3 - variant)
        measure = ("bbox_min", "bbox_max")[variant]
        return _recast(rule, f"{a}.drc({measure} < {value(rule.thresholds[cat])})", f"{a} {measure}")
    if variant in (2, 4):
        rule = syntax.aspect_ratio(rng, cat, a, b, k)
        r = int(rule.thresholds[cat])
        if variant == 2:
            return _recast(rule, f"{a}.drc(bbox_aspect_ratio >= {r})", f"{a} aspect ratio")
        text = say(rng, ("{a} shapes must be less than {r} times as tall (y extent) as they are wide (x extent).",),
                   a=a, r=r)
        return _recast(rule, f"{a}.drc(relative_height >= {r})", f"{a} relative height", text)
    if variant == 3:
        rule = syntax.area_ratio(rng, cat, a, b, k)
        return _recast(rule, f"{a}.drc(area_ratio >= {int(rule.thresholds[cat])})", f"{a} area ratio")
    if variant == 5:
        area = draw_um(rng, 200, 600, 10)
        text = say(rng, ("Non-rectangular {a} shapes must have an area of at least {v} {u}²; rectangles of any size "
                         "are allowed.",), a=a, v=area)
        scenes = probes.area_scenes(cat, a, round(area * 1e6), 200) + syntax._shape_zoo(cat, a)
        return Rule(cat, text, f"{a}.drc(if_none(rectangles, area >= {value(area)}))" + out(cat, f"{a} small"),
                    (a,), {cat: area}, tuple(scenes))
    rule = syntax.edge_angle(rng, cat, a, b, 0)
    return _recast(rule, f"{a}.drc(primary.edges.angle == 45)", f"{a} 45 degree edge")


SIDES = (
    ("one_side_allowed", "on exactly one side of the {a} rectangle"),
    ("two_sides_allowed", "on exactly two sides of the {a} rectangle"),
    ("two_connected_sides_allowed", "on exactly two adjacent sides of the {a} rectangle"),
    ("two_opposite_sides_allowed", "on exactly two opposite sides of the {a} rectangle"),
    ("three_sides_allowed", "on exactly three sides of the {a} rectangle"),
    ("only_opposite", "unless it occurs on two opposite sides of the {a} rectangle"),
)


def side_enclosure(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Enclosure with a rectangle side filter (``two_opposite_sides_allowed`` ...)."""
    v = draw_um(rng, 30, 150)
    option, where = _pick(k, SIDES)
    deck = f"{a}.enclosed({b}, {value(v)}, {option})" + out(cat, f"{a} enclosure by {b} < {value(v)} um")
    if option == "only_opposite":
        text = say(rng, ("An enclosure of {a} by {b} below {v} {u} is only a violation when it occurs on two opposite "
                         "sides of the {a} rectangle.",), a=a, b=b, v=v)
    else:
        text = say(rng, ("{b} must enclose {a} by at least {v} {u}; a smaller enclosure is tolerated where it "
                         "occurs " + where
                         + ".", "Minimum enclosure of {a} by {b}: {v} {u}, except when the violation is " + where
                         + "."), a=a, b=b, v=v)
    V, size, scenes = nm(v), 200, probes.enclosure_scenes(cat, a, b, nm(v))
    big = V + 300
    for sides in ("l", "lr", "lb", "lrb", "lrbt"):
        for d, sfx in free(f"{cat}_{sides}", "side_enclosure").offsets(V)[:2]:
            m = {s: V + d if s in sides else big for s in "lrbt"}
            scenes.append(Scene(f"{cat}_sd_{sides}_{sfx}", rect(b, -m["l"], -m["b"], size + m["r"], size + m["t"])
                                + rect(a, 0, 0, size, size)))
    return Rule(cat, text, deck, (a, b), {cat: v}, tuple(scenes), Enclosure(a, b, a, b))


def edge_pair_filter(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Spacing violations filtered by distance (a forbidden range) or by the facing run length."""
    s1 = draw_um(rng, 100, 250)
    s2 = round(s1 + draw_um(rng, 100, 300), 3)
    variant = k % 4
    if variant < 2:
        body = (f"{a}.space({value(s2)}).with_distance({value(s1)}, nil)" if variant == 0
                else f"{a}.space({value(s2)}).without_distance(0.0, {value(s1)})")
        text = say(rng, ("Forbidden spacing range: two {a} shapes must not be spaced at least {s1} {u} but less than "
                         "{s2} {u} apart.", "{a} to {a} spacings from {s1} {u} (inclusive) up to {s2} {u} "
                         "(exclusive) are forbidden; closer spacings are allowed."), a=a, s1=s1, s2=s2)
        scenes = probes.space_scenes(f"{cat}_lo", a, a, nm(s1)) + probes.space_scenes(f"{cat}_hi", a, a, nm(s2))
        return Rule(cat, text, body + out(cat, f"{a} space in forbidden range"), (a,),
                    {f"{cat}_min": s1, f"{cat}_max": s2}, tuple(scenes))
    run = draw_um(rng, 400, 1000, 10)
    both = ", both" if variant == 3 else ""
    body = f"{a}.space({value(s1)}, projection).with_length({value(run)}, nil{both})"
    text = say(rng, ("Where two {a} edges face each other over a parallel run of {l} {u} or more"
                     + (" (measured on both edges)" if both else "") + ", they must be at least {s} {u} apart.",),
               a=a, l=run, s=s1)
    S, L, scenes = nm(s1), nm(run), probes.space_scenes(cat, a, a, nm(s1))
    for d, sfx in free(cat, "run_shift").offsets(L):
        scenes += [Scene(f"{cat}_run_{sfx}", rect(a, 0, 0, 300, L + d) + rect(a, 300 + S - 1, 0, 600 + S, L + d)),
                   Scene(f"{cat}_shift_{sfx}",
                         rect(a, 0, 0, 300, 3 * L) + rect(a, 300 + S - 1, 3 * L - L - d, 600 + S, 4 * L))]
    return Rule(cat, text, body + out(cat, f"{a} run-length space"), (a,), {cat: s1, f"{cat}_run": run},
                tuple(scenes))


def _symmetry_scenes(cat: str, a: str) -> list[Scene]:
    """Patterns centred on the origin with different symmetries (point, 90-degree, mirror x / y, none)."""
    t_shape = rect(a, -300, 100, 300, 200) + rect(a, -50, -300, 50, 100)
    return [
        Scene(f"{cat}_sy_square", rect(a, -200, -200, 200, 200)),
        Scene(f"{cat}_sy_bar", rect(a, -400, -100, 400, 100)),
        Scene(f"{cat}_sy_cross", rect(a, -300, -50, 300, 50) + rect(a, -50, -300, 50, 300, cell="SUB")),
        Scene(f"{cat}_sy_t", t_shape),
        Scene(f"{cat}_sy_tright", rect(a, 100, -300, 200, 300) + rect(a, -300, -50, 100, 50)),
        Scene(f"{cat}_sy_pair", rect(a, 100, 100, 300, 200) + rect(a, -300, -200, -100, -100)),
        Scene(f"{cat}_sy_wheel", rect(a, 100, 0, 300, 100) + rect(a, -100, 100, 0, 300)
              + rect(a, -300, -100, -100, 0) + rect(a, 0, -300, 100, -100)),
        Scene(f"{cat}_sy_shift", rect(a, -200, -200, 201, 200)),
        Scene(f"{cat}_sy_off", rect(a, 100, 100, 400, 400)),
        Scene(f"{cat}_sy_ell", l_shape(a, -300, -300, 200, 600)),
    ]


def _overlay_scenes(cat: str, a: str, b: str, t: int, axis: int) -> list[Scene]:
    """``a`` (200 nm square) in ``b`` with a margin t-1 / t / t+1 on one side along ``axis`` (0: x, 1: y)."""
    scenes, big = [], t + 300
    for d, sfx in free(cat, "overlay").offsets(t):
        for side in ("lo", "hi"):
            m = [big, big, big, big]  # left, bottom, right, top
            m[axis + (2 if side == "hi" else 0)] = t + d
            scenes.append(Scene(f"{cat}_ov_{side}_{sfx}", rect(b, -m[0], -m[1], 200 + m[2], 200 + m[3])
                                + rect(a, 0, 0, 200, 200)))
    flush = [0, 0, 0, 0]
    flush[axis], flush[axis + 2] = big, big
    scenes += [Scene(f"{cat}_ov_flush", rect(b, -flush[0], -flush[1], 200 + flush[2], 200 + flush[3])
                     + rect(a, 0, 0, 200, 200)),
               Scene(f"{cat}_ov_out", rect(b, 1000, 1000, 1500, 1500) + rect(a, 0, 0, 200, 200))]
    return scenes


def _magnified(scenes: list[Scene], f: int) -> list[Scene]:
    """The scenes with every coordinate multiplied by ``f``."""
    return [Scene(s.name, tuple(replace(sh, points=tuple((x * f, y * f) for x, y in sh.points)) for sh in s.shapes))
            for s in scenes]


def transforms(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Symmetry (``rotated``/``rotate``/``transformed``/``transform``), overlay (``moved``/``move``),
    reticle scale (``scaled``/``scale``) and grid (``snap``) checks."""
    variant = k % 9
    if variant < 4:
        body, meaning = (
            (f"{a}.rotated(180).xor({a})", "the {a} layer must be point-symmetric about the origin: rotated by "
                                           "180 degrees it must be unchanged"),
            (f"{a}.dup.rotate(90).xor({a})", "the {a} pattern must look the same after a 90-degree rotation about "
                                             "the origin"),
            (f"{a}.transformed(RBA::DCplxTrans::M90).xor({a})", "the {a} layer must be mirror-symmetric about the y "
                                                                "axis"),
            (f"{a}.dup.transform(RBA::DCplxTrans::M0).xor({a})", "the {a} layer must be mirror-symmetric about the "
                                                                 "x axis"),
        )[variant]
        scale = free(cat, "symmetry").pick(1, (2, 3))
        return Rule(cat, _state(rng, meaning, a=a), body + out(cat, f"{a} asymmetric"), (a,), {},
                    tuple(_magnified(_symmetry_scenes(cat, a), scale)))
    if variant < 6:
        d = draw_um(rng, 50, 300)
        axis = variant - 4
        shift = ((f"{a}.moved({value(d)}, 0)", f"{a}.moved(-{value(d)}, 0)") if axis == 0
                 else (f"{a}.dup.move(0, {value(d)})", f"{a}.dup.move(0, -{value(d)})"))
        body = f"({shift[0]} + {shift[1]}).not_inside({b})"
        text = say(rng, ("Overlay tolerance: every {a} shape must stay completely inside {b} when it is shifted by "
                         "{d} {u} in either {ax} direction.",
                         "{a} must remain covered by {b} under a misalignment of ±{d} {u} along {ax}."),
                   a=a, b=b, d=d, ax="x" if axis == 0 else "y")
        return Rule(cat, text, body + out(cat, f"{a} overlay in {b}"), (a, b), {cat: d},
                    tuple(_overlay_scenes(cat, a, b, nm(d), axis)))
    if variant < 8:
        w = draw_um(rng, 150, 400)
        body = f"{a}.scaled(0.25).width({value(w)})" if variant == 6 else f"{a}.dup.scale(0.25).width({value(w)})"
        text = say(rng, ("{a} is drawn at 4x reticle scale; on the wafer (scaled by 1/4) its width must be at least "
                         "{w} {u}.", "After the 4:1 reduction of the reticle, {a} features must be {w} {u} wide or "
                         "wider."), a=a, w=w)
        return Rule(cat, text, body + out(cat, f"{a} wafer width"), (a,), {cat: w},
                    tuple(_magnified(probes.width_scenes(cat, a, nm(w)), 4)))
    rule = syntax.on_grid(rng, cat, a, b, 1)
    return _recast(rule, f"{a}.dup.snap({value(rule.thresholds[cat])}).xor({a})", f"{a} off grid")


MODES = (
    ("", "sizing with square corners"),
    ("octagon_limit", "sizing with octagonal corners"),
    ("square_limit", "sizing with square corners"),
    ("diamond_limit", "sizing with diamond (45-degree bevelled) corners"),
    ("acute_limit", "sizing limited at acute corners only"),
    ("no_limit", "sizing without corner limits"),
)


def sizing(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Closing (grow then shrink: gaps filled) and opening (shrink then grow: slivers lost) checks."""
    d = draw_um(rng, 50, 200)
    variant, v, two = k % 8, value(d), value(round(2 * d, 4))
    if variant < 6:
        mode, how = MODES[variant]
        opt = f", {mode}" if mode else ""
        body = f"grow = {v}\n{a}.sized(grow{opt}).sized(-grow{opt}).not({a})"
    elif variant == 6:
        how, body = "sizing in place", f"grow = {v}\n{a}.dup.size(grow).size(-grow).not({a})"
    else:
        text = say(rng, ("Shrinking {a} by {d} {u} and growing it back by {d} {u} must not remove any area: "
                         "no {a} part "
                         "may be {w} {u} wide or narrower.",), a=a, d=d, w=two)
        deck = f"shrink = {v}\n{a}.not({a}.sized(-shrink).sized(shrink))" + out(cat, f"{a} lost by opening")
        return Rule(cat, text, deck, (a,),
                    {cat: d}, tuple(probes.width_scenes(cat, a, nm(2 * d))))
    text = say(rng, ("Gaps and notches of {a} no wider than {w} {u} are not allowed: growing {a} by {d} {u} and "
                     "shrinking it back ({h}) must not add any area.",
                     "A closing of {a} by {d} {u} ({h}) must not fill anything (gaps must be wider than {w} {u})."),
               a=a, d=d, w=two, h=how)
    return Rule(cat, text, body + out(cat, f"{a} filled by closing"), (a,), {cat: d},
                tuple(probes.space_scenes(cat, a, a, nm(2 * d))))


def _jog_scenes(cat: str, a: str, t: int) -> list[Scene]:
    """Rectangles with an outward / inward jog of height t-1 / t / t+1, and plain shapes."""
    scenes = []
    for d, sfx in free(cat, "jog").offsets(t):
        j = t + d
        scenes += [Scene(f"{cat}_jog_up_{sfx}", polygon(a, [(0, 0), (2000, 0), (2000, 1000), (1000, 1000),
                                                            (1000, 1000 + j), (0, 1000 + j)])),
                   Scene(f"{cat}_jog_in_{sfx}", polygon(a, [(0, 0), (2000, 0), (2000, 1000), (1200, 1000),
                                                            (1200, 1000 - j), (800, 1000 - j), (800, 1000),
                                                            (0, 1000)]))]
    return scenes + [Scene(f"{cat}_jog_rect", rect(a, 0, 0, 2000, 1000)),
                     Scene(f"{cat}_jog_ell", l_shape(a, 0, 0, 600, 2000))]


def _corner_round_scenes(cat: str, a: str, b: str, r: int) -> list[Scene]:
    """A 200 nm ``b`` square in the outer corner of a ``a`` square, offset around where rounding by ``r`` cuts."""
    m0, f = round(r * (1 - 1 / math.sqrt(2))), free(cat, "corner_round")
    side, s = f.size(3000, grid=10), f.size(200, grid=10)  # the rounded square, the square in its corner
    big = rect(a, 0, 0, side, side)
    scenes = [Scene(f"{cat}_rc_{i}", big + rect(b, m0 + i, m0 + i, m0 + i + s, m0 + i + s))
              for i in (-16, -8, -4, -2, -1, 0, 1, 2, 4, 8, 16)]
    return scenes + [Scene(f"{cat}_rc_mid", big + rect(b, side // 2 - s // 2, 0, side // 2 + s // 2, s)),
                     Scene(f"{cat}_rc_inner", l_shape(a, 0, 0, 1000, 3000) + rect(b, 1000, 1000 - s, 1000 + s, 1000)),
                     Scene(f"{cat}_rc_out", big + rect(b, side + 500, 0, side + 500 + s, s))]


def outline_smoothing(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """``smoothed`` (small jogs) and ``rounded_corners`` (mask corner rounding)."""
    if k % 2 == 0:
        d = draw_um(rng, 20, 100)
        text = say(rng, ("Small outline jogs of {a} are not allowed: smoothing {a} with a {d} {u} tolerance "
                         "must not change "
                         "its outline.", "{a} outlines must already be smooth at {d} {u}: smoothing them with that "
                         "tolerance must leave them unchanged."), a=a, d=d)
        return Rule(cat, text, f"{a}.smoothed({value(d)}).xor({a})" + out(cat, f"{a} jog"), (a,), {cat: d},
                    tuple(_jog_scenes(cat, a, nm(d))))
    r = draw_um(rng, 200, 600, 10)
    text = say(rng, ("The outer corners of {a} are rounded with a {r} {u} radius on the mask; every {b} shape must "
                     "still lie inside the rounded {a}.",), a=a, b=b, r=r)
    deck = f"{b}.not_inside({a}.rounded_corners(0.0, {value(r)}, 32))" + out(cat, f"{b} outside rounded {a}")
    return Rule(cat, text, deck, (a, b), {cat: r}, tuple(_corner_round_scenes(cat, a, b, nm(r))))


def _tile_content(a: str, x0: int, tile: int, density: float, right: bool = False, cell: str = "TOP") -> tuple:
    """Shapes covering ``density`` of the tile at x0 (any multiple of 1 nm² of it): a 1 nm row along its bottom,
    a full-height column on its left (``right``: right) side and a 1 nm wide sliver, so that moving or resizing
    the tile grid by 1 nm changes the density."""
    area = round(density * tile * tile)
    if area < tile:
        return ()
    w = (area - tile) // (tile - 1)
    rest = area - tile - w * (tile - 1)
    xa, xb = (x0 + tile - w, x0 + tile) if right else (x0, x0 + w)
    xs = xa - 51 if right else xb + 50
    shapes = rect(a, x0, 0, x0 + tile, 1, cell) + (rect(a, xa, 1, xb, tile, cell) if w else ())
    return shapes + (rect(a, xs, 1, xs + 1, 1 + rest, cell) if rest else ())


def density(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Density windows (``with_density``/``without_density`` with tile options)."""
    lo, hi = rng.choice((0.2, 0.25, 0.3)), rng.choice((0.6, 0.7, 0.75))
    variant, t = k % 4, rng.choice((1.0, 2.0))
    T = nm(t)
    grid = f"tile_size({value(t)}), tile_origin(0.0, 0.0), tile_count(2, 1)"
    body = {0: f"{a}.without_density({lo}, {hi}, {grid})", 1: f"{a}.with_density(0.0, {lo}, {grid})",
            2: f"{a}.with_density({hi}, nil, tile_size({value(t)}), tile_boundary({b}), padding_zero)",
            3: f"{a}.without_density({lo}, {hi}, {grid}, tile_boundary({b}), padding_ignore)"}[variant]
    window = (f"the two {value(t)} x {value(t)} {{u}} windows side by side from the origin" if variant != 2
              else f"every {value(t)} x {value(t)} {{u}} window tiling the {{b}} area")
    if variant == 3:
        window += " (only the part of a window inside {b} counts)"
    need = {0: "between {lo} and {hi}", 1: "at least {lo}", 2: "below {hi}", 3: "between {lo} and {hi}"}[variant]
    text = say(rng, ("The {a} density in " + window + " must be " + need + ".",
                     "Density of {a}, measured in " + window + ", shall be " + need + "."), a=a, b=b, lo=lo, hi=hi)
    drawn = free(cat, "density")  # the middle density, and how far the near scenes sit from the limits
    mid = (lo + hi) / 2 + (hi - lo) * (drawn.size(50, grid=1) - 50) / 100
    h, f = drawn.size(5, grid=1) / 10000, drawn.size(2, grid=1) / 10000
    pairs = [(lo - h, mid), (lo + h, mid), (hi - h, mid), (hi + h, mid), (mid, lo - h), (mid, hi + h), (mid, mid),
             (0.0, mid), (lo + h, hi - h), (lo - f, mid), (lo + f, mid), (hi - f, mid), (hi + f, mid)]
    frame_shapes = rect(b, 0, 0, 2 * T, T) if variant >= 2 else ()
    scenes = [Scene(f"{cat}_dn_{i}", _tile_content(a, 0, T, d1) + _tile_content(a, T, T, d2, right=True)
                    + frame_shapes) for i, (d1, d2) in enumerate(pairs)]
    scenes.append(Scene(f"{cat}_dn_sub", _tile_content(a, 0, T, lo + h, cell="SUB")
                        + _tile_content(a, T, T, hi + h, right=True) + frame_shapes))
    layers = (a, b) if variant >= 2 else (a,)
    return Rule(cat, text, body + out(cat, f"{a} density"), layers, {f"{cat}_min": lo, f"{cat}_max": hi},
                tuple(scenes))


def corner_contact(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """``corners`` as dots (convex: -90 degrees, concave: 90 degrees), also in a universal DRC expression."""
    body, meaning = _pick(k, (
        (f"{a}.corners(-90.0, as_dots).interacting({b})", "{b} must not touch or cover a convex (outer) corner of {a}"),
        (f"{a}.corners(90.0, as_dots).interacting({b})", "{b} must not touch or cover a concave (inner) corner of {a}"),
        (f"{a}.corners(90.0, as_dots).not_interacting({b})",
         "every concave (inner) corner of {a} must be touched or covered by {b}"),
    ))
    f = free(cat, "corner_contact")
    arm = f.size(400, grid=10)
    long = arm + f.size(800, grid=10)
    ell = l_shape(a, 0, 0, arm, long)
    scenes = [Scene(f"{cat}_co_{n}", ell + rect(b, *box)) for n, box in (
        ("convex", (-50, -50, 50, 50)), ("concave", (arm - 50, arm - 50, arm + 50, arm + 50)),
        ("diag", (-100, -100, 0, 0)), ("mid", (arm + 200, -50, arm + 300, 50)), ("near", (-100, 1, 0, 100)),
        ("far", (long + 800, 0, long + 900, 100)), ("cover", (-100, -100, long + 100, long + 100)),
        ("notch", (arm + 1, arm + 1, arm + 200, arm + 200)))]
    scenes.append(Scene(f"{cat}_co_sub", l_shape(a, 0, 0, 400, 1200, cell="SUB") + rect(b, 1150, 350, 1250, 450)))
    return Rule(cat, _state(rng, meaning, a=a, b=b), body + out(cat, f"{b} at {a} corner"), (a, b), {},
                tuple(scenes))


def _total_scenes(cat: str, a: str, area: int) -> list[Scene]:
    """Layouts whose merged ``a`` area is ``area`` -+ 1 nm²: two columns (one in a child cell) and a 1 nm
    sliver; and a column with a shape drawn over it (counted once)."""
    w = free(cat, "totals").size(1000, grid=10)  # a column's width
    h1, h2, scenes = area // (2 * w) - 1, area // w - 1, []
    for d, sfx in ((-1, "lt"), (1, "gt")):
        scenes += [Scene(f"{cat}_ta_{sfx}", rect(a, 0, 0, w, h1) + rect(a, 2 * w, 0, 3 * w, h1, cell="SUB")
                         + rect(a, 4 * w, 0, 4 * w + 1, area - 2 * w * h1 + d)),
                   Scene(f"{cat}_ta_over_{sfx}", rect(a, 0, 0, w, h2) + rect(a, 0, 0, w, w // 2)
                         + rect(a, 2 * w, 0, 2 * w + 1, area - w * h2 + d))]
    return scenes


def _perimeter_scenes(cat: str, a: str, length: int) -> list[Scene]:
    """Layouts whose ``a`` perimeter is ``length`` -+ 2 nm (one bar, a square and a bar), and two abutting bars."""
    w = free(cat, "totals").size(400, grid=10)  # a bar's width
    h, h2, scenes = (length - 2 * w) // 2, (length - 6 * w) // 2, []
    for d, sfx in ((-1, "lt"), (1, "gt")):
        scenes += [Scene(f"{cat}_tp_{sfx}", rect(a, 0, 0, w, h + d)),
                   Scene(f"{cat}_tp_two_{sfx}", rect(a, 0, 0, w, w) + rect(a, 1000, 0, 1000 + w, h2 + d, cell="SUB")),
                   Scene(f"{cat}_tp_abut_{sfx}", rect(a, 0, 0, w, h + d) + rect(a, w, 0, 2 * w, w, cell="SUB"))]
    return scenes


def layer_totals(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Layout-wide numbers of a layer: ``count``, ``area``, ``perimeter``, ``bbox``, ``is_box?``."""
    variant = k % 5
    if variant == 0:
        n = rng.choice((2, 3, 4))
        cond = f"{a}.merged.count > {n}"
        text = say(rng, ("The layout may contain at most {n} separate {a} shapes.",
                         "No more than {n} {a} polygons (after merging) are allowed in a layout."), a=a, n=n)
        f = free(cat, "count")
        side = f.size(300)
        pitch = side + f.size(200)
        scenes = [Scene(f"{cat}_n{c}", tuple(s for i in range(c) for s in rect(a, pitch * i, 0, pitch * i + side,
                                                                                    side)))
                  for c in (n - 1, n, n + 1, n + 2)]
        scenes += [Scene(f"{cat}_n_merged", tuple(s for i in range(n + 1) for s in rect(a, side * i, 0, side * i + side,
                                                                                         side))),
                   Scene(f"{cat}_n_sub", tuple(s for i in range(n + 1) for s in
                                               rect(a, pitch * i, 0, pitch * i + side, side, "SUB" if i else "TOP")))]
        return Rule(cat, text, f"if {cond}\n  {a}{out(cat, f'more than {n} {a}')}\nend", (a,), {cat: float(n)},
                    tuple(scenes))
    if variant in (1, 2):
        what = "area" if variant == 1 else "perimeter"
        total = draw_um(rng, 1000, 3000, 10) if variant == 1 else draw_um(rng, 4000, 8000, 10)
        sq = "²" if variant == 1 else ""
        text = say(rng, ("The total {w} of all {a} in a layout must not exceed {v} {u}" + sq + ".",
                         "Summed over the whole layout, the {a} {w} is limited to {v} {u}" + sq + "."),
                   a=a, w=what, v=total)
        scenes = _total_scenes(cat, a, round(total * 1e6)) if variant == 1 else _perimeter_scenes(cat, a, nm(total))
        return Rule(cat, text, f"if {a}.{what} > {value(total)}\n  {a}{out(cat, f'{a} total {what}')}\nend", (a,),
                    {cat: total}, tuple(scenes))
    if variant == 3:
        w, h = draw_um(rng, 1000, 3000, 10), draw_um(rng, 1000, 3000, 10)
        text = say(rng, ("All {a} shapes of a layout must fit in a field of {w} {u} (x) by {h} {u} (y).",),
                       a=a, w=w, h=h)
        W, H, f = nm(w), nm(h), free(cat, "field")
        s = f.size(200)
        scenes = [Scene(f"{cat}_bb_{ax}_{sfx}", rect(a, 0, 0, s, s)
                        + rect(a, (W + d - s) if ax == "x" else 0, (H + d - s) if ax == "y" else 0,
                               (W + d) if ax == "x" else s, (H + d) if ax == "y" else s, cell="SUB"))
                  for ax in "xy" for d, sfx in (f.offsets(W if ax == "x" else H)[::2])]
        cond = f"{a}.bbox.width > {value(w)} || {a}.bbox.height > {value(h)}"
        return Rule(cat, text, f"if {cond}\n  {a}{out(cat, f'{a} field exceeded')}\nend", (a,),
                    {f"{cat}_w": w, f"{cat}_h": h}, tuple(scenes))
    text = say(rng, ("The {a} layer must consist of exactly one rectangle.",
                     "Only a single rectangular {a} shape is allowed per layout."), a=a)
    z = free(cat, "one_box").size
    side, gap = z(300), z(200)
    scenes = [Scene(f"{cat}_box_one", rect(a, 0, 0, z(300), z(500))),
              Scene(f"{cat}_box_sq", rect(a, 0, 0, *[z(400)] * 2)),
              Scene(f"{cat}_box_two", rect(a, 0, 0, side, side) + rect(a, side + gap, 0, 2 * side + gap, side)),
              Scene(f"{cat}_box_ell", l_shape(a, 0, 0, z(200), z(800))),
              Scene(f"{cat}_box_tri", polygon(a, [(0, 0), (z(800), 0), (0, z(600))]))]
    return Rule(cat, text, f"unless {a}.is_box?\n  {a}{out(cat, f'{a} not one box')}\nend", (a,), {}, tuple(scenes))


def reference_point(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0's reference-point kind with ``b`` corners 10 nm either side of the centre of ``a``."""
    rule = syntax.reference_point(rng, cat, a, b, k)
    near = (Scene(f"{cat}_rp_above", rect(a, 0, 0, 400, 400) + rect(b, 190, 190, 450, 450)),
            Scene(f"{cat}_rp_below", rect(a, 0, 0, 400, 400) + rect(b, -50, -50, 210, 210)))
    return replace(rule, scenes=rule.scenes + near)


def on_grid(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0's grid kind with a rectangle on the grid but off every grid 1 nm finer."""
    rule = syntax.on_grid(rng, cat, a, b, k)
    g = nm(rule.thresholds[cat])
    return replace(rule, scenes=rule.scenes + (Scene(f"{cat}_g_odd", rect(a, 0, 0, 41 * g, 61 * g)),))


def edge_centre_contact(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0's edge-centre kind with ``b`` touching the ends of the central segment (either rounding)."""
    rule = syntax.edge_centre_contact(rng, cat, a, b, k)
    length, base, ends = nm(rule.thresholds[cat]), rect(a, 0, 0, 1000, 1000), []
    for i, half in enumerate(sorted({length // 2, (length + 1) // 2})):
        ends += [Scene(f"{cat}_ec_lim_{i}", base + rect(b, 1000, 0, 1200, 500 - half)),
                 Scene(f"{cat}_ec_lim_top{i}", base + rect(b, 1000, 500 + half, 1200, 1000))]
    return replace(rule, scenes=rule.scenes + tuple(ends))


def pulled_shapes(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """``pull_interacting``/``pull_overlapping``/``pull_inside`` (``b`` shapes found by ``a``), then a shape check."""
    method, rel, check = _pick(k, (("pull_interacting", "touching or overlapping", "non_squares"),
                                   ("pull_overlapping", "overlapping", "non_squares"),
                                   ("pull_inside", "completely inside", "non_squares"),
                                   ("pull_interacting", "touching or overlapping", "squares")))
    shape = "" if check == "non_squares" else " not"
    text = say(rng, ("{b} shapes {r} a {a} shape must" + shape + " be squares.",
                     "Every {b} shape {r} {a} must" + shape + " be a square."), a=a, b=b, r=rel)
    f = free(cat, "pulled")
    side, s = f.size(1000, grid=10), f.size(200)  # the pad, a square pulled from it
    pad, scenes, m = rect(a, 0, 0, side, side), [], 2 * side // 5
    for where, x in (("in", m), ("touch", side), ("over", side - s // 2), ("out", side + side // 2)):
        scenes += [Scene(f"{cat}_pu_{where}_sq", pad + rect(b, x, m, x + s, m + s)),
                   Scene(f"{cat}_pu_{where}_rect", pad + rect(b, x, m, x + s, m + s + 100))]
    scenes += [Scene(f"{cat}_pu_sub", pad + rect(b, 100, 100, 300, 400, cell="SUB")),
               Scene(f"{cat}_pu_both", pad + rect(b, 100, 100, 300, 300) + rect(b, side, 100, side + 300, 200))]
    deck = f"{a}.{method}({b}).{check}" + out(cat, f"{b} {rel} {a}: {check}")
    return Rule(cat, text, deck, (a, b), {}, tuple(scenes))


def union_area(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Minimum area of the merged union of two layers (``join`` or ``or``)."""
    v, method = draw_um(rng, 100, 400, 10), _pick(k, ("join", "or"))
    text = say(rng, ("Each polygon of the union of {a} and {b} must have an area of at least {v} {u}².",
                     "Minimum area of ({a} OR {b}), merged, is {v} {u}²."), a=a, b=b, v=v)
    area, w = round(v * 1e6), 200
    h = math.ceil(area / w)
    scenes = probes.area_scenes(cat, a, area, w) + probes.area_scenes(f"{cat}_b", b, area, w)
    scenes += [Scene(f"{cat}_ua_ab_{sfx}", rect(a, 0, 0, w, (h + d) // 2) + rect(b, 0, (h + d) // 2, w, h + d))
               for d, sfx in free(cat, "union_area").offsets(h)]
    deck = f"{a}.{method}({b}).with_area(nil, {value(v)})" + out(cat, f"{a}+{b} area < {value(v)} um2")
    return Rule(cat, text, deck, (a, b), {cat: v}, tuple(scenes))


def universal(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """drc-v0's universal-DRC kind; its area-or-perimeter variant also gets squarish rectangles (area above the
    limit) whose perimeter is 2 nm below, at and 2 nm above the perimeter limit."""
    rule = syntax.universal(rng, cat, a, b, k)
    if "perimeter <" not in rule.deck:
        return rule
    per = nm(round(rule.thresholds[cat] * 10, 3))
    w = per // 4
    near = tuple(Scene(f"{cat}_per_{sfx}", rect(a, 0, 0, w, per // 2 - w + d))
                 for d, sfx in free(cat, "perimeter_near").offsets(per // 2 - w))
    return replace(rule, scenes=rule.scenes + near)


def text_labels(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Rules on text labels drawn on ``b`` (``texts`` with a name pattern)."""
    body, meaning = _pick(k, (
        (f"{a}.not_interacting({b}.texts)", "every {a} shape must carry a text label on {b}"),
        (f'{a}.interacting({b}.texts("VDD")).interacting({b}.texts("GND"))',
         "no {a} shape may carry both a VDD and a GND label on {b} (a labelled short)"),
        (f'{b}.texts("VDD*").not_interacting({a})', "every {b} label whose name starts with VDD must sit on {a}"),
    ))
    p = free(cat, "text_labels").size(500, grid=10)  # the pad's side
    pad, c, q, r = rect(a, 0, 0, p, p), p // 2, 4 * p // 5, 3 * p // 5
    scenes = [Scene(f"{cat}_tx_{n}", shapes) for n, shapes in (
        ("vdd_in", pad + text(b, c, c, "VDD")), ("vdd_edge", pad + text(b, p, 100, "VDD")),
        ("vdd_out", pad + text(b, p + 300, c, "VDD")), ("vdd1_out", pad + text(b, p + 300, c, "VDD1")),
        ("gnd_in", pad + text(b, c, c, "GND")), ("sig_out", pad + text(b, p + 400, p + 400, "SIG")),
        ("short", pad + text(b, 100, 100, "VDD") + text(b, q, q, "GND")),
        ("short_edge", pad + text(b, 0, c, "VDD") + text(b, q, q, "GND", cell="SUB")),
        ("two_pads", pad + rect(a, 2 * p, 0, 3 * p, p) + text(b, c, c, "VDD") + text(b, 2 * p + c, c, "GND")),
        ("vddx_in", pad + text(b, c, c, "VDDX") + text(b, r, r, "GND")),
        ("bare", pad), ("sub", rect(a, 0, 0, p, p, cell="SUB") + text(b, c, c, "VDD")))]
    deck = body + out(cat, f"{a} / {b} labels")
    return Rule(cat, _state(rng, meaning, a=a, b=b), deck, (a, b), {}, tuple(scenes))


def _segment_scenes(cat: str, a: str, b: str, s: int) -> list[Scene]:
    """A 1000 x 2000 ``a`` rectangle and ``b`` probes touching its right edge s-1 / s / s+1 from either end
    (that edge runs top to bottom, clockwise), in its middle, and at a corner."""
    base, scenes, f = rect(a, 0, 0, 1000, 2000), [], free(cat, "segment")
    right, tall = 1000 + f.size(200), f.size(150)  # a probe's right edge and height
    for d, sfx in f.offsets(s):
        scenes += [Scene(f"{cat}_sg_top_{sfx}", base + rect(b, 1000, 2000 - s + d - tall, right, 2000 - s + d)),
                   Scene(f"{cat}_sg_bot_{sfx}", base + rect(b, 1000, s - d, right, s - d + tall))]
    return scenes + [Scene(f"{cat}_sg_mid", base + rect(b, 1000, 980, 1200, 1020)),
                     Scene(f"{cat}_sg_corner", base + rect(b, 900, 1900, 1100, 2100)),
                     Scene(f"{cat}_sg_far", base + rect(b, 1500, 0, 1700, 2000))]


def edge_segments(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """``start_segments``/``end_segments`` (absolute or fractional) and a four-way ``extended`` keep-out."""
    variant = k % 4
    if variant < 3:
        length = draw_um(rng, 100, 400)
        method, which = (("start_segments", "first"), ("end_segments", "last"), ("start_segments", "first"))[variant]
        arg, amount, s = (f"{value(length)}", f"{value(length)} {{u}}", nm(length)) if variant < 2 else \
            ("0, 0.25", "quarter", 500)
        deck = f"{a}.edges.{method}({arg}).interacting({b})" + out(cat, f"{b} at {a} edge {which} segment")
        text = say(rng, ("Following each {a} outline clockwise, {b} must not touch the {x} " + amount
                         + " of any {a} edge.",), a=a, b=b, x=which)
        return Rule(cat, text, deck, (a, b), {cat: length} if variant < 2 else {cat: 0.25},
                    tuple(_segment_scenes(cat, a, b, s)))
    rule = syntax.line_end_keepout(rng, cat, a, b, 0)
    w, d, e = rule.thresholds[f"{cat}_width"], rule.thresholds[f"{cat}_dist"], draw_um(rng, 50, 150)
    W, D, E = nm(w), nm(d), nm(e)
    extra = [Scene(f"{cat}_lat_{sfx}", rect(a, 0, 0, 1500, W - 1) + rect(b, 1500 + D // 2, W - 1 + E + dd,
                                                                         1600 + D, W + E + 300))
             for dd, sfx in free(cat, "line_end_lateral").offsets(E)]
    text = say(rng, ("No {b} may lie within {d} {u} beyond the end of an {a} line narrower than {w} {u}; the keep-out "
                     "zone is also {e} {u} wider than the line on each side.",), a=a, b=b, d=d, w=w, e=e)
    body = f"{a}.edges.with_length(nil, {value(w)}).extended({value(e)}, {value(e)}, {value(d)}, 0.0).and({b})"
    return replace(_recast(rule, body, f"{b} at {a} line end", text), scenes=rule.scenes + tuple(extra),
                   thresholds={**rule.thresholds, f"{cat}_side": e})


def angle_classes(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Edge angle classes ``ortho``, ``diagonal`` and ``diagonal_only``."""
    body, meaning = _pick(k, (
        (f"{a}.edges.without_angle(ortho)", "only horizontal and vertical {a} edges are allowed"),
        (f"{a}.edges.without_angle(diagonal)", "{a} edges must run at a multiple of 45 degrees"),
        (f"{a}.edges.with_angle(diagonal_only)", "45-degree {a} edges (either slope) are not allowed"),
    ))
    rule = syntax.edge_angle(rng, cat, a, b, 0)
    return _recast(rule, body, f"{a} edge angle", _state(rng, meaning, a=a))


def _ngon(a: str, n: int, r: int = 500) -> tuple:
    """A convex polygon with ``n`` vertices on a circle of radius ``r``."""
    return polygon(a, [(round(r * math.cos(2 * math.pi * i / n)), round(r * math.sin(2 * math.pi * i / n)))
                       for i in range(n)])


def vertex_limit(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """At most n vertices per polygon (``select`` with a Ruby block)."""
    n = (6, 8, 10, 12)[k % 4]
    deck = f"{a}.select {{ |poly| poly.num_points > {n} }}" + out(cat, f"{a} more than {n} vertices")
    text = say(rng, ("A {a} polygon may have at most {n} vertices.", "{a} shapes with more than {n} corners are "
                     "not allowed."), a=a, n=n)
    z = free(cat, "vertex_limit").size
    radius, side = z(500), z(300)
    scenes = [Scene(f"{cat}_vx_{c}", _ngon(a, c, radius)) for c in range(n - 2, n + 3)]
    scenes += [Scene(f"{cat}_vx_rect", rect(a, 0, 0, side, z(800))),
               Scene(f"{cat}_vx_merged", rect(a, 0, 0, side, side) + rect(a, side, 0, 2 * side, side, cell="SUB")),
               Scene(f"{cat}_vx_sub", _ngon(a, n + 1, radius) + rect(a, 2000, 0, 2000 + side, side, cell="SUB"))]
    return Rule(cat, text, deck, (a,), {cat: float(n)}, tuple(scenes))


def processing_modes(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Layer processing modifiers: ``flatten``, ``merge``, ``strict``, ``non_strict``."""
    variant = k % 4
    if variant < 2:
        v = draw_um(rng, 100, 400)
        check = "width" if variant == 0 else "space"
        body = f"{a}.flatten.width({value(v)})" if variant == 0 else f"{a}.merge.space({value(v)})"
        text = say(rng, ("The {a} layer, flattened, must be at least {v} {u} wide." if variant == 0 else
                         "Merged {a} shapes must be spaced at least {v} {u} apart.",), a=a, v=v)
        scenes = probes.width_scenes(cat, a, nm(v)) if variant == 0 else probes.space_scenes(cat, a, a, nm(v))
        return Rule(cat, text, body + out(cat, f"{a} {check}"), (a,), {cat: v}, tuple(scenes))
    body, meaning = ((f"{a}.strict.not({b})", "{a} must be completely covered by {b}") if variant == 2
                     else (f"{a}.non_strict.and({b})", "{a} and {b} must not overlap"))
    return Rule(cat, _state(rng, meaning, a=a, b=b), body + out(cat, f"{a} vs {b}"), (a, b), {},
                tuple(syntax._pair_scenes(cat, a, b)))


def check_options(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Spacing with the ``shielded`` option."""
    s = draw_um(rng, 100, 400)
    option, how = "shielded", "with shielding (a shape between two others hides them from each other)"
    text = say(rng, ("Minimum {a} spacing is {s} {u}, checked {h}.", "{a} shapes must be {s} {u} apart ({h})."),
               a=a, s=s, h=how)
    deck = f"{a}.space({value(s)}, {option})" + out(cat, f"{a} space < {value(s)} um")
    return Rule(cat, text, deck, (a,), {cat: s}, tuple(probes.space_scenes(cat, a, a, nm(s))))


NEW_KINDS = {f.__name__: f for f in (
    select_in_place, boolean_forms, edge_parts, chip_boundary, negated_filter, universal_measures, side_enclosure,
    edge_pair_filter, transforms, sizing, outline_smoothing, density, corner_contact, layer_totals, edge_segments,
    angle_classes, vertex_limit, processing_modes, check_options, reference_point, on_grid, edge_centre_contact,
    pulled_shapes, union_area, universal, edge_inside_length, text_labels,
)}
"""Kinds new in drc-v1, and drc-v0 kinds given more scenes: name -> ``(rng, category, a, b, variant) -> Rule``."""

V0_KINDS = {n: f for n, f in syntax.KINDS.items() if n not in ("pulled_width", "merged_width")}
"""drc-v0's kinds except two width checks whose rectangle-only scenes cannot tell the width metrics apart."""

VARIANTS = {**syntax.VARIANTS, "select_in_place": 10, "boolean_forms": 9, "edge_parts": 2, "chip_boundary": 3,
            "negated_filter": 10, "universal_measures": 7, "side_enclosure": 6, "edge_pair_filter": 4,
            "transforms": 9, "sizing": 8, "outline_smoothing": 2, "density": 6, "corner_contact": 3,
            "layer_totals": 5, "edge_segments": 4, "angle_classes": 3, "vertex_limit": 4, "processing_modes": 4,
            "check_options": 1, "pulled_shapes": 4, "union_area": 2,
            "text_labels": 3}
"""Tasks per kind (one per variant); kinds not listed get ``syntax.PER_KIND``."""


def _turned(scene: Scene, quarter: int) -> Scene:
    """``scene`` rotated by ``quarter`` x 90 degrees about the origin (a new layout for the same check)."""
    def turn(x: int, y: int) -> Point:
        for _ in range(quarter):
            x, y = -y, x
        return x, y
    return Scene(f"{scene.name}_r{90 * quarter}",
                 tuple(replace(s, points=tuple(turn(x, y) for x, y in s.points)) for s in scene.shapes))


def padded(rule: Rule, fewest: int = 10) -> Rule:
    """``rule`` with rotated copies of its scenes appended until it has ``fewest`` scenes.

    >>> import random
    >>> len(padded(syntax.aspect_ratio(random.Random(0), "c", "m", "v", 0)).scenes)
    10
    """
    extra = [_turned(s, q) for q in (1, 2, 3) for s in rule.scenes]
    return replace(rule, scenes=rule.scenes + tuple(extra[: max(0, fewest - len(rule.scenes))]))


def coverage_drafts(rng: random.Random) -> list[TaskDraft]:
    """One task per variant of every kind (drc-v0's and the new ones), in a seeded order."""
    kinds = {**V0_KINDS, **NEW_KINDS}
    plan = [(kind, k) for kind in sorted(kinds) for k in range(VARIANTS.get(kind, syntax.PER_KIND))]
    rng.shuffle(plan)
    drafts = []
    for i, (kind, k) in enumerate(plan):
        a, b = rng.choice(syntax.NAMES_A), rng.choice(syntax.NAMES_B)
        la, lb = rng.sample(range(1, 256), 2)
        rule = padded(kinds[kind](rng, f"{''.join(w[0] for w in kind.split('_'))}_1", a, b, k))
        layers = {a: (la, rng.choice((0, 0, 2))), b: (lb, rng.choice((0, 0, 2)))}
        drafts.append(TaskDraft(f"syntax-{i:04d}", kind.replace("_", " "), "syntax", "train", layers, (rule,),
                                {"kind": kind}))
    return drafts
