"""Rules that need less common (but KLayout 0.28.5) DSL methods.

Each kind is a small function returning a :class:`Rule`; tasks pick kinds, layer
names/numbers and thresholds with the seeded RNG.

>>> import random
>>> drafts = syntax_drafts(random.Random(0))
>>> len(drafts) >= 100, drafts[0].group
(True, 'syntax')
"""
from __future__ import annotations

import random
from typing import Any, Callable

from chipgym.tasks.drc.suite import probes
from chipgym.tasks.drc.suite.checks import draw_um, nm, out
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, diagonal_bar, l_shape, polygon, rect, ring, u_shape
from chipgym.tasks.drc.suite.phrasing import say, value
from chipgym.tasks.drc.suite.rule import Enclosure, Rule, TaskDraft

Kind = Callable[[random.Random, str, str, str, int], Rule]


def _pick(k: int, options: tuple[Any, ...]) -> Any:
    """The ``k``-th variant (cycling), so every variant of a kind appears in the suite."""
    return options[k % len(options)]


def _shape_zoo(cat: str, a: str) -> list[Scene]:
    """Generic single-layer shapes: rectangle, square, L, U, 45-degree bar, ring, triangle."""
    z = free(cat, "shape_zoo").size
    half, split_w = z(600), z(400)
    return [
        Scene(f"{cat}_z_rect", rect(a, 0, 0, z(400), z(1200))),
        Scene(f"{cat}_z_square", rect(a, 0, 0, *[z(500)] * 2)),
        Scene(f"{cat}_z_ell", l_shape(a, 0, 0, z(300), z(1200))),
        Scene(f"{cat}_z_u", u_shape(a, 0, 0, z(400), z(300), z(900))),
        Scene(f"{cat}_z_diag", diagonal_bar(a, 0, 0, z(300), z(1200))),
        Scene(f"{cat}_z_ring", ring(a, 0, 0, z(600), z(600), z(300))),
        Scene(f"{cat}_z_tri", polygon(a, [(0, 0), (z(1200), 0), (0, z(700))])),
        Scene(f"{cat}_z_split", rect(a, 0, 0, split_w, half) + rect(a, 0, half, split_w, 2 * half, cell="SUB")),
    ]


