"""Rule constructors for the classic single-check kinds (width, spacing, enclosure, ...).

Each returns a :class:`~chipgym.tasks.drc.suite.rule.Rule` with manual-style text,
deck lines and the discriminating scenes of :mod:`~chipgym.tasks.drc.suite.probes`.
Thresholds are in um; scenes use integer dbu (1 nm).

>>> import random
>>> r = width_rule(random.Random(0), "m1_1", "met1", 0.14)
>>> r.deck
'met1.width(0.14).output("m1_1", "m1_1: met1 width < 0.14 um")'
"""
from __future__ import annotations

import random

from chipgym.tasks.drc.suite import probes
from chipgym.tasks.drc.suite.phrasing import phrase, value
from chipgym.tasks.drc.suite.rule import Enclosure, Rule


def nm(um: float) -> int:
    """Micrometers to database units (1 nm)."""
    return round(um * 1000)


def draw_um(rng: random.Random, lo: int, hi: int, step: int = 5) -> float:
    """A threshold in um drawn on a ``step`` nm grid within [lo, hi] nm."""
    return rng.randrange(lo, hi + 1, step) / 1000


def out(cat: str, what: str) -> str:
    """The ``.output`` call of a rule."""
    return f'.output("{cat}", "{cat}: {what}")'


def width_rule(rng: random.Random, cat: str, a: str, v: float) -> Rule:
    deck = f"{a}.width({value(v)}){out(cat, f'{a} width < {value(v)} um')}"
    return Rule(cat, phrase(rng, "width", a=a, v=v), deck, (a,), {cat: v}, tuple(probes.width_scenes(cat, a, nm(v))))


def space_rule(rng: random.Random, cat: str, a: str, v: float) -> Rule:
    deck = f"{a}.space({value(v)}){out(cat, f'{a} space < {value(v)} um')}"
    return Rule(cat, phrase(rng, "space", a=a, v=v), deck, (a,), {cat: v}, tuple(probes.space_scenes(cat, a, a, nm(v))))


def notch_rule(rng: random.Random, cat: str, a: str, v: float) -> Rule:
    deck = f"{a}.notch({value(v)}){out(cat, f'{a} notch < {value(v)} um')}"
    return Rule(cat, phrase(rng, "notch", a=a, v=v), deck, (a,), {cat: v}, tuple(probes.space_scenes(cat, a, a, nm(v))))


def separation_rule(
    rng: random.Random, cat: str, a: str, b: str, v: float,
    where: str = "", other: str = "", a_text: str = "", metric: str = "",
) -> Rule:
    """Spacing of ``a`` to ``b``; with ``where="inside"``/``"outside"`` only ``a`` shapes inside/outside ``other``."""
    opt = f", {metric}" if metric else ""
    subject = f"{a}.{where}({other})" if where else a
    deck = f"{subject}.separation({b}, {value(v)}{opt}){out(cat, f'{a} to {b} space < {value(v)} um')}"
    text = phrase(rng, "separation", a=a_text or a, b=b, v=v)
    if metric == "projection":
        text += " Only facing parallel edges are checked."
    scenes = probes.space_scenes(cat, a, b, nm(v))
    if where:
        scenes += probes.covered(scenes, a, other) + probes.covered(scenes[:4], a, other, -30, "straddle")
    return Rule(cat, text, deck, tuple(dict.fromkeys((a, b, other) if other else (a, b))), {cat: v}, tuple(scenes))


def enclosure_rule(rng: random.Random, cat: str, inner: str, outer: str, v: float, size: float = 0.2,
                   whole: bool = False) -> Rule:
    deck = f"{outer}.enclosing({inner}, {value(v)}){out(cat, f'{inner} enclosure by {outer} < {value(v)} um')}"
    scenes = probes.enclosure_scenes(cat, inner, outer, nm(v), size=nm(size))
    return Rule(cat, phrase(rng, "enclosure", a=inner, b=outer, v=v), deck, (inner, outer), {cat: v}, tuple(scenes),
                Enclosure(inner, outer, inner, outer, whole))


def overlap_rule(rng: random.Random, cat: str, a: str, b: str, v: float) -> Rule:
    deck = f"{a}.overlap({b}, {value(v)}){out(cat, f'{a} overlap of {b} < {value(v)} um')}"
    return Rule(cat, phrase(rng, "overlap", a=a, b=b, v=v), deck, (a, b), {cat: v},
                tuple(probes.overlap_scenes(cat, a, b, nm(v))))


def extension_rule(rng: random.Random, cat: str, ext: str, base: str, v: float) -> Rule:
    """``ext`` must extend beyond ``base`` where they cross (gate-style endcap/extension)."""
    crossing = f"{ext}.and({base}).edges.not({ext}.edges)"  # where the gate meets the edge of base
    deck = (f"{ext}.edges.enclosing({crossing}, {value(v)}, projection)"
            f"{out(cat, f'{ext} extension beyond {base} < {value(v)} um')}")
    scenes = probes.extension_scenes(cat, base, ext, nm(v))
    return Rule(cat, phrase(rng, "extension", a=ext, b=base, v=v), deck, (ext, base), {cat: v}, tuple(scenes))


def area_rule(rng: random.Random, cat: str, a: str, v: float, width: float) -> Rule:
    deck = f"{a}.with_area(nil, {value(v)}){out(cat, f'{a} area < {value(v)} um2')}"
    scenes = probes.area_scenes(cat, a, round(v * 1e6), nm(width))
    return Rule(cat, phrase(rng, "area", a=a, v=v), deck, (a,), {cat: v}, tuple(scenes))


def hole_rule(rng: random.Random, cat: str, a: str, v: float) -> Rule:
    deck = f"{a}.holes.with_area(nil, {value(v)}){out(cat, f'{a} hole area < {value(v)} um2')}"
    return Rule(cat, phrase(rng, "hole", a=a, v=v), deck, (a,), {cat: v},
                tuple(probes.hole_scenes(cat, a, round(v * 1e6))))


def inside_rule(rng: random.Random, cat: str, inner: str, outer: str) -> Rule:
    deck = f"{inner}.not_inside({outer}){out(cat, f'{inner} not inside {outer}')}"
    return Rule(cat, phrase(rng, "inside", a=inner, b=outer), deck, (inner, outer), {},
                tuple(probes.inside_scenes(cat, inner, outer)))


def interact_rule(rng: random.Random, cat: str, a: str, b: str) -> Rule:
    deck = f"{a}.not_interacting({b}){out(cat, f'{a} not overlapping {b}')}"
    return Rule(cat, phrase(rng, "interact", a=a, b=b), deck, (a, b), {}, tuple(probes.inside_scenes(cat, a, b)))


def exact_rule(rng: random.Random, cat: str, a: str, v: float) -> Rule:
    deck = (f"{a}.non_squares.or({a}.squares.without_bbox_width({value(v)}))"
            f"{out(cat, f'{a} not a {value(v)} um square')}")
    return Rule(cat, phrase(rng, "exact", a=a, v=v), deck, (a,), {cat: v},
                tuple(probes.exact_size_scenes(cat, a, nm(v))))
