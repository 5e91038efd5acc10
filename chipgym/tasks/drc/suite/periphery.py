"""Rule constructors for SKY130 periphery rules: checks on derived layers, area-id exemptions, implants.

A :class:`Subject` is what a rule checks: a drawn layer, possibly ANDed with others (a gate is
``poly.and(diff)``, p+ diffusion ``diff.and(psdm)``) and possibly restricted by an area-id zone
(``.not_inside(areaid_ce)``: exempt inside the SRAM core).  Probe scenes are drawn for the
subject's base layer and then *dressed*: copies of the base shapes on the ANDed layers, one
large rectangle on the implant/well layers, exempt copies (covered by the zone) and straddling
copies of the failing scenes, and decoys missing one component (no subject at all).

>>> import random
>>> pdiff = Subject("diff", under=("psdm",), zone="uhvi", words="p+ diff")
>>> pdiff.expr()
'diff.and(psdm).not_inside(uhvi)'
>>> r = enclosure(random.Random(0), "difftap.8", pdiff, "nwell", 0.18)
>>> r.deck.split(".output")[0]
'nwell.enclosing(diff.and(psdm).not_inside(uhvi), 0.18)'
>>> len(r.scenes) >= 10, r.layers
(True, ('diff', 'psdm', 'uhvi', 'nwell'))
"""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, replace

from chipgym.tasks.drc.suite import probes
from chipgym.tasks.drc.suite.checks import nm, out
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, Shape, polygon, rect, ring
from chipgym.tasks.drc.suite.manual import manual, zone_clause, zone_name
from chipgym.tasks.drc.suite.phrasing import value
from chipgym.tasks.drc.suite.rule import Enclosure, Rule, Spacing


def category(rule_name: str) -> str:
    """``"difftap.1 (tap)"`` -> ``"difftap_1_tap"``: a word, which KLayout writes into a report unquoted (so
    the published Rule2DRC evaluator, which compares the report's text, matches it).

    >>> category("n/psd.5a (diff)"), category("licon.4 (poly/diff/tap)")
    ('nsd_5a_diff', 'licon_4_poly_diff_tap')
    """
    return "_".join(re.sub(r"[^A-Za-z0-9_]+", " ", rule_name.replace("n/psd", "nsd")).split())


@dataclass(frozen=True)
class Subject:
    """The shapes a rule checks: ``base`` ANDed with ``copies`` and ``under``, then kept ``mode`` ``zone``."""

    base: str
    copies: tuple[str, ...] = ()
    """Layers drawn as an exact copy of every base shape (a gate: poly copied onto diff)."""
    under: tuple[str, ...] = ()
    """Layers drawn as one rectangle under the whole scene (implants, wells)."""
    drawn: tuple[str, ...] = ()
    """Layers ANDed in that the probe scenes draw themselves (diff in the gate scenes)."""
    zone: str = ""
    mode: str = "not_inside"
    words: str = ""

    def expr(self) -> str:
        """The deck expression of the subject."""
        text = self.base + "".join(f".and({c})" for c in self.drawn + self.copies + self.under)
        return f"{text}.{self.mode}({self.zone})" if self.zone else text

    def name(self) -> str:
        """How rule texts call the subject."""
        return self.words or self.base

    def layers(self) -> tuple[str, ...]:
        return (self.base, *self.drawn, *self.copies, *self.under, *((self.zone,) if self.zone else ()))

    def clause(self, rng: random.Random) -> str:
        """The exemption sentence ('' without a zone)."""
        return zone_clause(rng, self.mode, self.name(), self.zone) if self.zone else ""

    def dress(self, scenes: list[Scene]) -> list[Scene]:
        """Zone copies of the failing scenes (and, for a rule checked only inside its zone, of the
        at-threshold ones), then every scene materialised, then decoys of failing and overlapping
        scenes (see module doc)."""
        if self.zone:
            failing = _pick(scenes, "_lt", 4) or scenes[:4]
            passing = _pick(scenes, "_eq", 4) if self.mode == "inside" else []
            scenes = (scenes + probes.covered(failing + passing, self.base, self.zone, 50, "zone")
                      + probes.covered(failing[:2], self.base, self.zone, -30, "zstraddle"))
        full = [materialise(s, self.base, self.copies, self.under) for s in scenes]
        picked = [s for mark, n in (("_lt", 2), ("in_inside", 1), ("in_straddle", 1)) for s in _pick(full, mark, n)]
        decoyed = list({s.name: s for s in picked or full[:2]}.values())
        return full + [without(s, layer) for s in decoyed for layer in self.drawn + self.copies + self.under]


def _pick(scenes: list[Scene], mark: str, n: int) -> list[Scene]:
    """Up to ``n`` scenes whose name ends with or contains ``mark``."""
    return [s for s in scenes if s.name.endswith(mark) or f"{mark}_" in s.name][:n]


def plain(layer: str) -> Subject:
    """A drawn layer checked everywhere."""
    return Subject(layer)


