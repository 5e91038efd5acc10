"""Discriminating scene families, one per kind of check, built around a threshold ``t`` (dbu).

Each family puts a feature just failing (``t - 1`` dbu, suffix ``lt``), at the threshold
(``t``, ``eq``) and just above it (``t + 1``, ``gt``) next to topological corner cases
(touching, abutting, partial overlap, containment, holes, corner-to-corner, 45-degree
edges, hierarchy). Inside :func:`~chipgym.tasks.drc.suite.draws.drawing` the offsets and the
dimensions a family leaves free are drawn anew (:mod:`~chipgym.tasks.drc.suite.draws`).

>>> [s.name for s in width_scenes("r0", "met1", 140)][:3]
['r0_width_pinch_lt', 'r0_width_bar_lt', 'r0_width_diag_lt']
"""
from __future__ import annotations

import math

from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, diagonal_bar, l_shape, rect, ring, u_shape


def _long(t: int) -> int:
    return max(1500, 6 * t)


def width_scenes(tag: str, layer: str, t: int) -> list[Scene]:
    """Bars of width t-1 / t / t+1: straight, 45-degree, split across cells, L-shaped, and a
    diagonal pinch (two squares overlapping at a corner: narrow only in the Euclidean metric)."""
    out, f = [], free(tag, "width")
    n = f.size(_long(t))
    for d, sfx in f.offsets(t):
        w = t + d
        k = math.floor(w / math.sqrt(2)) if d < 0 else math.ceil(w / math.sqrt(2))
        out += [
            Scene(f"{tag}_width_pinch_{sfx}",
                  rect(layer, 0, 0, n, n) + rect(layer, n - k, n - k, 2 * n - k, 2 * n - k)),
            Scene(f"{tag}_width_bar_{sfx}", rect(layer, 0, 0, w, n)),
            Scene(f"{tag}_width_diag_{sfx}", diagonal_bar(layer, 0, 0, w, n)),
            Scene(f"{tag}_width_split_{sfx}", rect(layer, 0, 0, w // 2, n) + rect(layer, w // 2, 0, w, n, cell="SUB")),
            Scene(f"{tag}_width_ell_{sfx}", l_shape(layer, 0, 0, w, n)),
        ]
    return out


def space_scenes(tag: str, a: str, b: str, t: int, w: int = 300) -> list[Scene]:
    """Two shapes (layers ``a``, ``b``) at gap t-1 / t: parallel, corner-to-corner, short run, notch."""
    f = free(tag, "space")
    n, w, out = f.size(_long(t)), f.size(w), []
    for d, sfx in f.offsets(t):
        g = t + d
        k = math.floor(g / math.sqrt(2)) if d < 0 else math.ceil(g / math.sqrt(2))
        out += [
            Scene(f"{tag}_space_par_{sfx}", rect(a, 0, 0, w, n) + rect(b, w + g, 0, 2 * w + g, n)),
            Scene(f"{tag}_space_corner_{sfx}", rect(a, 0, 0, w, w) + rect(b, w + k, w + k, 2 * w + k, 2 * w + k)),
            Scene(f"{tag}_space_run_{sfx}", rect(a, 0, 0, w, n) + rect(b, w + g, n - 10, 2 * w + g, 2 * n)),
            Scene(f"{tag}_space_hier_{sfx}", rect(a, 0, 0, w, n) + rect(b, w + g, 0, 2 * w + g, n, cell="SUB")),
        ]
        if a == b:
            out.append(Scene(f"{tag}_space_notch_{sfx}", u_shape(a, 0, 0, g, w, n)))
    out += [
        Scene(f"{tag}_space_touch", rect(a, 0, 0, w, n) + rect(b, w, 0, 2 * w, n)),
        Scene(f"{tag}_space_overlap", rect(a, 0, 0, w, n) + rect(b, w // 2, n // 2, 2 * w, 2 * n)),
    ]
    return out


def enclosure_scenes(tag: str, inner: str, outer: str, t: int, size: int = 200) -> list[Scene]:
    """``inner`` in ``outer`` with one margin t-1 / t / t+1 (straight, and diagonal to a concave
    corner of ``outer``: only the Euclidean metric sees it); plus protruding, outside, flush cases."""
    f = free(tag, "enclosure")
    big, size, out = t + f.size(300), f.size(size), []
    for d, sfx in f.offsets(t):
        m = t + d
        k = math.floor(m / math.sqrt(2)) if d < 0 else math.ceil(m / math.sqrt(2))
        notch = rect(outer, -big, -k, size + big, size + big) + rect(outer, -k, -big, size + big, size + big)
        out += [
            Scene(f"{tag}_enc_notch_{sfx}", notch + rect(inner, 0, 0, size, size)),
            Scene(f"{tag}_enc_left_{sfx}",
                  rect(outer, -m, -big, size + big, size + big) + rect(inner, 0, 0, size, size)),
            Scene(f"{tag}_enc_top_{sfx}",
                  rect(outer, -big, -big, size + big, size + m) + rect(inner, 0, 0, size, size)),
            Scene(f"{tag}_enc_hier_{sfx}",
                  rect(outer, -big, -m, size + big, size + big, cell="SUB") + rect(inner, 0, 0, size, size)),
        ]
    out += [
        Scene(f"{tag}_enc_corner", rect(outer, -big, -big, 0, 0) + rect(outer, 0, 0, size + big, size + big)
              + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_enc_protrude", rect(outer, -big, -big, size // 2, size + big) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_enc_flush", rect(outer, 0, -big, size + big, size + big) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_enc_outside", rect(outer, -big - 2 * size, 0, -2 * size, size) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_enc_diag", diagonal_bar(outer, -big, -big, 3 * big, 4 * big) + rect(inner, 0, 0, size, size)),
    ]
    return out


def overlap_scenes(tag: str, a: str, b: str, t: int, w: int = 400) -> list[Scene]:
    """``a`` and ``b`` overlapping by t-1 / t; plus containment, touching, corner overlap."""
    f = free(tag, "overlap")
    n, out = f.size(_long(t)), []
    w = max(f.size(w), 2 * t + 100)
    for d, sfx in f.offsets(t):
        o = t + d
        out += [
            Scene(f"{tag}_ovl_par_{sfx}", rect(a, 0, 0, w, n) + rect(b, w - o, 0, 2 * w, n)),
            Scene(f"{tag}_ovl_corner_{sfx}", rect(a, 0, 0, w, w) + rect(b, w - o, w - o, 2 * w, 2 * w)),
        ]
    out += [
        Scene(f"{tag}_ovl_contain", rect(a, 0, 0, 3 * w, 3 * w) + rect(b, w, w, 2 * w, 2 * w)),
        Scene(f"{tag}_ovl_touch", rect(a, 0, 0, w, n) + rect(b, w, 0, 2 * w, n)),
    ]
    return out


def extension_scenes(tag: str, base: str, cross: str, t: int, base_w: int = 600, cross_w: int = 150) -> list[Scene]:
    """``cross`` crossing ``base`` and extending t-1 / t beyond it; plus one-sided and stopping cases."""
    out, f = [], free(tag, "extension")
    base_w, cross_w = f.size(base_w), f.size(cross_w)
    for d, sfx in f.offsets(t):
        e = t + d
        out += [
            Scene(f"{tag}_ext_both_{sfx}",
                  rect(base, 0, 0, 3 * base_w, base_w) + rect(cross, base_w, -e, base_w + cross_w, base_w + e)),
            Scene(f"{tag}_ext_one_{sfx}",
                  rect(base, 0, 0, 3 * base_w, base_w) + rect(cross, base_w, -t - 400, base_w + cross_w, base_w + e)),
        ]
    out += [
        Scene(f"{tag}_ext_stop",
              rect(base, 0, 0, 3 * base_w, base_w) + rect(cross, base_w, -t - 400, base_w + cross_w, base_w // 2)),
        Scene(f"{tag}_ext_apart",
              rect(base, 0, 0, 3 * base_w, base_w) + rect(cross, -cross_w - t - 400, -t, -t - 400, base_w + t)),
    ]
    return out


def area_scenes(tag: str, layer: str, area: int, w: int) -> list[Scene]:
    """Shapes of area just below / at ``area`` (dbu^2): rectangle, L, split across cells."""
    f = free(tag, "area")
    w = f.size(w, grid=2)
    w += w % 2
    h = math.ceil(area / w)
    out = []
    for d, sfx in f.offsets(h):
        hh = h + d
        out += [
            Scene(f"{tag}_area_rect_{sfx}", rect(layer, 0, 0, w, hh)),
            Scene(f"{tag}_area_split_{sfx}",
                  rect(layer, 0, 0, w, hh // 2) + rect(layer, 0, hh // 2, w, hh, cell="SUB")),
            Scene(f"{tag}_area_ell_{sfx}", rect(layer, 0, 0, w, hh - w) + rect(layer, 0, hh - w, 2 * w, hh - w // 2)),
        ]
    return out


def hole_scenes(tag: str, layer: str, area: int, wall: int = 400) -> list[Scene]:
    """Rings whose hole area is just below / at ``area`` (dbu^2); an open U has no hole."""
    f = free(tag, "hole")
    side, wall = f.size(max(200, math.isqrt(area)), grid=1), f.size(wall)
    h = math.ceil(area / side)
    out = []
    for d, sfx in f.offsets(h):
        out.append(Scene(f"{tag}_hole_ring_{sfx}", ring(layer, 0, 0, side, h + d, wall)))
        out.append(Scene(f"{tag}_hole_hier_{sfx}", ring(layer, 0, 0, side, h + d, wall, cell="SUB")))
    out.append(Scene(f"{tag}_hole_open", u_shape(layer, 0, 0, side, wall, h)))
    return out


def inside_scenes(tag: str, inner: str, outer: str, size: int = 200) -> list[Scene]:
    """``inner`` inside, flush, straddling, outside ``outer``, and covered by two abutting shapes."""
    f = free(tag, "inside")
    big, size = f.size(500), f.size(size)
    return [
        Scene(f"{tag}_in_inside", rect(outer, -big, -big, size + big, size + big) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_flush", rect(outer, 0, 0, size, size) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_straddle", rect(outer, -big, -big, size // 2, size + big) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_outside", rect(outer, -big - size, 0, -size, size) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_touch", rect(outer, -big, 0, 0, size) + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_abut", rect(outer, -big, -big, size // 2, size + big)
              + rect(outer, size // 2, -big, size + big, size + big, cell="SUB") + rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_inner_only", rect(inner, 0, 0, size, size)),
        Scene(f"{tag}_in_outer_only", rect(outer, 0, 0, size, size)),
    ]


def exact_size_scenes(tag: str, layer: str, t: int) -> list[Scene]:
    """Squares of side t (legal), t-1 and t+1, and t x (t+1) / (t+1) x t rectangles."""
    f = free(tag, "size")
    (below, _), _, (above, _) = f.offsets(t)
    lo, hi, pitch = t + below, t + above, t + f.size(2 * t)
    legal = f.pick(1, (2, 3))  # in a draw, a row of legal squares: a lone one is always an evaluation scene
    return [
        Scene(f"{tag}_size_eq", tuple(s for i in range(legal) for s in rect(layer, i * pitch, 0, i * pitch + t, t))),
        Scene(f"{tag}_size_lt", rect(layer, 0, 0, lo, lo)),
        Scene(f"{tag}_size_gt", rect(layer, 0, 0, hi, hi)),
        Scene(f"{tag}_size_tall", rect(layer, 0, 0, t, hi)),
        Scene(f"{tag}_size_wide", rect(layer, 0, 0, hi, t)),
        Scene(f"{tag}_size_pair", rect(layer, 0, 0, t, t) + rect(layer, t, 0, 2 * t, t, cell="SUB")),
    ]


def covered(scenes: list[Scene], target: str, cover: str, margin: int = 50, suffix: str = "cov") -> list[Scene]:
    """Copies of ``scenes`` where every ``target`` shape also gets a ``cover`` rectangle around it
    (``margin`` < 0: a smaller rectangle, so the target straddles the cover)."""
    out = []
    for scene in scenes:
        extra, m = [], free(scene.name, "covered").size(abs(margin)) * (-1 if margin < 0 else 1)
        for shape in (s for s in scene.shapes if s.layer == target):
            xs, ys = [p[0] for p in shape.points], [p[1] for p in shape.points]
            extra += rect(cover, min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m)
        out.append(Scene(f"{scene.name}_{suffix}", scene.shapes + tuple(extra)))
    return out
