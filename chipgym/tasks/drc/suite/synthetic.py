"""Advanced-node style rules: conditional checks built from chained DSL operations.

Layer names follow foundry conventions (``m1``, ``v1``, ``od``, ``po``, ``co``,
``nw``, ``np``, ``pp``, ``cpo``); GDS numbers and thresholds are drawn per task.

>>> import random
>>> drafts = synthetic_drafts(random.Random(0))
>>> len(drafts) >= 100, drafts[0].group
(True, 'synthetic')
"""
from __future__ import annotations

import random
from typing import Callable

from chipgym.tasks.drc.suite import probes
from chipgym.tasks.drc.suite.checks import draw_um, nm, out
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, rect
from chipgym.tasks.drc.suite.phrasing import say, value
from chipgym.tasks.drc.suite.rule import Enclosure, Rule, TaskDraft

Kind = Callable[[random.Random, str, dict[str, str]], Rule]


def wide_space(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    """Wide-metal spacing: shapes with both bbox sides >= W need spacing >= S."""
    m, w, s = ly["metal"], draw_um(rng, 400, 1500, 10), draw_um(rng, 150, 400)
    deck = (f"{cat}_wide = {m}.with_bbox_min({value(w)}, nil)\n"
            f"({cat}_wide.separation({m}.not_interacting({cat}_wide), {value(s)}) + {cat}_wide.space({value(s)}))"
            f"{out(cat, f'wide {m} space < {value(s)} um')}")
    text = say(rng, (
        "{m} shapes whose bounding box is at least {w} {u} in both directions (wide metal) must be spaced at least "
        "{s} {u} from any other {m} shape.",
        "Wide {m} (bounding-box width and height both >= {w} {u}) requires a minimum spacing of {s} {u} "
        "to neighbouring {m}.",
        "Minimum spacing between wide {m} (min bounding-box dimension of {w} {u} or more) and any {m} is {s} {u}.",
    ), m=m, w=w, s=s)
    W, S, scenes, f = nm(w), nm(s), [], free(cat, "wide_space")
    for dw, sw in f.offsets(W):
        for ds, ss in f.offsets(S):
            scenes.append(Scene(f"{cat}_ws_{sw}_{ss}", rect(m, 0, 0, W + dw, W + dw)
                                + rect(m, W + dw + S + ds, 0, W + dw + S + ds + 150, W)))
        scenes.append(Scene(f"{cat}_ws_pair_{sw}",
                            rect(m, 0, 0, W, 2 * W) + rect(m, W + S + dw, 0, 2 * W + S + dw, 2 * W)))
    scenes.append(Scene(f"{cat}_ws_corner",
                        rect(m, 0, 0, W, W) + rect(m, W + S // 2, W + S // 2, W + S // 2 + 150, W + S)))
    scenes.append(Scene(f"{cat}_ws_widecorner",
                        rect(m, 0, 0, W, W) + rect(m, W + S // 2, W + S // 2, 2 * W + S // 2, 2 * W + S // 2)))
    scenes.append(Scene(f"{cat}_ws_narrow", rect(m, 0, 0, W - 1, 3 * W) + rect(m, W + S // 2, 0, W + S // 2 + 150, W)))
    return Rule(cat, text, deck, (m,), {f"{cat}_width": w, f"{cat}_space": s}, tuple(scenes))


def eol_space(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    """Line-end spacing: edges shorter than W (line ends) need S to facing edges."""
    m, w, s = ly["metal"], draw_um(rng, 100, 300), draw_um(rng, 100, 300)
    deck = (f"{m}.edges.with_length(nil, {value(w)}).separation({m}.edges, {value(s)}, projection)"
            f"{out(cat, f'{m} line-end space < {value(s)} um')}")
    text = say(rng, (
        "A {m} line end (an edge shorter than {w} {u}) must face other {m} edges at {s} {u} or more.",
        "End-of-line spacing of {m}: edges shorter than {w} {u} need at least {s} {u} to any facing {m} edge "
        "(parallel projection).",
        "Minimum {m} end-of-line space is {s} {u}; an end of line is any {m} edge shorter than {w} {u}.",
    ), m=m, w=w, s=s)
    W, S, scenes, f = nm(w), nm(s), [], free(cat, "eol_space")
    L = f.size(1500)
    for dw, sw in f.offsets(W):
        lw = W + dw
        for ds, ss in f.offsets(S):
            g = S + ds
            scenes.append(Scene(f"{cat}_eol_tip_{sw}_{ss}", rect(m, 0, 0, L, lw) + rect(m, L + g, 0, 2 * L + g, lw)))
            scenes.append(Scene(f"{cat}_eol_bar_{sw}_{ss}", rect(m, 0, 0, L, lw) + rect(m, L + g, -L, L + g + 400, L)))
    scenes.append(Scene(f"{cat}_eol_side", rect(m, 0, 0, L, W - 1) + rect(m, 0, W - 1 + S - 1, L, W + S + 400)))
    return Rule(cat, text, deck, (m,), {f"{cat}_eol_width": w, f"{cat}_space": s}, tuple(scenes))


def gate_length(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    po, od, lg = ly["poly"], ly["diff"], draw_um(rng, 30, 200)
    deck = f"{po}.and({od}).width({value(lg)}){out(cat, f'gate ({po} and {od}) width < {value(lg)} um')}"
    text = say(rng, (
        "The gate region ({po} AND {od}) must be at least {l} {u} wide in every direction "
        "(minimum channel length and width).",
        "Minimum width of the transistor gate, i.e. the overlap of {po} and {od}, is {l} {u}.",
        "Where {po} crosses {od}, the resulting gate shape must not be narrower than {l} {u}.",
    ), po=po, od=od, l=lg)
    L, scenes, f = nm(lg), [], free(cat, "gate_length")
    for d, sfx in f.offsets(L):
        scenes.append(Scene(f"{cat}_gl_cross_{sfx}", rect(od, 0, 0, 1000, 600) + rect(po, 400, -200, 400 + L + d, 800)))
        scenes.append(Scene(f"{cat}_gl_edge_{sfx}",
                            rect(od, 0, 0, 1000, 600) + rect(po, 1000 - L - d, -200, 1200, 800)))
        scenes.append(Scene(f"{cat}_gl_hier_{sfx}",
                            rect(od, 0, 0, 1000, 600, cell="SUB") + rect(po, 400, -200, 400 + L + d, 800)))
    scenes.append(Scene(f"{cat}_gl_field", rect(od, 0, 0, 1000, 600) + rect(po, 1200, -200, 1200 + L - 1, 800)))
    return Rule(cat, text, deck, (po, od), {cat: lg}, tuple(scenes))


def contact_on_gate(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    co, po, od = ly["cut"], ly["poly"], ly["diff"]
    deck = f"{co}.and({po}.and({od})){out(cat, f'{co} over gate')}"
    text = say(rng, (
        "{co} must not overlap a gate ({po} AND {od}); touching the gate edge is allowed.",
        "Contacts ({co}) placed on the transistor gate region ({po} over {od}) are forbidden.",
        "No area of {co} may lie over the intersection of {po} and {od}.",
    ), co=co, po=po, od=od)
    c, x = 150, 500 + free(cat, "contact_on_gate").size(200, grid=10)  # a contact's side, the gate's right edge
    base = rect(od, 0, 0, 1200, 600) + rect(po, 500, -300, x, 900)
    scenes = [
        Scene(f"{cat}_cg_on", base + rect(co, 525, 225, 675, 375)),
        Scene(f"{cat}_cg_abut", base + rect(co, x, 225, x + c, 375)),
        Scene(f"{cat}_cg_part", base + rect(co, x - 1, 225, x - 1 + c, 375)),
        Scene(f"{cat}_cg_polyfield", base + rect(co, 525, 700, 675, 850)),
        Scene(f"{cat}_cg_diff", base + rect(co, 100, 225, 250, 375)),
        Scene(f"{cat}_cg_corner", base + rect(co, x - 1, 599, x - 1 + c, 599 + c)),
        Scene(f"{cat}_cg_cornertouch", base + rect(co, x, 600, x + c, 600 + c)),
    ]
    return Rule(cat, text, deck, (co, po, od), {}, tuple(scenes))


def implant_enclosure(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    nw, od, np, e = ly["well"], ly["diff"], ly["nimp"], draw_um(rng, 100, 400)
    deck = f"{nw}.enclosing({od}.not({np}), {value(e)}){out(cat, f'{nw} enclosure of p-diff < {value(e)} um')}"
    text = say(rng, (
        "{nw} must enclose P-type diffusion ({od} NOT {np}) by at least {e} {u}.",
        "Minimum enclosure of {od} not covered by {np} by {nw} is {e} {u}.",
        "Diffusion ({od}) outside the {np} implant shall be enclosed by {nw} with a margin of {e} {u} or more.",
    ), nw=nw, od=od, np=np, e=e)
    base = probes.enclosure_scenes(cat, od, nw, nm(e), size=300)
    scenes = base + probes.covered(base, od, np, 20)
    half = [Scene(f"{s.name}_half", s.shapes + rect(np, 150, -2000, 3000, 3000)) for s in base[:2]]
    return Rule(cat, text, deck, (nw, od, np), {cat: e}, tuple(scenes + half),
                Enclosure(f"{od}.not({np})", nw, f"P-type diffusion ({od} NOT {np})", nw))


def redundant_via(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    m, v, w = ly["metal"], ly["via"], draw_um(rng, 300, 1200, 10)
    deck = f"{m}.with_bbox_min({value(w)}, nil).interacting({v}, 1, 1){out(cat, f'wide {m} with a single {v}')}"
    text = say(rng, (
        "A {m} shape with both bounding-box sides of at least {w} {u} that is connected to {v} "
        "must contain at least two {v}.",
        "Redundant vias: wide {m} (min bounding-box side {w} {u} or more) may not be connected through a single {v}.",
        "{m} plates of {w} x {w} {u} or larger need two or more {v} when they have any {v}.",
    ), m=m, v=v, w=w)
    W, scenes, f = nm(w), [], free(cat, "redundant_via")
    p = f.size(50)  # where the vias sit in the plate
    for d, sfx in f.offsets(W):
        side = W + d
        via = rect(v, p, p, p + 100, p + 100)
        scenes += [
            Scene(f"{cat}_rv_one_{sfx}", rect(m, 0, 0, side, side) + via),
            Scene(f"{cat}_rv_two_{sfx}", rect(m, 0, 0, side, side) + via + rect(v, p, p + 150, p + 100, p + 250)),
            Scene(f"{cat}_rv_none_{sfx}", rect(m, 0, 0, side, side)),
            Scene(f"{cat}_rv_long_{sfx}", rect(m, 0, 0, side, 3 * side) + rect(v, p, p, p + 100, p + 100, cell="SUB")),
        ]
    scenes.append(Scene(f"{cat}_rv_edge", rect(m, 0, 0, W, W) + rect(v, W, 50, W + 100, 150)))
    return Rule(cat, text, deck, (m, v), {cat: w}, tuple(scenes))


def eol_enclosure(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    """Via enclosure by horizontal metal: e1 on all sides and e2 at the line ends (left and right)."""
    m, v = ly["metal"], ly["via"]
    e1, e2 = draw_um(rng, 5, 30), draw_um(rng, 40, 90)
    ends = f"{m}.edges.with_angle(90).enclosing({v}.edges.with_angle(90), {value(e2)}, projection)"
    deck = (f"({m}.enclosing({v}, {value(e1)}) + {ends})"
            f"{out(cat, f'{v} enclosure by {m} < {value(e1)} um, or < {value(e2)} um left/right')}")
    text = say(rng, (
        "{v} must be enclosed by {m} by at least {a} {u} on all sides, and by at least {b} {u} on its left and right "
        "sides ({m} runs horizontally).",
        "Enclosure of {v} by {m}: {a} {u} minimum everywhere; at the left and right (line-end) sides {b} {u} or more.",
        "{m} shall enclose {v} by {a} {u} or more on every side and by {b} {u} or more in the x direction "
        "(end-of-line enclosure).",
    ), m=m, v=v, a=e1, b=e2)
    E1, E2, scenes, f = nm(e1), nm(e2), [], free(cat, "eol_enclosure")
    s = f.size(100)
    for d1, s1 in f.offsets(E1):
        for d2, s2 in f.offsets(E2):
            scenes.append(Scene(f"{cat}_te_h_{s1}_{s2}",
                                rect(m, -(E2 + d2), -(E1 + d1), s + E2 + d2, s + E1 + 1) + rect(v, 0, 0, s, s)))
        scenes.append(Scene(f"{cat}_te_adj_{s1}",
                            rect(m, -(E2 + 5), -(E1 + d1), s + E1 + 5, s + E2 + 5) + rect(v, 0, 0, s, s)))
    scenes.append(Scene(f"{cat}_te_v", rect(m, -E1, -E2, s + E1, s + E2) + rect(v, 0, 0, s, s)))
    scenes.append(Scene(f"{cat}_te_all", rect(m, -E2, -E2, s + E2, s + E2) + rect(v, 0, 0, s, s)))
    return Rule(cat, text, deck, (m, v), {cat: e1, f"{cat}_eol": e2}, tuple(scenes), Enclosure(v, m, v, m, whole=True))


def via_proximity_width(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    m, v, dist, w = ly["metal"], ly["via"], draw_um(rng, 100, 400), draw_um(rng, 100, 300)
    deck = (f"{m}.interacting({v}.sized({value(dist)})).width({value(w)})"
            f"{out(cat, f'{m} near {v} width < {value(w)} um')}")
    text = say(rng, (
        "{m} shapes that come within {d} {u} of a {v} (touching at exactly {d} {u} included) "
        "must be at least {w} {u} wide.",
        "Minimum width of {m} at a distance of {d} {u} or less from {v} is {w} {u}; the whole {m} shape is checked.",
    ), m=m, v=v, d=dist, w=w)
    D, W, scenes = nm(dist), nm(w), []
    f = free(cat, "via_proximity_width")
    for dd, sd in f.offsets(D)[1:]:
        for dw, sw in f.offsets(W):
            scenes.append(Scene(f"{cat}_vp_{sd}_{sw}", rect(v, 0, 0, 100, 100)
                                + rect(m, 100 + D + dd, -500, 100 + D + dd + W + dw, 600)))
    scenes.append(Scene(f"{cat}_vp_diag",
                        rect(v, 0, 0, 100, 100) + rect(m, 100 + D - 10, 100 + D - 10, 100 + D + W - 11, 1500)))
    scenes.append(Scene(f"{cat}_vp_over", rect(v, 0, 0, 100, 100) + rect(m, -50, -500, W - 51, 600)))
    return Rule(cat, text, deck, (m, v), {f"{cat}_dist": dist, f"{cat}_width": w}, tuple(scenes))


def small_hole(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    m, v, a = ly["metal"], ly["via"], draw_um(rng, 100, 600, 10)
    deck = (f"{m}.holes.with_area(nil, {value(a)}).not_interacting({v})"
            f"{out(cat, f'{m} hole < {value(a)} um2 without {v}')}")
    text = say(rng, (
        "Holes in {m} smaller than {a} {u}² are not allowed unless the hole contains a {v}.",
        "Minimum {m} hole area is {a} {u}²; holes that hold a {v} are exempt.",
    ), m=m, v=v, a=a)
    base = probes.hole_scenes(cat, m, round(a * 1e6))
    with_via = [Scene(f"{s.name}_via", s.shapes + rect(v, 20, 20, 80, 80)) for s in base[:2]]
    return Rule(cat, text, deck, (m, v), {cat: a}, tuple(base + with_via))


def floating_area(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    m, v, a = ly["metal"], ly["via"], draw_um(rng, 50, 500, 5)
    deck = f"{m}.not_interacting({v}).with_area(nil, {value(a)}){out(cat, f'unconnected {m} area < {value(a)} um2')}"
    text = say(rng, (
        "{m} shapes without any {v} must have an area of at least {a} {u}².",
        "Minimum area of {m} not touching {v} is {a} {u}².",
    ), m=m, v=v, a=a)
    base = probes.area_scenes(cat, m, round(a * 1e6), 150)
    with_via = [Scene(f"{s.name}_via", s.shapes + rect(v, 20, 20, 80, 80)) for s in base[:2]]
    return Rule(cat, text, deck, (m, v), {cat: a}, tuple(base + with_via))


def cut_poly_endcap(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    po, od, cpo, e = ly["poly"], ly["diff"], ly["cutpoly"], draw_um(rng, 50, 200)
    deck = (f"{cat}_po = {po}.not({cpo})\n"
            f"{cat}_po.edges.enclosing({cat}_po.and({od}).edges.not({cat}_po.edges), {value(e)}, projection)"
            f"{out(cat, f'{po} endcap after {cpo} < {value(e)} um')}")
    text = say(rng, (
        "After cutting {po} with {cpo}, the remaining {po} must extend at least {e} {u} beyond {od} (gate endcap).",
        "Endcap rule: ({po} NOT {cpo}) shall extend past {od} by {e} {u} or more.",
    ), po=po, cpo=cpo, od=od, e=e)
    base = probes.extension_scenes(cat, od, po, nm(e))
    E, scenes = nm(e), []
    for d, sfx in free(cat, "cut_poly_endcap").offsets(E):
        scenes.append(Scene(f"{cat}_cp_cut_{sfx}", rect(od, 0, 0, 1800, 600) + rect(po, 600, -1000, 750, 1600)
                            + rect(cpo, 400, 600 + E + d, 1000, 800)))
    return Rule(cat, text, deck, (po, od, cpo), {cat: e}, tuple(base + scenes))


def implant_coverage(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    od, np, pp = ly["diff"], ly["nimp"], ly["pimp"]
    deck = f"{od}.not({np}.or({pp})).or({od}.and({np}).and({pp})){out(cat, f'{od} not covered by exactly one implant')}"
    text = say(rng, (
        "Every part of {od} must be covered by exactly one implant: {np} or {pp}, never both and never neither.",
        "{od} regions without implant ({np} or {pp}) or with both implants are not allowed.",
    ), od=od, np=np, pp=pp)
    f = free(cat, "implant_coverage")
    w, h, m = f.size(600, grid=10), f.size(400), f.size(100)  # the diff, the implants' margin around it
    d, half, x1, y1 = rect(od, 0, 0, w, h), w // 2, w + m, h + m
    scenes = [
        Scene(f"{cat}_ic_n", d + rect(np, -m, -m, x1, y1)),
        Scene(f"{cat}_ic_p", d + rect(pp, -m, -m, x1, y1)),
        Scene(f"{cat}_ic_both", d + rect(np, -m, -m, x1, y1) + rect(pp, -m, -m, x1, y1)),
        Scene(f"{cat}_ic_none", d),
        Scene(f"{cat}_ic_split", d + rect(np, -m, -m, half, y1) + rect(pp, half, -m, x1, y1)),
        Scene(f"{cat}_ic_gap", d + rect(np, -m, -m, half - 1, y1) + rect(pp, half, -m, x1, y1)),
        Scene(f"{cat}_ic_overlap", d + rect(np, -m, -m, half + 1, y1) + rect(pp, half, -m, x1, y1)),
        Scene(f"{cat}_ic_hier", d + rect(np, -m, -m, half, y1, cell="SUB") + rect(pp, half, -m, x1, y1)),
    ]
    return Rule(cat, text, deck, (od, np, pp), {}, tuple(scenes))


def run_length_space(rng: random.Random, cat: str, ly: dict[str, str]) -> Rule:
    m, p, s = ly["metal"], draw_um(rng, 500, 2000, 50), draw_um(rng, 150, 400)
    deck = (f"{m}.space({value(s)}, projection, projection_limits({value(p)}, nil))"
            f"{out(cat, f'{m} long-run space < {value(s)} um')}")
    text = say(rng, (
        "{m} edges running in parallel for {p} {u} or more must be spaced at least {s} {u} apart.",
        "Parallel run-length spacing: when the facing length of two {m} edges is {p} {u} or longer, "
        "their spacing must be {s} {u} or more.",
    ), m=m, p=p, s=s)
    P, S, scenes, f = nm(p), nm(s), [], free(cat, "run_length_space")
    w = f.size(200)
    for dp, sp in f.offsets(P)[:2]:
        for ds, ss in f.offsets(S):
            scenes.append(Scene(f"{cat}_rl_{sp}_{ss}",
                                rect(m, 0, 0, w, 3 * P) + rect(m, w + S + ds, 0, 2 * w + S + ds, P + dp)))
    scenes.append(Scene(f"{cat}_rl_notch", rect(m, 0, 0, w, P) + rect(m, w + S - 1, 0, 2 * w + S - 1, P)
                        + rect(m, 0, P, 2 * w + S - 1, P + w)))
    return Rule(cat, text, deck, (m,), {f"{cat}_run": p, f"{cat}_space": s}, tuple(scenes))


KINDS: dict[str, Kind] = {
    "wide_space": wide_space, "eol_space": eol_space, "gate_length": gate_length,
    "contact_on_gate": contact_on_gate, "implant_enclosure": implant_enclosure, "redundant_via": redundant_via,
    "eol_enclosure": eol_enclosure, "via_proximity_width": via_proximity_width, "small_hole": small_hole,
    "floating_area": floating_area, "cut_poly_endcap": cut_poly_endcap, "implant_coverage": implant_coverage,
    "run_length_space": run_length_space,
}

ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "metal": ("m1", "m2", "m3", "mx"), "via": ("v1", "v2", "vx"), "diff": ("od", "rx", "aa"),
    "poly": ("po", "pc", "gc"), "cut": ("co", "ct"), "well": ("nw", "nwel"), "nimp": ("np", "sn"),
    "pimp": ("pp", "sp"), "cutpoly": ("cpo", "pcut"),
}


def _initials(kind: str) -> str:
    """``"wide_space"`` -> ``"ws"``: short category stems."""
    return "".join(word[0] for word in kind.split("_"))


def _layer_map(rng: random.Random) -> tuple[dict[str, str], dict[str, tuple[int, int]]]:
    names = {role: rng.choice(options) for role, options in ROLE_NAMES.items()}
    numbers = rng.sample(range(1, 256), len(names))
    layers = {names[role]: (num, rng.choice((0, 0, 1, 20))) for role, num in zip(ROLE_NAMES, numbers)}
    return names, layers


def synthetic_drafts(rng: random.Random, per_kind: int = 6, combos: int = 25) -> list[TaskDraft]:
    """``per_kind`` single-rule tasks per kind, then ``combos`` two-rule tasks."""
    plans = ([[k] for k in KINDS for _ in range(per_kind)]
             + [sorted(rng.sample(sorted(KINDS), 2)) for _ in range(combos)])
    drafts = []
    for i, kinds in enumerate(plans):
        names, layers = _layer_map(rng)
        rules = tuple(KINDS[k](rng, f"{_initials(k)}_{j + 1}", names) for j, k in enumerate(kinds))
        title = " + ".join(k.replace("_", " ") for k in kinds)
        drafts.append(TaskDraft(f"synthetic-{i:04d}", title, "synthetic", "train", layers, rules,
                                {"kinds": list(kinds)}))
    return drafts