def materialise(scene: Scene, base: str, copies: tuple[str, ...], under: tuple[str, ...], pad: int = 600) -> Scene:
    """``scene`` with every ``base`` shape copied onto ``copies`` and one rectangle per ``under`` layer
    covering the whole scene (``pad`` dbu beyond its bounding box)."""
    extra = tuple(Shape(c, s.points, s.cell) for s in scene.shapes if s.layer == base for c in copies)
    if under and scene.shapes:
        xs = [x for s in scene.shapes for x, _ in s.points]
        ys = [y for s in scene.shapes for _, y in s.points]
        for layer in under:
            extra += rect(layer, min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    return Scene(scene.name, scene.shapes + extra)


def without(scene: Scene, layer: str) -> Scene:
    """A decoy: ``scene`` with no shape on ``layer``."""
    return Scene(f"{scene.name}_no_{layer}", tuple(s for s in scene.shapes if s.layer != layer))


def _rule(rng: random.Random, name: str, kind: str, subject: Subject, deck: str, other: tuple[str, ...],
          v: float | None, scenes: list[Scene], **fields: object) -> Rule:
    """A rule whose text names ``subject`` as ``a`` (plus ``fields``) and whose scenes are dressed."""
    cat = category(name)
    fields.setdefault("a", subject.name())
    text = manual(rng, name, kind, subject.clause(rng), **({"v": v} if v is not None else {}), **fields)
    layers = tuple(dict.fromkeys(subject.layers() + other))
    words = {"a": str(fields["a"]), "b": str(fields.get("b", "")), "z": zone_name(subject.zone or "")}
    return Rule(cat, text, deck + out(cat, _what(kind, subject, other, v)), layers,
                {cat: v} if v is not None else {}, tuple(subject.dress(scenes)), words=words)


def _what(kind: str, subject: Subject, other: tuple[str, ...], v: float | None) -> str:
    """The marker description (``"met1 width < 0.14 um"``)."""
    rest = f" {other[0]}" if other else ""
    return f"{subject.name()} {kind}{rest}" + (f" < {value(v)} um" if v is not None else "")


def width(rng: random.Random, name: str, s: Subject, v: float) -> Rule:
    return _rule(rng, name, "width", s, f"{s.expr()}.width({value(v)})", (), v,
                 probes.width_scenes(category(name), s.base, nm(v)))


def space(rng: random.Random, name: str, s: Subject, v: float) -> Rule:
    return _rule(rng, name, "space", s, f"{s.expr()}.space({value(v)})", (), v,
                 probes.space_scenes(category(name), s.base, s.base, nm(v)))


def separation(rng: random.Random, name: str, s: Subject, b: str, v: float, b_expr: str = "",
               b_words: str = "", metric: str = "", b_under: tuple[str, ...] = (), b_zone: str = "",
               butting: str | None = None) -> Rule:
    """Spacing of the subject to ``b``, or to ``b_expr`` (a derived ``b``: ``b`` ANDed with ``b_under``,
    drawn under every ``b`` shape, or ``b`` inside ``b_zone``, drawn around some of them). ``butting``: the
    layer whose butting edges of ``b`` the rule table exempts (:class:`~.rule.Spacing`)."""
    opt = f", {metric}" if metric else ""
    deck = f"{s.expr()}.separation({b_expr or b}, {value(v)}{opt})"
    scenes = probes.space_scenes(category(name), s.base, b, nm(v))
    if b_under:
        scenes = [materialise(sc, b, b_under, ()) for sc in scenes] + [
            without(materialise(sc, b, b_under, ()), layer) for sc in scenes[:2] for layer in b_under]
    if b_zone:
        scenes += probes.covered(scenes, b, b_zone) + probes.covered(scenes[:4], b, b_zone, -30, "straddle")
    layers = (b, *b_under, *((b_zone,) if b_zone else ()))
    r = _rule(rng, name, "separation", s, deck, layers, v, scenes, b=b_words or b)
    spacing = Spacing(s.expr(), s.base, b_expr or b, b_words or b, b, b_under, butting) if butting else None
    return replace(r, text=r.text + (" Only facing parallel edges are checked." if metric == "projection" else ""),
                   spacing=spacing)


def sep_no_overlap(rng: random.Random, name: str, s: Subject, b: str, v: float) -> Rule:
    """Spacing of the subject to ``b`` where an overlap is a violation as well."""
    deck = f"({s.expr()}.separation({b}, {value(v)}).edges + {s.expr()}.and({b}).edges)"
    scenes = probes.space_scenes(category(name), s.base, b, nm(v)) + presence_scenes(category(name), s.base, b)
    return _rule(rng, name, "sep_no_overlap", s, deck, (b,), v, scenes, b=b)


def enclosure(rng: random.Random, name: str, s: Subject, outer: str, v: float, size: float = 0.2,
              whole: bool = False, butting: str | None = None, straddles: bool = False) -> Rule:
    """The subject (inner) enclosed by ``outer`` by ``v`` (``whole``, ``butting``: see :class:`~.rule.Enclosure`).
    ``straddles``: signed-off cells draw the subject partly outside ``outer`` (a ring of nwell around deep nwell,
    lvtn over devices in and out of the well), so no revision may flag that (``benchmarks/sky130_cells.py``)."""
    deck = f"{outer}.enclosing({s.expr()}, {value(v)})"
    rule = _rule(rng, name, "enclosure", s, deck, (outer,), v,
                 probes.enclosure_scenes(category(name), s.base, outer, nm(v), nm(size)), b=outer)
    if straddles:
        return rule
    return replace(rule, enclosure=Enclosure(s.expr(), outer, s.name(), outer, whole, butting, s.base))


def encloses(rng: random.Random, name: str, s: Subject, inner: str, v: float, size: float = 0.2) -> Rule:
    """The subject (outer, e.g. capm or a marked resistor's implant) encloses ``inner`` by ``v``."""
    deck = f"{s.expr()}.enclosing({inner}, {value(v)})"
    rule = _rule(rng, name, "enclosure", s, deck, (inner,), v,
                 probes.enclosure_scenes(category(name), inner, s.base, nm(v), nm(size)), a=inner, b=s.name())
    return replace(rule, enclosure=Enclosure(inner, s.expr(), inner, s.name()))


def adjacent(rng: random.Random, name: str, s: Subject, outer: str, v: float, size: float = 0.17,
             isolated_from: str | None = None) -> Rule:
    """On every two adjacent sides of the subject at least one is enclosed by ``outer`` by ``v`` (so one
    pair of opposite sides is): a violation has a short horizontal and a short vertical enclosure
    (``isolated_from``: see :class:`~.rule.Enclosure`)."""
    cat = category(name)
    deck = (f"{cat}_e = {outer}.enclosing({s.expr()}, {value(v)}, projection)\n"
            f"{s.expr()}.interacting({cat}_e.second_edges.with_angle(0))"
            f".interacting({cat}_e.second_edges.with_angle(90))")
    rule = _rule(rng, name, "adjacent", s, deck, (outer,), v, adjacent_scenes(cat, s.base, outer, nm(v), nm(size)),
                 b=outer)
    return replace(rule, enclosure=Enclosure(s.expr(), outer, s.name(), outer, drawn=s.base,
                                             isolated_from=isolated_from))


def area(rng: random.Random, name: str, s: Subject, v: float, side: float) -> Rule:
    return _rule(rng, name, "area", s, f"{s.expr()}.with_area(nil, {value(v)})", (), v,
                 area_scenes(category(name), s.base, round(v * 1e6), nm(side)))


def area_scenes(tag: str, layer: str, a: int, side: int) -> list[Scene]:
    """:func:`probes.area_scenes` plus rectangles of 0.95 / 1.05 times the area and a large shape beside a
    small one."""
    h = math.ceil(a / side)
    return probes.area_scenes(tag, layer, a, side) + [
        Scene(f"{tag}_area_near", rect(layer, 0, 0, side, round(0.95 * h))),
        Scene(f"{tag}_area_far", rect(layer, 0, 0, side, round(1.05 * h))),
        Scene(f"{tag}_area_two", rect(layer, 0, 0, side, 3 * h) + rect(layer, 3 * side, 0, 4 * side, h - 1)),
    ]


def hole(rng: random.Random, name: str, s: Subject, v: float) -> Rule:
    a = round(v * 1e6)
    side = max(200, math.isqrt(a))
    h = math.ceil(a / side)
    scenes = probes.hole_scenes(category(name), s.base, a) + [
        Scene(f"{category(name)}_hole_{k}", ring(s.base, 0, 0, side, round(f * h), 400))
        for k, f in (("near", 0.95), ("far", 1.05))] + [
        Scene(f"{category(name)}_hole_two", ring(s.base, 0, 0, side, h - 1, 400) + ring(s.base, 0, h + 800, side,
                                                                                          2 * h, 400))]
    return _rule(rng, name, "hole", s, f"{s.expr()}.holes.with_area(nil, {value(v)})", (), v, scenes)


def exact(rng: random.Random, name: str, s: Subject, v: float) -> Rule:
    e = s.expr()
    return _rule(rng, name, "exact", s, f"{e}.non_squares.or({e}.squares.without_bbox_width({value(v)}))", (), v,
                 exact_scenes(category(name), s.base, nm(v)))


def presence_scenes(tag: str, a: str, b: str, size: int = 200) -> list[Scene]:
    """:func:`probes.inside_scenes` plus ``a`` inside ``b`` across cells, ``b`` inside ``a``, a corner
    overlap and two ``a`` shapes of which one is outside."""
    big = 500
    return probes.inside_scenes(tag, a, b, size) + [
        Scene(f"{tag}_in_sub", rect(b, -big, -big, size + big, size + big, cell="SUB") + rect(a, 0, 0, size, size)),
        Scene(f"{tag}_in_reverse", rect(a, -big, -big, size + big, size + big) + rect(b, 0, 0, size, size)),
        Scene(f"{tag}_in_corner", rect(b, size // 2, size // 2, size + big, size + big) + rect(a, 0, 0, size, size)),
        Scene(f"{tag}_in_pair", rect(b, -big, -big, size + big, size + big) + rect(a, 0, 0, size, size)
              + rect(a, size + 2 * big, 0, 2 * size + 2 * big, size)),
    ]


def exact_scenes(tag: str, layer: str, t: int) -> list[Scene]:
    """:func:`probes.exact_size_scenes` plus off-by-one rectangles, +-10 % squares and a square in a child cell."""
    extra = {"tall_lt": (t, t - 1), "wide_lt": (t - 1, t), "near": (round(0.9 * t),) * 2,
             "far": (round(1.1 * t),) * 2}
    x = free(tag, "exact").size(3 * t)  # where a second legal square sits
    return probes.exact_size_scenes(tag, layer, t) + [
        Scene(f"{tag}_size_{k}", rect(layer, 0, 0, w, h)) for k, (w, h) in extra.items()] + [
        Scene(f"{tag}_size_sub", rect(layer, 0, 0, t, t, cell="SUB") + rect(layer, x, 0, x + t, t))]


def inside(rng: random.Random, name: str, s: Subject, outer: str) -> Rule:
    return _rule(rng, name, "inside", s, f"{s.expr()}.not_inside({outer})", (outer,), None,
                 presence_scenes(category(name), s.base, outer), b=outer)


def no_overlap(rng: random.Random, name: str, s: Subject, b: str) -> Rule:
    return _rule(rng, name, "no_overlap", s, f"{s.expr()}.and({b})", (b,), None,
                 presence_scenes(category(name), s.base, b), b=b)


def straddle(rng: random.Random, name: str, s: Subject, b: str) -> Rule:
    """The subject partly inside and partly outside ``b`` (overlapping it, not inside it)."""
    return _rule(rng, name, "straddle", s, f"{s.expr()}.overlapping({b}).not_inside({b})", (b,), None,
                 presence_scenes(category(name), s.base, b), b=b)


def contain(rng: random.Random, name: str, s: Subject, inner: str, inner_under: tuple[str, ...] = (),
            words: str = "") -> Rule:
    """Every subject shape must cover at least one ``inner`` shape (``inner`` ANDed with ``inner_under``,
    drawn as copies of the inner shapes)."""
    target = inner + "".join(f".and({u})" for u in inner_under)
    deck = f"{s.expr()}.not_covering({target})"
    scenes = [materialise(sc, inner, inner_under, ()) for sc in presence_scenes(category(name), inner, s.base, 300)]
    scenes += [without(sc, layer) for sc in scenes[:2] for layer in inner_under]
    return _rule(rng, name, "contain", s, deck, (inner, *inner_under), None, scenes, b=words or inner)


def must_touch(rng: random.Random, name: str, s: Subject, bs: tuple[str, ...], words: str = "") -> Rule:
    """Every subject shape must touch or overlap one of ``bs``."""
    target = bs[0] + "".join(f".or({b})" for b in bs[1:])
    scenes = [sc for b in bs for sc in presence_scenes(f"{category(name)}_{b}", s.base, b)]
    return _rule(rng, name, "interact", s, f"{s.expr()}.not_interacting({target})", bs, None, scenes,
                 b=words or bs[0])


def overlaps_both(rng: random.Random, name: str, s: Subject, b: str, cs: tuple[str, ...], words: str) -> Rule:
    """The subject may not overlap both ``b`` and one of ``cs`` (a licon on poly and diff)."""
    target = cs[0] + "".join(f".or({c})" for c in cs[1:])
    deck = f"{s.expr()}.overlapping({b}).overlapping({target})"
    base = presence_scenes(category(name), s.base, b)
    scenes = base + [materialise(Scene(f"{sc.name}_{c}", sc.shapes), s.base, (c,), ()) for c in cs for sc in base]
    desc = (f"{{a}} may not overlap both {b} and ({words}).", f"{{a}} overlapping {b} and {words} at once is not "
            "allowed.", f"A {{a}} can not overlap {b} and {words} together.")
    return _rule(rng, name, "no_overlap", s, deck, (b, *cs), None, scenes, desc=desc)


def bent_gate(rng: random.Random, name: str, poly: str, diff: str) -> Rule:
    """No 90-degree turn of poly on diff: every gate (poly AND diff) is a rectangle."""
    deck = f"{poly}.and({diff}).non_rectangles"
    f = free(category(name), "bent_gate")
    x, h = f.size(900, grid=10), f.size(500, grid=10)  # the diff's right end and height
    ell = polygon(poly, [(0, -200), (150, -200), (150, 250), (600, 250), (600, 400), (0, 400)])
    active, line = rect(diff, -300, 0, x, h), rect(poly, 0, -200, 150, h + 200)
    cases = {"straight": active + line,
             "bent": active + ell,
             "bent_field": active + rect(poly, 0, -200, 150, h + 300) + rect(poly, 0, h + 150, 600, h + 300),
             "corner_diff": rect(diff, 0, 0, x, h) + rect(diff, 0, h, 400, h + 400)
             + rect(poly, 200, -200, 350, h + 600),
             "bent_nodiff": ell, "two": active + line + rect(poly, 500, -200, 650, h + 200, cell="SUB"),
             "tee": active + line + rect(poly, 150, 200, 600, 350),
             "bent_hier": rect(diff, -300, 0, x, h, cell="SUB") + ell,
             "abut": active + line + rect(poly, 150, -200, 300, h + 200),
             "beside": rect(diff, 300, 0, x, h) + ell}
    desc = ("No 90 deg turns of {a} on {b}.", "{a} may not bend by 90 degrees over {b}.",
            "{a} over {b} (the gate) must be a plain rectangle: no 90-degree turns.")
    return _rule(rng, name, "no_overlap", plain(poly), deck, (diff,), None,
                 [Scene(f"{category(name)}_{k}", v) for k, v in cases.items()], b=diff, desc=desc)


def poly_on_tap(rng: random.Random, name: str, poly: str, tap: str, nwell: str, hvi: str) -> Rule:
    """(poly NOT (nwell NOT hvi)) may not overlap tap: poly on tap is allowed only in low-voltage nwell."""
    deck = f"{poly}.not({nwell}.not({hvi})).and({tap})"
    f = free(category(name), "poly_on_tap")
    w, h = f.size(600, grid=10), f.size(400, grid=10)  # the tap
    t, pl = rect(tap, 0, 0, w, h), rect(poly, 200, -200, 350, h + 200)
    well, hv = rect(nwell, -500, -500, w + 500, h + 500), rect(hvi, -600, -600, w + 600, h + 600)
    cases = {"bare": t + pl, "nwell": t + pl + well, "nwell_hvi": t + pl + well + hv, "hvi": t + pl + hv,
             "beside": t + rect(poly, w + 100, -200, w + 250, h + 200),
             "half_nwell": t + pl + rect(nwell, -500, -500, 280, h + 500),
             "hvi_part": t + pl + well + rect(hvi, 300, -600, w + 600, h + 600), "field": pl + well,
             "hier": t + rect(poly, 200, -200, 350, h + 200, cell="SUB"),
             "touch": t + rect(poly, w, -200, w + 150, h + 200),
             "nwell_sub": t + pl + rect(nwell, -500, -500, w + 500, h + 500, cell="SUB")}
    desc = ("({a} NOT ({n} NOT {h})) may not overlap {t}.", "{a} over {t} is allowed only inside {n} that is not "
            "{h}: (poly NOT (nwell NOT hvi)) AND tap is an error.",
            "{a} outside low-voltage {n} ({n} NOT {h}) must not overlap {t}.")
    return _rule(rng, name, "no_overlap", plain(poly), deck, (tap, nwell, hvi), None,
                 [Scene(f"{category(name)}_{k}", v) for k, v in cases.items()], desc=desc, n=nwell, h=hvi, t=tap)


def gate_to_tap(rng: random.Random, name: str, poly: str, diff: str, tap: str, v: float) -> Rule:
    """Spacing of a gate (poly on diff) to a tap abutting that diff (min source length)."""
    deck = f"{poly}.and({diff}).separation({tap}.interacting({diff}), {value(v)})"
    t, out_, f = nm(v), [], free(category(name), "gate_to_tap")
    h = f.size(500, grid=10)  # the diff's and the tap's height
    for d, sfx in f.offsets(t):
        g = t + d
        out_ += [Scene(f"{category(name)}_src_{sfx}", rect(diff, 0, 0, 1500, h) + rect(tap, 1500, 0, 1800, h)
                       + rect(poly, 1500 - g - 150, -200, 1500 - g, h + 200)),
                 Scene(f"{category(name)}_src_apart_{sfx}", rect(diff, 0, 0, 1500, h)
                       + rect(tap, 1510, 0, 1800, h) + rect(poly, 1500 - g - 150, -200, 1500 - g, h + 200)),
                 Scene(f"{category(name)}_src_field_{sfx}", rect(diff, 0, 0, 1500, h)
                       + rect(tap, 1500, 0, 1800, h) + rect(poly, 1500 - g - 150, h + 100, 1500 - g, h + 400))]
    for k, g in (("near", round(0.95 * t)), ("far", round(1.05 * t))):
        out_.append(Scene(f"{category(name)}_src_{k}", rect(diff, 0, 0, 1500, h) + rect(tap, 1500, 0, 1800, h)
                          + rect(poly, 1500 - g - 150, -200, 1500 - g, h + 200)))
    out_.append(Scene(f"{category(name)}_src_left", rect(diff, 0, 0, 1500, h) + rect(tap, -300, 0, 0, h)
                      + rect(poly, t - 1, -200, t + 149, h + 200)))
    desc = ("Spacing of poly on {d} to abutting {t} (min source): {v} {u}.",
            "A gate ({a} AND {d}) must be at least {v} {u} from a {t} that abuts its {d}.",
            "Min source length: gate to butted {t} spacing = {v} {u}.")
    return _rule(rng, name, "separation", plain(poly), deck, (diff, tap), v, out_, desc=desc, d=diff, t=tap)


def extension(rng: random.Random, name: str, ext: str, base: str, v: float) -> Rule:
    """``ext`` extends beyond ``base`` where it crosses it (poly endcap, diff beyond gate)."""
    crossing = f"{ext}.and({base}).edges.not({ext}.edges)"
    deck = f"{ext}.edges.enclosing({crossing}, {value(v)}, projection)"
    t, bw, cw = nm(v), 600, 150
    scenes = probes.extension_scenes(category(name), base, ext, t) + [
        Scene(f"{category(name)}_ext_{k}", rect(base, 0, 0, 3 * bw, bw) + rect(ext, bw, -e, bw + cw, bw + e))
        for k, e in (("near", round(0.95 * t)), ("far", round(1.05 * t)))] + [
        Scene(f"{category(name)}_ext_hier", rect(base, 0, 0, 3 * bw, bw)
              + rect(ext, bw, -t + 1, bw + cw, bw + t + 200, cell="SUB"))]
    return _rule(rng, name, "extension", plain(ext), deck, (base,), v, scenes, b=base)


def gate_length(rng: random.Random, name: str, s: Subject, side: str, v: float, desc: tuple[str, ...]) -> Rule:
    """Gate edges not on ``side``'s edges shorter than ``v``: ``side="diff"`` measures the channel width
    (edges along poly), ``side="poly"`` the channel length (edges along diff).  ``s.base`` is poly,
    ``s.drawn`` holds diff."""
    deck = f"{s.expr()}.edges.not({side}.edges).with_length(nil, {value(v)})"
    axis = "w" if side == "diff" else "l"
    return _rule(rng, name, "width", s, deck, (), v, gate_scenes(category(name), s.base, s.drawn[0], nm(v), axis),
                 desc=desc)


def tap_bound(rng: random.Random, name: str, s: Subject, diff: str, count: int, v: float) -> Rule:
    """Width of tap that abuts ``count`` (or more) diffusions."""
    rng_count = f"{count}" if count > 1 else "1, 1"
    deck = f"{s.expr()}.interacting({diff}, {rng_count}).width({value(v)})"
    desc = (f"Min tap bound by {'one diffusion' if count == 1 else 'two diffusions'}: {{v}} {{u}} (width of a "
            f"{{a}} abutting {'exactly one' if count == 1 else 'two or more'} {diff}).",
            f"{{a}} butting {'a single' if count == 1 else 'two or more'} {diff} must be at least {{v}} {{u}} wide.")
    return _rule(rng, name, "width", s, deck, (diff,), v, tap_scenes(category(name), s.base, diff, nm(v)), desc=desc)


def implant_cover(rng: random.Random, name: str, actives: tuple[str, str], implants: tuple[str, str]) -> Rule:
    """Every part of diff/tap must be covered by an implant (n/psd.9)."""
    (d, t), (n, p) = actives, implants
    deck = f"{d}.or({t}).not({n}.or({p}))"
    desc = (f"{d.capitalize()} and {t} must be enclosed by their corresponding implant layers ({n} or {p}).",
            f"Every part of {d} and {t} must be covered by {n} or {p}.",
            f"{d} or {t} not covered by an implant ({n}, {p}) is not allowed.")
    return _rule(rng, name, "inside", plain(d), deck, (t, n, p), None,
                 implant_scenes(category(name), d, t, n, p), desc=desc)


def opposite_implants(rng: random.Random, name: str, actives: tuple[str, str], implants: tuple[str, str]) -> Rule:
    """No diff/tap under both implants (n/psd.8: exactly one implant type per active region)."""
    (d, t), (n, p) = actives, implants
    deck = f"{n}.and({p}).and({d}.or({t}))"
    desc = (f"{n.capitalize()} and {p} cannot overlap {d}/{t} regions of opposite doping: each {d} or {t} is "
            f"covered by exactly one of them.",
            f"{d} and {t} must not be covered by both {n} and {p}.",
            f"Overlap of {n} and {p} on {d} or {t} is not allowed.")
    return _rule(rng, name, "no_overlap", plain(d), deck, (t, n, p), None,
                 implant_scenes(category(name), d, t, n, p), desc=desc)


def aspect(rng: random.Random, name: str, s: Subject, v: float, short: float) -> Rule:
    """Bounding-box aspect ratio (long/short side) at most ``v``."""
    deck = f"{s.expr()}.drc(bbox_aspect_ratio > {value(v)})"
    desc = ("Maximum aspect ratio (length/width) of {a}: {v}.", "{a} length-to-width ratio must not exceed {v}.",
            "Max aspect ratio of {a} (bounding box) is {v}.")
    return _rule(rng, name, "width", s, deck, (), v, aspect_scenes(category(name), s.base, v, nm(short)), desc=desc)


def sizes(rng: random.Random, name: str, s: Subject, allowed: tuple[float, ...]) -> Rule:
    """Only squares of the ``allowed`` sides."""
    e = s.expr()
    deck = f"{e}.non_squares.or({e}.squares" + "".join(f".without_bbox_width({value(v)})" for v in allowed) + ")"
    listed = ", ".join(value(v) for v in allowed)
    desc = (f"Only square {{a}} of {listed} {{u}} are allowed.", f"Sizes of square {{a}} allowed: {listed} {{u}}.",
            f"{{a}} must be a square of side {listed} {{u}}.")
    scenes = [sc for v in allowed for sc in probes.exact_size_scenes(f"{category(name)}_{nm(v)}", s.base, nm(v))]
    r = _rule(rng, name, "exact", s, deck, (), None, scenes, desc=desc)
    return replace(r, thresholds={f"{r.category}_{i}": v for i, v in enumerate(allowed)})


def area_except_square(rng: random.Random, name: str, s: Subject, v: float, side: float, pad: float) -> Rule:
    """Min area, exempting squares of side ``pad`` exactly (probe pads)."""
    e = s.expr()
    deck = f"{e}.with_area(nil, {value(v)}).not({e}.squares.with_bbox_width({value(pad)}))"
    p = nm(pad)
    scenes = probes.area_scenes(category(name), s.base, round(v * 1e6), nm(side)) + [
        Scene(f"{category(name)}_pad_{sfx}", rect(s.base, 0, 0, p + d, p + d))
        for d, sfx in free(category(name), "pad").offsets(p)] + [
        Scene(f"{category(name)}_pad_rect", rect(s.base, 0, 0, p, p + 1))]
    desc = ("Min area of {a}: {v} {u}² (exempt: probe pads of exactly " + value(pad) + " x " + value(pad) + " {u}).",
            "Min {a} area is {v} {u}²; the rule is exempted for probe pads which are exactly " + value(pad)
            + " {u} by " + value(pad) + " {u}.")
    return _rule(rng, name, "area", s, deck, (), v, scenes, desc=desc)


def hole_enclosure(rng: random.Random, name: str, s: Subject, well: str, v: float, wall: float = 1.0) -> Rule:
    """Holes of ``well`` enclosed by the subject (deep nwell) by ``v``."""
    deck = f"{s.expr()}.enclosing({well}.holes, {value(v)})"
    hole_side = nm(2 * v + 1)
    scenes = [ringed(sc, "hole", well, nm(wall)) for sc in
              probes.enclosure_scenes(category(name), "hole", s.base, nm(v), hole_side)]
    desc = ("Min enclosure of {b} hole by {a}: {v} {u}.", "{a} must enclose every hole of {b} by at least {v} {u}.",
            "Enclosure of {b} holes by {a} is {v} {u} min.")
    rule = _rule(rng, name, "enclosure", s, deck, (well,), v, scenes, b=well, desc=desc)
    return replace(rule, enclosure=Enclosure(f"{well}.holes", s.expr(), f"hole of {well}", s.name()))


def ringed(scene: Scene, placeholder: str, layer: str, wall: int) -> Scene:
    """Every ``placeholder`` rectangle of ``scene`` replaced by a ``layer`` ring whose hole it is."""
    shapes: tuple[Shape, ...] = ()
    for s in scene.shapes:
        if s.layer != placeholder:
            shapes += (s,)
            continue
        xs, ys = [p[0] for p in s.points], [p[1] for p in s.points]
        shapes += ring(layer, min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys), wall, s.cell)
    return Scene(scene.name, shapes)


def adjacent_scenes(tag: str, inner: str, outer: str, t: int, size: int = 170) -> list[Scene]:
    """A square ``inner`` in ``outer`` with margins (left, right, bottom, top) around ``t``: one short side,
    two opposite short sides (legal), two adjacent short sides (illegal), three; and a notched ``outer``
    whose concave corner only the Euclidean metric sees."""
    f = free(tag, "adjacent")
    (below, _), _, (above, _) = f.offsets(t)
    big, lt, gt = t + f.size(200), t + below, t + above
    cases = {"ok": (t, t, t, t), "left": (lt, big, big, big), "lr": (lt, lt, big, big),
             "bt": (big, big, lt, lt), "lb_lt": (lt, big, lt, big), "rt_lt": (big, lt, big, lt),
             "lb_eq": (t, big, t, big), "lb_gt": (gt, big, gt, big), "lb_mix": (t, big, lt, big),
             "three_lt": (lt, lt, lt, big), "min": (0, 0, big, big)}
    out = [Scene(f"{tag}_adj_{k}", rect(outer, -left, -b, size + r, size + tp) + rect(inner, 0, 0, size, size))
           for k, (left, r, b, tp) in cases.items()]
    for d, sfx in f.offsets(t):
        k = math.floor((t + d) / math.sqrt(2)) if d < 0 else math.ceil((t + d) / math.sqrt(2))
        notch = rect(outer, -k, -big, size + big, size + big) + rect(outer, -big, -k, size + big, size + big)
        out.append(Scene(f"{tag}_adj_notch_{sfx}", notch + rect(inner, 0, 0, size, size)))
    return out


def gate_scenes(tag: str, poly: str, diff: str, t: int, axis: str) -> list[Scene]:
    """Poly crossing diff with the measured gate side (``axis`` ``"w"``: diff height, ``"l"``: poly width)
    at t-1 / t / t+1; plus a gate at the end of the diff, an L-shaped diff and poly beside diff."""
    f = free(tag, "gate")
    other = f.size(150 if axis == "w" else 420)
    out = []
    for d, sfx in f.offsets(t):
        m = t + d
        w, ln = (m, other) if axis == "w" else (other, m)
        out += [
            Scene(f"{tag}_gate_x_{sfx}", rect(diff, -600, 0, 600 + ln, w) + rect(poly, 0, -200, ln, w + 200)),
            Scene(f"{tag}_gate_two_{sfx}", rect(diff, -600, 0, 1200 + ln, w) + rect(poly, 0, -200, ln, w + 200)
                  + rect(poly, 700, -200, 700 + ln, w + 200)),
            Scene(f"{tag}_gate_hier_{sfx}", rect(diff, -600, 0, 600 + ln, w) + rect(poly, 0, -200, ln, w + 200,
                                                                                    cell="SUB")),
        ]
    w, ln = (t - 1, other) if axis == "w" else (other, t - 1)
    out += [
        Scene(f"{tag}_gate_end", rect(diff, 0, 0, 600, w) + rect(poly, -200, -200, ln, w + 200)),
        Scene(f"{tag}_gate_beside", rect(diff, 0, 0, 600, w) + rect(poly, -ln - 100, -200, -100, w + 200)),
        Scene(f"{tag}_gate_wide", rect(diff, -600, 0, 600 + ln, 3 * t) + rect(poly, 0, -200, ln, 3 * t + 200)),
    ]
    return out


def tap_scenes(tag: str, tap: str, diff: str, t: int, n: int = 1500) -> list[Scene]:
    """A tap bar of width t-1 / t / t+1 butting one diff, two diffs (both sides), none; a diff on a corner."""
    out, f = [], free(tag, "tap")
    n = f.size(n)
    for d, sfx in f.offsets(t):
        w = t + d
        one = rect(tap, 0, 0, w, n) + rect(diff, w, 0, w + 600, n)
        out += [
            Scene(f"{tag}_tap_one_{sfx}", one),
            Scene(f"{tag}_tap_two_{sfx}", one + rect(diff, -600, 0, 0, n)),
            Scene(f"{tag}_tap_three_{sfx}", one + rect(diff, -600, 0, 0, n // 2) + rect(diff, -600, n // 2 + 300,
                                                                                       0, n)),
            Scene(f"{tag}_tap_alone_{sfx}", rect(tap, 0, 0, w, n)),
        ]
    out.append(Scene(f"{tag}_tap_apart", rect(tap, 0, 0, t - 1, n) + rect(diff, t + 300, 0, t + 900, n)))
    return out


def implant_scenes(tag: str, diff: str, tap: str, nsdm: str, psdm: str) -> list[Scene]:
    """Diff and tap under no / one / both / half-and-half implants, partly covered, abutting implants."""
    f = free(tag, "implants")
    w, h, m, t = f.size(600, grid=10), f.size(400), f.size(200), f.size(300)  # diff, its implant margin, a tap
    d, big, half = rect(diff, 0, 0, w, h), (-m, -m, w + m, h + m), w // 2
    n, p = rect(nsdm, *big), rect(psdm, *big)
    halves = rect(nsdm, -m, -m, half, h + m) + rect(psdm, half, -m, w + m, h + m)
    butted = d + rect(tap, w, 0, w + t, h) + rect(nsdm, -m, -m, w, h + m)
    return [
        Scene(f"{tag}_imp_none", d), Scene(f"{tag}_imp_n", d + n), Scene(f"{tag}_imp_p", d + p),
        Scene(f"{tag}_imp_both", d + n + p), Scene(f"{tag}_imp_halves", d + halves),
        Scene(f"{tag}_imp_part", d + rect(nsdm, -m, -m, half, h + m)),
        Scene(f"{tag}_imp_overlap",
              d + rect(nsdm, -m, -m, half + 100, h + m) + rect(psdm, half - 100, -m, w + m, h + m)),
        Scene(f"{tag}_imp_tap_none", rect(tap, 0, 0, w, h)),
        Scene(f"{tag}_imp_tap_p", rect(tap, 0, 0, w, h) + p),
        Scene(f"{tag}_imp_tap_both", rect(tap, 0, 0, w, h) + n + p),
        Scene(f"{tag}_imp_butted", butted + rect(psdm, w, -m, w + t + m, h + m)),
        Scene(f"{tag}_imp_butted_gap", butted + rect(psdm, w + 50, -m, w + t + m, h + m)),
        Scene(f"{tag}_imp_field", n + rect(psdm, w + m, -m, w + m + 700, h + m)),
    ]


def aspect_scenes(tag: str, layer: str, v: float, short: int) -> list[Scene]:
    """Rectangles whose long/short ratio is just below, at and just above ``v`` (both orientations)."""
    exact_long = round(v * 2 * short)
    out = []
    for d, sfx in free(tag, "aspect").offsets(exact_long):
        ln = exact_long + d
        out += [Scene(f"{tag}_ar_h_{sfx}", rect(layer, 0, 0, ln, 2 * short)),
                Scene(f"{tag}_ar_v_{sfx}", rect(layer, 0, 0, 2 * short, ln))]
    out += [Scene(f"{tag}_ar_square", rect(layer, 0, 0, 2 * short, 2 * short)),
            Scene(f"{tag}_ar_over", rect(layer, 0, 0, round(1.05 * exact_long), 2 * short)),
            Scene(f"{tag}_ar_under", rect(layer, 0, 0, round(0.95 * exact_long), 2 * short)),
            Scene(f"{tag}_ar_ell", rect(layer, 0, 0, exact_long + 10, 2 * short)
                  + rect(layer, 0, 0, 2 * short, 6 * short))]
    return out