def manhattan(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    method = _pick(k, ("edges", "polygons"))
    deck = ((f"{a}.edges.without_angle(0).without_angle(90)" if method == "edges" else f"{a}.non_rectilinear")
            + out(cat, f"non-Manhattan {a}"))
    text = say(rng, ("Only Manhattan geometry is allowed on {a}: every edge must be horizontal or vertical.",
                      "{a} must not contain diagonal (non 0/90 degree) edges.",
                      "All {a} edges shall be parallel to the x or y axis."), a=a)
    return Rule(cat, text, deck, (a,), {}, tuple(_shape_zoo(cat, a)))


def rectangles_only(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    sq = _pick(k, (False, True))
    deck = f"{a}.{'non_squares' if sq else 'non_rectangles'}" + out(cat, f"{a} not a {'square' if sq else 'rectangle'}")
    shape = "square" if sq else "rectangle"
    text = say(rng, ("Every {a} polygon must be a single axis-parallel {s}.", "Only {s}s are allowed on {a}.",
                      "{a} shapes other than plain {s}s are forbidden."), a=a, s=shape)
    extra = [Scene(f"{cat}_r_near", rect(a, 0, 0, 500, 501))]
    return Rule(cat, text, deck, (a,), {}, tuple(_shape_zoo(cat, a) + extra))


def aspect_ratio(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    r = rng.choice((2, 3, 4, 5, 8, 10))
    deck = f"{a}.with_bbox_aspect_ratio({r}, 1000)" + out(cat, f"{a} aspect ratio >= {r}")
    text = say(rng, ("The bounding box of a {a} shape must have an aspect ratio (long side / short side) below {r}.",
                      "{a} shapes with a bounding-box aspect ratio of {r} or more are not allowed.",
                      "Long/short bounding-box side ratio of {a} must stay under {r}."), a=a, r=r)
    f = free(cat, "aspect_ratio")
    w = f.size(200)
    short = r * w + f.offsets(r * w)[0][0]
    scenes = [Scene(f"{cat}_ar_eq", rect(a, 0, 0, w, r * w)), Scene(f"{cat}_ar_lt", rect(a, 0, 0, w, short)),
              Scene(f"{cat}_ar_rot", rect(a, 0, 0, r * w, w)), Scene(f"{cat}_ar_rotlt", rect(a, 0, 0, short, w)),
              Scene(f"{cat}_ar_ell", l_shape(a, 0, 0, f.size(100), r * w))]
    return Rule(cat, text, deck, (a,), {cat: float(r)}, tuple(scenes))


def area_ratio(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    r = rng.choice((2, 3, 4))
    deck = f"{a}.with_area_ratio({r}, 1000)" + out(cat, f"{a} bbox/area ratio >= {r}")
    text = say(rng, ("The area of a {a} polygon must be more than 1/{r} of its bounding-box area.",
                      "Sparse {a} shapes whose bounding box is {r} times their area or more are forbidden."), a=a, r=r)
    z = free(cat, "area_ratio").size
    long = z(1200)
    scenes = [Scene(f"{cat}_rr_rect", rect(a, 0, 0, z(400), long))]
    for arm in (100, 150, 200, 300, 400, 600):
        scenes.append(Scene(f"{cat}_rr_ell{arm}", l_shape(a, 0, 0, z(arm), long)))
    scenes.append(Scene(f"{cat}_rr_diag", diagonal_bar(a, 0, 0, z(150), z(1500))))
    return Rule(cat, text, deck, (a,), {cat: float(r)}, tuple(scenes))


def perimeter(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    p = draw_um(rng, 1000, 4000, 10)
    deck = f"{a}.with_perimeter(nil, {value(p)})" + out(cat, f"{a} perimeter < {value(p)} um")
    text = say(rng, ("Minimum perimeter of a {a} polygon is {p} {u}.",
                      "{a} shapes with a perimeter below {p} {u} are too small."), a=a, p=p)
    half, w = nm(p) // 2, 150
    scenes = [Scene(f"{cat}_pe_{s}", rect(a, 0, 0, w, half - w + d)) for d, s in free(cat, "perimeter").offsets(half)]
    scenes += [Scene(f"{cat}_pe_split", rect(a, 0, 0, w, 200) + rect(a, 0, 200, w, half - w, cell="SUB")),
               Scene(f"{cat}_pe_pair", rect(a, 0, 0, w, half - w - 1) + rect(a, 1000, 0, 1000 + w, 3 * half))]
    return Rule(cat, text, deck, (a,), {cat: p}, tuple(scenes))


def holes_allowed(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    many = _pick(k, (False, True))
    deck = f"{a}.with_holes({2 if many else 1}, nil)" + out(cat, f"{a} with {'several holes' if many else 'a hole'}")
    text = (say(rng, ("A {a} polygon may contain at most one hole.",
                      "{a} shapes with two or more holes are forbidden."), a=a) if many
            else say(rng, ("{a} shapes must not contain holes.", "Holes (closed rings) in {a} are not allowed."), a=a))
    z = free(cat, "holes").size
    hole, wall = z(300), z(200)
    two = ring(a, 0, 0, hole, hole, wall) + ring(a, hole + wall, 0, hole, hole, wall)
    scenes = _shape_zoo(cat, a) + [Scene(f"{cat}_ho_two", two),
                                   Scene(f"{cat}_ho_splitring", ring(a, 0, 0, hole, hole, wall, cell="SUB"))]
    return Rule(cat, text, deck, (a,), {}, tuple(scenes))


def on_grid(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    g = rng.choice((0.002, 0.005, 0.01))
    snapped = _pick(k, (False, True))
    deck = ((f"{a}.snapped({value(g)}).xor({a})" if snapped else f"{a}.ongrid({value(g)})")
            + out(cat, f"{a} off {value(g)} um grid"))
    text = say(rng, ("All {a} vertices must lie on a {g} {u} grid.",
                      "{a} coordinates must be multiples of {g} {u}."), a=a, g=g)
    G, f = nm(g), free(cat, "on_grid")
    x, y = f.size(40, grid=1) * G, f.size(60, grid=1) * G  # a shape on the grid, its size drawn in grid steps
    scenes = [Scene(f"{cat}_g_on", rect(a, 0, 0, x, y)), Scene(f"{cat}_g_x", rect(a, 1, 0, x, y)),
              Scene(f"{cat}_g_y", rect(a, 0, 0, x, y + 1)),
              Scene(f"{cat}_g_half", rect(a, 0, 0, x + G // 2, y)),
              Scene(f"{cat}_g_sub", rect(a, 0, 0, x, y - 1, cell="SUB"))]
    return Rule(cat, text, deck, (a,), {cat: g}, tuple(scenes))


def odd_polygons(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    deck = f"{a}.odd_polygons" + out(cat, f"self-intersecting {a}")
    text = say(rng, ("{a} polygons must not self-intersect.",
                      "Self-overlapping or twisted {a} polygons are not allowed."), a=a)
    z = free(cat, "odd_polygons").size
    tie, fold = z(800), z(600, grid=10)
    scenes = _shape_zoo(cat, a)[:4] + [Scene(f"{cat}_o_bowtie", polygon(a, [(0, 0), (tie, tie), (tie, 0), (0, tie)])),
                                        Scene(f"{cat}_o_fold", polygon(a, [(0, 0), (fold, 0), (fold, fold),
                                                                           (fold // 2, fold), (fold // 2, -fold // 2),
                                                                           (0, -fold // 2)]))]
    return Rule(cat, text, deck, (a,), {}, tuple(scenes))


def bbox_size(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    method, what = _pick(k, (("with_bbox_width", "width (x extent)"), ("with_bbox_height", "height (y extent)"),
                               ("with_bbox_max", "larger side"), ("with_bbox_min", "smaller side")))
    w = draw_um(rng, 200, 1000, 10)
    deck = f"{a}.{method}(nil, {value(w)})" + out(cat, f"{a} bbox {what} < {value(w)} um")
    text = say(rng, ("The bounding-box {what} of every {a} shape must be at least {w} {u}.",
                      "{a} shapes whose bounding-box {what} is below {w} {u} are not allowed."), a=a, w=w, what=what)
    W, scenes = nm(w), []
    for d, s in free(cat, "bbox_size").offsets(W):
        scenes += [Scene(f"{cat}_bb_x_{s}", rect(a, 0, 0, W + d, 3 * W)),
                   Scene(f"{cat}_bb_y_{s}", rect(a, 0, 0, 3 * W, W + d)),
                   Scene(f"{cat}_bb_sq_{s}", rect(a, 0, 0, W + d, W + d)),
                   Scene(f"{cat}_bb_diag_{s}", diagonal_bar(a, 0, 0, 100, W + d - 141))]
    return Rule(cat, text, deck, (a,), {cat: w}, tuple(scenes))


def _pair_scenes(cat: str, a: str, b: str) -> list[Scene]:
    """Two-layer topologies: inside, flush, identical, straddle, outside, touch, abut, shifted copy."""
    scenes = probes.inside_scenes(cat, a, b) + probes.inside_scenes(f"{cat}_rev", b, a)
    f = free(cat, "pair")
    w, h, apart = f.size(300), f.size(300), f.size(1000)
    scenes += [Scene(f"{cat}_p_same", rect(a, 0, 0, w, h) + rect(b, 0, 0, w, h)),
               Scene(f"{cat}_p_shift", rect(a, 0, 0, w, h) + rect(b, 1, 0, w + 1, h)),
               Scene(f"{cat}_p_samehier", rect(a, 0, 0, w, h, cell="SUB") + rect(b, 0, 0, w, h)),
               Scene(f"{cat}_p_apart", rect(a, 0, 0, w, h) + rect(b, apart, 0, apart + w, h))]
    return scenes


def selection(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    method, meaning = _pick(k, (
        ("covering", "{a} shapes must not completely cover a {b} shape"),
        ("overlapping", "{a} must not overlap {b} (touching is allowed)"),
        ("not_outside", "{a} must lie completely outside {b} (touching is allowed)"),
        ("in", "{a} shapes that duplicate a {b} shape exactly are not allowed"),
        ("not_in", "every {a} shape must have an identical {b} shape"),
        ("outside", "an {a} shape lying completely outside {b} is not allowed"),
        ("inside", "{a} shapes fully inside {b} are forbidden"),
        ("not_covering", "every {a} shape must completely cover at least one {b} shape"),
        ("not_overlapping", "every {a} shape must overlap {b}"),
        ("xor", "{a} and {b} must be drawn identically (no area covered by only one of them)"),
    ))
    deck = f"{a}.{method}({b})" + out(cat, f"{a} {method} {b}")
    return Rule(cat, say(rng, (meaning + ".",), a=a, b=b), deck, (a, b), {}, tuple(_pair_scenes(cat, a, b)))


def edge_inside_length(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    length = draw_um(rng, 100, 500, 5)
    part = _pick(k, ("inside_part", "outside_part"))
    where = "inside" if part == "inside_part" else "outside"
    deck = (f"{a}.edges.{part}({b}).with_length(nil, {value(length)})"
            + out(cat, f"{a} edge {where} {b} < {value(length)} um"))
    text = say(rng, ("Any piece of a {a} edge lying {w} {b} must be at least {l} {u} long.",
                      "Edge segments of {a} {w} {b} shorter than {l} {u} are not allowed."),
               a=a, b=b, l=length, w=where)
    L, scenes = nm(length), []
    for d, s in free(cat, "edge_inside").offsets(L):
        scenes += [Scene(f"{cat}_ei_{s}", rect(b, 0, 0, 2000, 2000) + rect(a, 2000 - L - d, 500, 2000 + L + d, 900)),
                   Scene(f"{cat}_eo_{s}", rect(b, 0, 0, 2000, 2000) + rect(a, 1000, 500, 2000 + L + d, 900))]
    scenes += [Scene(f"{cat}_e_far", rect(b, 0, 0, 2000, 2000) + rect(a, 3000, 0, 3000 + 2 * L, 2 * L))]
    return Rule(cat, text, deck, (a, b), {cat: length}, tuple(scenes))


def line_end_keepout(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    w, d = draw_um(rng, 100, 300), draw_um(rng, 100, 400)
    inward = _pick(k, (False, True))
    ext = "extended_in" if inward else "extended_out"
    deck = f"{a}.edges.with_length(nil, {value(w)}).{ext}({value(d)}).and({b})" + out(cat, f"{b} at {a} line end")
    if inward:
        text = say(rng, ("{b} must not overlap the last {d} {u} of an {a} line end "
                          "(an {a} edge shorter than {w} {u}).",),
                   a=a, b=b, d=d, w=w)
    else:
        text = say(rng, ("No {b} may be placed within {d} {u} beyond an {a} line end "
                          "(an {a} edge shorter than {w} {u}).",
                          "Line-end keep-out: {b} must stay at least {d} {u} away from the end of {a} lines narrower "
                          "than {w} {u}, measured straight out of the line end."), a=a, b=b, d=d, w=w)
    W, D, L, scenes = nm(w), nm(d), 1500, []
    for dw, sw in free(cat, "line_end").offsets(W):
        for dd, sd in ((-1, "in"), (0, "at")):
            x = L - D - dd - 50 if inward else L + D + dd
            scenes.append(Scene(f"{cat}_le_{sw}_{sd}",
                                rect(a, 0, 0, L, W + dw) + rect(b, x, -300, x + 50 if inward else x + 300, W + 300)))
    scenes.append(Scene(f"{cat}_le_side", rect(a, 0, 0, L, W - 1) + rect(b, 200, W + 10, 600, W + 300)))
    return Rule(cat, text, deck, (a, b), {f"{cat}_width": w, f"{cat}_dist": d}, tuple(scenes))


def metric_space(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    s = draw_um(rng, 100, 500)
    method, option, how = _pick(k, (
        ("space", "square", "measured in the square (max of dx, dy) metric"),
        ("space", "projection", "measured between facing parallel edges only"),
        ("space", "euclidian", "measured as true (Euclidean) distance, corners included"),
        ("isolated", "", "between different polygons (notches inside one polygon are not checked)"),
        ("iso", "", "between separate polygons only"),
        ("notch", "projection", "between facing edges of the same polygon"),
        ("width", "projection", "as width between facing parallel edges"),
        ("width", "square", "as width in the square metric"),
        ("space", "whole_edges", "reporting the whole offending edges"),
        ("space", "transparent", "with no shielding by intermediate shapes"),
        ("space", "not_opposite", "between edges that are not facing each other (e.g. corner to corner)"),
    ))
    opt = f", {option}" if option else ""
    deck = f"{a}.{method}({value(s)}{opt})" + out(cat, f"{a} {method} < {value(s)} um")
    noun = "width" if method == "width" else "spacing"
    text = say(rng, ("Minimum {a} {n} is {s} {u}, {h}.", "{a} {n} must be at least {s} {u} ({h})."),
               a=a, s=s, h=how, n=noun)
    S = nm(s)
    scenes = probes.width_scenes(cat, a, S) if method == "width" else probes.space_scenes(cat, a, a, S)
    return Rule(cat, text, deck, (a,), {cat: s}, tuple(scenes))


def alias_two_layer(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    v = draw_um(rng, 50, 300)
    method = _pick(k, ("sep", "enc", "enclosed", "overlap"))
    deck = {"sep": f"{a}.sep({b}, {value(v)})", "enc": f"{b}.enc({a}, {value(v)})",
            "enclosed": f"{a}.enclosed({b}, {value(v)})", "overlap": f"{a}.overlap({b}, {value(v)})"}[method]
    post = _pick(k // 4, ("", ".polygons", ".first_edges", ".second_edges", ".edges"))
    deck += post + out(cat, f"{a} {method} {b} < {value(v)} um")
    texts = {"sep": ("{a} must be at least {v} {u} away from {b}.",),
             "enc": ("{b} must enclose {a} by at least {v} {u}.",),
             "enclosed": ("{a} must be enclosed by {b} with at least {v} {u} margin.",),
             "overlap": ("Where {a} and {b} overlap, the overlap must be at least {v} {u} wide.",)}
    text = say(rng, texts[method], a=a, b=b, v=v)
    V = nm(v)
    scenes = {"sep": lambda: probes.space_scenes(cat, a, b, V), "enc": lambda: probes.enclosure_scenes(cat, a, b, V),
              "enclosed": lambda: probes.enclosure_scenes(cat, a, b, V),
              "overlap": lambda: probes.overlap_scenes(cat, a, b, V)}[method]()
    enclosure = Enclosure(a, b, a, b) if method in ("enc", "enclosed") else None
    return Rule(cat, text, deck, (a, b), {cat: v}, tuple(scenes), enclosure)


def directional_keepout(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    d = draw_um(rng, 100, 500)
    horizontal = _pick(k, (True, False))
    dx, dy = (value(d), 0) if horizontal else (0, value(d))
    deck = f"{a}.sized({dx}, {dy}).and({b})" + out(cat, f"{b} within {value(d)} um of {a}")
    axis = "horizontal (x)" if horizontal else "vertical (y)"
    text = say(rng, ("{b} must keep a {ax} distance of at least {d} {u} from {a}; "
                      "the other direction is not restricted.",
                      "Directional spacing: {a} to {b} along {ax} must be {d} {u} or more."), a=a, b=b, d=d, ax=axis)
    D, scenes, f = nm(d), [], free(cat, "directional")
    z = f.size(300)  # the squares' side
    square = rect(a, 0, 0, z, z)
    for dd, s in f.offsets(D):
        g = D + dd
        scenes += [Scene(f"{cat}_dk_x_{s}", square + rect(b, z + g, 0, 2 * z + g, z)),
                   Scene(f"{cat}_dk_y_{s}", square + rect(b, 0, z + g, z, 2 * z + g))]
    scenes.append(Scene(f"{cat}_dk_diag", square + rect(b, z + D // 2, z + D // 2, 2 * z + D, 2 * z + D)))
    return Rule(cat, text, deck, (a, b), {cat: d}, tuple(scenes))


def pulled_width(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    w = draw_um(rng, 100, 400)
    method = _pick(k, ("pull_interacting", "pull_overlapping", "pull_inside"))
    rel = {"pull_interacting": "touching or overlapping", "pull_overlapping": "overlapping",
           "pull_inside": "completely inside"}[method]
    deck = f"{a}.{method}({b}).width({value(w)})" + out(cat, f"{b} near {a} width < {value(w)} um")
    text = say(rng, ("{b} shapes {r} {a} must be at least {w} {u} wide.",
                      "Minimum width of {b} {r} an {a} shape is {w} {u}."), a=a, b=b, w=w, r=rel)
    W, scenes = nm(w), []
    for d, s in free(cat, "related_width").offsets(W):
        scenes += [Scene(f"{cat}_pw_touch_{s}", rect(a, 0, 0, 1000, 1000) + rect(b, 1000, 0, 1000 + W + d, 2000)),
                   Scene(f"{cat}_pw_over_{s}", rect(a, 0, 0, 1000, 3000) + rect(b, 900, 0, 900 + W + d, 2000)),
                   Scene(f"{cat}_pw_in_{s}", rect(a, 0, 0, 3000, 3000) + rect(b, 900, 100, 900 + W + d, 2000)),
                   Scene(f"{cat}_pw_far_{s}", rect(a, 0, 0, 1000, 1000) + rect(b, 1500, 0, 1500 + W + d, 2000))]
    return Rule(cat, text, deck, (a, b), {cat: w}, tuple(scenes))


def short_edges(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    length = draw_um(rng, 50, 300)
    deck = f"{a}.edges.with_length(nil, {value(length)})" + out(cat, f"{a} edge < {value(length)} um")
    text = say(rng, ("Every {a} edge must be at least {l} {u} long (minimum step).",
                      "{a} edges shorter than {l} {u} are forbidden."), a=a, l=length)
    return Rule(cat, text, deck, (a,), {cat: length}, tuple(_short_edge_scenes(cat, a, nm(length))))


def _short_edge_scenes(cat: str, a: str, t: int) -> list[Scene]:
    """Edges of length t-1 / t: rectangle side, step in an outline, step made by abutting cells."""
    scenes = []
    for d, s in free(cat, "short_edge").offsets(t):
        scenes += [Scene(f"{cat}_se_rect_{s}", rect(a, 0, 0, t + d, 2000)),
                   Scene(f"{cat}_se_step_{s}", polygon(a, [(0, 0), (2000, 0), (2000, 1000), (1000, 1000),
                                                           (1000, 1000 + t + d), (0, 1000 + t + d)])),
                   Scene(f"{cat}_se_abut_{s}",
                         rect(a, 0, 0, 1000, 1000) + rect(a, 1000, 0, 2000, 1000 + t + d, cell="SUB"))]
    return scenes


def companion_layer(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    deck = f"if {b}.is_empty?\n  {a}{out(cat, f'{a} without any {b}')}\nend"
    text = say(rng, ("A layout that contains {a} must also contain at least one {b} shape.",
                      "{a} may only be used when a {b} shape is present somewhere in the layout."), a=a, b=b)
    z = free(cat, "companion_layer").size
    s, far, small = z(300), z(5000), z(100)
    scenes = [Scene(f"{cat}_cl_a", rect(a, 0, 0, s, s)),
              Scene(f"{cat}_cl_ab", rect(a, 0, 0, s, s) + rect(b, far, 0, far + small, small)),
              Scene(f"{cat}_cl_b", rect(b, 0, 0, s, s)), Scene(f"{cat}_cl_none", ()),
              Scene(f"{cat}_cl_hier", rect(a, 0, 0, s, s) + rect(b, 0, 0, small, small, cell="SUB")),
              Scene(f"{cat}_cl_subonly", rect(a, 0, 0, s, s, cell="SUB"))]
    return Rule(cat, text, deck, (a, b), {}, tuple(scenes))


def via_count(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    n = rng.choice((1, 2, 3, 4))
    deck = f"{a}.interacting({b}, {n + 1})" + out(cat, f"{a} touching more than {n} {b}")
    text = say(rng, ("An {a} shape may interact with at most {n} {b} shapes.",
                      "No {a} polygon shall touch or overlap more than {n} {b}."), a=a, b=b, n=n)
    p, scenes = free(cat, "via_count").size(300, grid=30), []  # the pitch: a via is its last two thirds
    for k in range(n, n + 3):
        scenes.append(Scene(f"{cat}_vc_{k}", rect(a, 0, 0, p * k + p, 400)
                            + tuple(s for i in range(k) for s in rect(b, p * i + p // 3, 100, p * i + p, 300))))
    scenes.append(Scene(f"{cat}_vc_touch", rect(a, 0, 0, p, 400)
                        + tuple(s for i in range(n + 1)
                                for s in rect(b, p + 250 * i, 0, p + 150 + 250 * i, 150 if i == 0 else 100))))
    scenes.append(Scene(f"{cat}_vc_merged", rect(a, 0, 0, 2000, 400) + rect(b, 100, 100, 1800, 300)))
    return Rule(cat, text, deck, (a, b), {cat: float(n)}, tuple(scenes))


def double_drawn(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    deck = f"{a}.raw.merged(false, 2)" + out(cat, f"{a} drawn twice")
    text = say(rng, ("{a} polygons must not overlap each other (no area may be drawn twice).",
                      "Overlapping {a} shapes are forbidden; abutting shapes are fine."), a=a)
    s = free(cat, "double_drawn").size(300, grid=15)
    square = rect(a, 0, 0, s, s)
    scenes = [Scene(f"{cat}_dd_over", square + rect(a, 2 * s // 3, 0, 2 * s // 3 + s, s)),
              Scene(f"{cat}_dd_abut", square + rect(a, s, 0, 2 * s, s)),
              Scene(f"{cat}_dd_dup", square + square),
              Scene(f"{cat}_dd_hier", square + rect(a, s - 1, 0, 2 * s, s, cell="SUB")),
              Scene(f"{cat}_dd_single", square)]
    return Rule(cat, text, deck, (a,), {}, tuple(scenes))


def merged_width(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    w = draw_um(rng, 200, 600)
    deck = f"{a}.join({b}).width({value(w)})" + out(cat, f"{a}+{b} width < {value(w)} um")
    text = say(rng, ("The union of {a} and {b} must be at least {w} {u} wide.",
                      "Minimum width of ({a} OR {b}) is {w} {u}."), a=a, b=b, w=w)
    W, scenes = nm(w), []
    for d, s in free(cat, "merged_width").offsets(W):
        scenes += [Scene(f"{cat}_mw_ab_{s}", rect(a, 0, 0, W // 2, 2000) + rect(b, W // 2, 0, W + d, 2000)),
                   Scene(f"{cat}_mw_a_{s}", rect(a, 0, 0, W + d, 2000)),
                   Scene(f"{cat}_mw_b_{s}", rect(b, 0, 0, W + d, 2000))]
    return Rule(cat, text, deck, (a, b), {cat: w}, tuple(scenes))


def extent_size(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    w = draw_um(rng, 300, 1000, 10)
    deck = f"{a}.extents.width({value(w)})" + out(cat, f"{a} extent < {value(w)} um")
    text = say(rng, ("The bounding box of each {a} polygon must measure at least {w} {u} in both x and y.",), a=a, w=w)
    W, scenes = nm(w), []
    for d, s in free(cat, "extents").offsets(W):
        scenes += [Scene(f"{cat}_ex_x_{s}", rect(a, 0, 0, W + d, 2 * W)),
                   Scene(f"{cat}_ex_ell_{s}", l_shape(a, 0, 0, 100, W + d))]
    return Rule(cat, text, deck, (a,), {cat: w}, tuple(scenes))


def universal(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    """Universal DRC expressions (``layer.drc(...)``)."""
    v = draw_um(rng, 100, 400)
    area, per = round(v * v * 4, 4), round(v * 10, 3)
    variant = _pick(k, (
        (f"{a}.drc(width < {value(v)})", "The width of {a} must be at least {v} {u}.", "width"),
        (f"{a}.drc(space(projection) < {value(v)})",
         "Facing parallel {a} edges must be at least {v} {u} apart.", "space"),
        (f"{a}.drc(if_any(area < {value(area)}, perimeter < {value(per)}))",
         "Every {a} polygon needs an area of at least {ar} {u}² and a perimeter of at least {pe} {u}.", "areaper"),
        (f"{a}.drc(separation({b}) < {value(v)})", "{a} to {b} spacing must be at least {v} {u}.", "sep"),
        (f"{a}.drc(enclosing({b}) < {value(v)})", "{a} must enclose {b} by {v} {u} or more.", "enc"),
        (f"{a}.drc(overlap({b}) < {value(v)})", "Overlap of {a} and {b} must be at least {v} {u}.", "ovl"),
        (f"{a}.drc(holes.area < {value(area)})", "Holes in {a} must have an area of at least {ar} {u}².", "holes"),
        (f"{a}.drc(primary.edges.length < {value(v)})", "Every {a} edge must be at least {v} {u} long.", "edges"),
        (f"{a}.drc(notch < {value(v)})", "Notches within one {a} polygon must be at least {v} {u} wide.", "notch"),
        (f"{a}.drc(isolated < {value(v)})", "Separate {a} polygons must be at least {v} {u} apart.", "iso"),
        (f"{a}.drc((primary & secondary({b})).area >= {value(area)})",
         "The overlap area of an {a} shape and {b} must stay below {ar} {u}².", "ovlarea"),
        (f"{a}.drc(if_all(bbox_width < {value(v)}, bbox_height < {value(v)}))",
         "{a} shapes whose bounding box is smaller than {v} {u} in both x and y are not allowed.", "bbox"),
    ))
    deck, template, tag = variant
    text = say(rng, (template,), a=a, b=b, v=v, ar=area, pe=per)
    V = nm(v)
    scenes = {
        "width": lambda: probes.width_scenes(cat, a, V), "space": lambda: probes.space_scenes(cat, a, a, V),
        "areaper": lambda: probes.area_scenes(cat, a, round(area * 1e6), 150) + _shape_zoo(cat, a),
        "sep": lambda: probes.space_scenes(cat, a, b, V), "enc": lambda: probes.enclosure_scenes(cat, b, a, V),
        "ovl": lambda: probes.overlap_scenes(cat, a, b, V),
        "holes": lambda: probes.hole_scenes(cat, a, round(area * 1e6)),
        "edges": lambda: _short_edge_scenes(cat, a, V), "notch": lambda: probes.space_scenes(cat, a, a, V),
        "iso": lambda: probes.space_scenes(cat, a, a, V),
        "ovlarea": lambda: [Scene(f"{cat}_oa_{s}",
                                  rect(a, 0, 0, 2000, 2000) + rect(b, 1000, 1000, 1000 + 2 * V, 1000 + 2 * V + d))
                            for d, s in free(cat, "overlap_area").offsets(V)]
        + [Scene(f"{cat}_oa_edge", rect(a, 0, 0, 2000, 2000) + rect(b, 2000 - V, 0, 2000 + V, 4 * V + 1))],
        "bbox": lambda: [Scene(f"{cat}_bx_{s}_{t}", rect(a, 0, 0, V + d, V + e))
                         for d, s in free(cat, "bbox_x").offsets(V) for e, t in free(cat, "bbox_y").offsets(V)],
    }[tag]()
    return Rule(cat, text, deck + out(cat, f"{a} universal {tag}"), (a, b), {cat: v}, tuple(scenes),
                Enclosure(b, a, b, a) if tag == "enc" else None)


def edge_angle(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    method, deck_tail, meaning = _pick(k, (
        ("with_angle", "edges.with_angle(45)", "{a} edges at +45 degrees are not allowed"),
        ("with_angle", "edges.with_angle(-45)", "{a} edges at -45 degrees (135 degrees) are not allowed"),
        ("range", "edges.with_angle(1, 89)",
         "{a} edges must be horizontal, vertical or run at an angle in the second/fourth quadrant; "
         "angles strictly between 0 and 90 degrees are not allowed"),
        ("octagonal", "edges.without_angle(0).without_angle(90).without_angle(45).without_angle(-45)",
         "{a} edges must be multiples of 45 degrees"),
    ))
    text = say(rng, (meaning + ".",), a=a)
    m = free(cat, "edge_angle").pick(1, (2, 3))  # a magnification keeps every angle
    mirror = [(0, 0), (300 * m, 0), (-700 * m, 1000 * m), (-1000 * m, 1000 * m)]
    scenes = _shape_zoo(cat, a) + [Scene(f"{cat}_an_mirror", polygon(a, mirror)),
                                   Scene(f"{cat}_an_oct", polygon(a, [(x * m, y * m) for x, y in (
                                       (100, 0), (300, 0), (400, 100), (400, 300), (300, 400), (100, 400), (0, 300),
                                       (0, 100))]))]
    for rise in (17, 26):  # edges at about 1.0 and 1.5 degrees (and 89.0 / 88.5 degrees)
        run, step = 1000 * m, rise * m
        scenes += [Scene(f"{cat}_an_flat{rise}", polygon(a, [(0, 0), (run, step), (run, 400), (0, 400)])),
                   Scene(f"{cat}_an_steep{rise}", polygon(a, [(0, 0), (400, 0), (400, run), (step, run)]))]
    return Rule(cat, text, f"{a}.{deck_tail}" + out(cat, f"{a} edge angle {method}"), (a,), {}, tuple(scenes))


def area_window(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    lo = draw_um(rng, 100, 400, 10)
    hi = round(lo * rng.choice((2, 3, 4)), 3)
    deck = f"{a}.without_area({value(lo)}, {value(hi)})" + out(cat, f"{a} area outside [{value(lo)}, {value(hi)}) um2")
    text = say(rng, ("The area of every {a} polygon must be at least {lo} {u}² and below {hi} {u}².",
                      "{a} shapes are only legal with an area from {lo} {u}² (inclusive) up to {hi} {u}² (exclusive)."),
               a=a, lo=lo, hi=hi)
    scenes = (probes.area_scenes(f"{cat}_lo", a, round(lo * 1e6), 200)
              + probes.area_scenes(f"{cat}_hi", a, round(hi * 1e6), 200))
    return Rule(cat, text, deck, (a,), {f"{cat}_min": lo, f"{cat}_max": hi}, tuple(scenes))


def reference_point(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    method, meaning = _pick(k, (
        ("middle(as_boxes)", "the centre of the bounding box of every {a} shape must lie inside {b}"),
        ("extent_refs(0.5, 0.5)", "the centre of the bounding box of each {a} polygon must be covered by {b}"),
        ("extent_refs(0.0, 0.0)",
         "the lower-left corner of the bounding box of each {a} polygon must be covered by {b}"),
    ))
    deck = f"{a}.{method}.not_inside({b})" + out(cat, f"{a} reference point not in {b}")
    text = say(rng, (meaning + ".",), a=a, b=b)
    s = free(cat, "reference_point").size(400, grid=40)
    square, q = rect(a, 0, 0, s, s), 3 * s // 8  # q: between the square's lower-left corner and its centre
    scenes = [Scene(f"{cat}_rp_in", square + rect(b, -50, -50, s + 50, s + 50)),
              Scene(f"{cat}_rp_half", square + rect(b, q, q, s + 50, s + 50)),
              Scene(f"{cat}_rp_ll", square + rect(b, -50, -50, q, q)),
              Scene(f"{cat}_rp_none", square),
              Scene(f"{cat}_rp_ell", l_shape(a, 0, 0, 100, 800) + rect(b, 300, 300, 500, 500)),
              Scene(f"{cat}_rp_edge", square + rect(b, s // 2, 0, s + 50, s + 50))]
    return Rule(cat, text, deck, (a, b), {}, tuple(scenes))


def edge_centre_contact(rng: random.Random, cat: str, a: str, b: str, k: int) -> Rule:
    length = draw_um(rng, 50, 200)
    deck = f"{a}.edges.centers({value(length)}, 0).interacting({b})" + out(cat, f"{b} at {a} edge centre")
    text = say(rng, ("{b} must not touch the central {l} {u} of any {a} edge.",
                      "Keep {b} off the middle {l} {u} of every {a} edge (edge ends may touch)."), a=a, b=b, l=length)
    L, f = nm(length), free(cat, "edge_centre")
    side, bw, hw = f.size(1000, grid=10), f.size(200), f.size(50)  # the square, the other shape's width, half height
    c, (out_, _), _, (in_, _) = side // 2, *f.offsets(L // 2)
    square = rect(a, 0, 0, side, side)
    scenes = [Scene(f"{cat}_ec_mid", square + rect(b, side, c - hw, side + bw, c + hw)),
              Scene(f"{cat}_ec_end", square + rect(b, side, 0, side + bw, 100)),
              Scene(f"{cat}_ec_lim_in", square + rect(b, side, 0, side + bw, c - L // 2 + in_)),
              Scene(f"{cat}_ec_lim_out", square + rect(b, side, 0, side + bw, c - L // 2 + out_)),
              Scene(f"{cat}_ec_far", square + rect(b, side + 100, c - hw, side + bw, c + hw))]
    return Rule(cat, text, deck, (a, b), {cat: length}, tuple(scenes))


KINDS: dict[str, Kind] = {f.__name__: f for f in (
    manhattan, rectangles_only, aspect_ratio, area_ratio, perimeter, holes_allowed, on_grid, odd_polygons, bbox_size,
    selection, edge_inside_length, line_end_keepout, metric_space, alias_two_layer, directional_keepout, pulled_width,
    short_edges, companion_layer, via_count, double_drawn, merged_width, extent_size, universal, edge_angle,
    area_window, reference_point, edge_centre_contact,
)}
"""Kind name -> constructor ``(rng, category, layer_a, layer_b) -> Rule``."""

NAMES_A = ("met", "rdl", "pad", "cap", "res", "fuse", "topm", "bump")
NAMES_B = ("cut", "blk", "ind", "dum", "tsv", "mark", "pin", "seal")


VARIANTS = {"selection": 10, "metric_space": 11, "universal": 12, "alias_two_layer": 5, "reference_point": 3}
"""Tasks per kind where a kind has more variants than the default ``PER_KIND``."""
PER_KIND = 4


def syntax_drafts(rng: random.Random) -> list[TaskDraft]:
    """For each kind, one task per variant (at least ``PER_KIND``), in a seeded order."""
    plan = [(kind, k) for kind in sorted(KINDS) for k in range(VARIANTS.get(kind, PER_KIND))]
    rng.shuffle(plan)
    drafts = []
    for i, (kind, k) in enumerate(plan):
        a, b = rng.choice(NAMES_A), rng.choice(NAMES_B)
        la, lb = rng.sample(range(1, 256), 2)
        rule = KINDS[kind](rng, f"{''.join(w[0] for w in kind.split('_'))}_1", a, b, k)
        layers = {a: (la, rng.choice((0, 0, 2))), b: (lb, rng.choice((0, 0, 2)))}
        drafts.append(TaskDraft(f"syntax-{i:04d}", kind.replace("_", " "), "syntax", "train", layers, (rule,),
                                {"kind": kind}))
    return drafts
