"""Redrawn scenes: the layouts a task teaches with (public examples, training layouts), never the ones it tests on.

A redraw keeps a scene's topology (which shapes touch, overlap, contain or face one another, its cells and its
texts) and spaces its coordinates anew: the distinct x coordinates of the scene, in order, get new gaps, some
changed by 1 to 3 dbu either way (a feature probing a threshold stays near it), a quarter scaled by 0.7 to 1.4
(a gap on a 5 nm grid stays on it), and the others kept: a quarter in half the redraws, three quarters in the
other half (a rule that asks for an exact size needs some features of that size); the same for y. Every
redraw of a suite's scene is checked against the evaluation scenes with :func:`parts_key`: a redraw made of the
same shapes as one, each up to turning, mirroring and moving, however they are placed, is drawn again; so a
redraw is never congruent to an evaluation layout (:func:`congruence_key`) nor its parts rearranged, though
some of its shapes may have the dimensions of an evaluation layout's. Its label comes from running the gold deck
on it, never from the scene it was drawn from.

>>> import random
>>> from chipgym.tasks.drc.suite.layouts import Scene, rect
>>> bar = Scene("bar", rect("met1", 0, 0, 139, 1500))
>>> new = redraw(bar, random.Random(1), "bar2")
>>> new.shapes[0].points != bar.shapes[0].points, congruence_key(new) != congruence_key(bar)
(True, True)
>>> congruence_key(bar.mirrored("m")) == congruence_key(bar), parts_key(bar.mirrored("m")) == parts_key(bar)
(True, True)
"""
from __future__ import annotations

import random
from dataclasses import replace

from chipgym.tasks.drc.suite.layouts import Point, Scene, Text

REDRAW_FORMAT = 1
"""Bump when a redraw changes (part of a dataset artifact's name: its public and training pools)."""
NUDGES = (-3, -2, -1, 1, 2, 3)  # dbu added to a gap
SCALED = 0.25  # the share of gaps scaled
KEPT = (0.25, 0.75)  # the share of gaps kept: one of these per redraw
SCALE = (0.7, 1.4)
GRID = 5  # dbu: a gap that is a multiple of it is scaled to a multiple of it

# The eight rotations and mirrorings of the plane, as (xx, xy, yx, yy).
ORIENTATIONS = ((1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
                (-1, 0, 0, 1), (0, 1, 1, 0), (1, 0, 0, -1), (0, -1, -1, 0))


def redraw(scene: Scene, rng: random.Random, name: str) -> Scene:
    """``scene`` with its coordinates spaced anew (see the module doc), under ``name``."""
    points = [p for shape in scene.shapes for p in shape.points]
    kept = rng.choice(KEPT)
    new_x = _respace(sorted({x for x, _ in points}), kept, rng)
    new_y = _respace(sorted({y for _, y in points}), kept, rng)
    return Scene(name, tuple(replace(s, points=tuple((new_x[x], new_y[y]) for x, y in s.points))
                             for s in scene.shapes))


def _respace(coordinates: list[int], kept: float, rng: random.Random) -> dict[int, int]:
    """Each coordinate mapped so that the order is kept and the gaps are drawn anew (a share ``kept`` kept)."""
    mapping, position = {}, coordinates[0] if coordinates else 0
    for index, value in enumerate(coordinates):
        if index:
            gap, draw = value - coordinates[index - 1], rng.random()
            if draw < SCALED:
                step = GRID if gap % GRID == 0 else 1
                gap = round(gap * rng.uniform(*SCALE) / step) * step
            elif draw >= SCALED + kept:
                gap += rng.choice(NUDGES)
            position += max(1, gap)
        mapping[value] = position
    return mapping


def congruence_key(scene: Scene) -> tuple:
    """A key equal for two scenes exactly when one is the other turned, mirrored and moved (cells flattened,
    each polygon's vertex order and start ignored): what a deck could compute to recognise a layout."""
    return min(_placed(scene, orientation) for orientation in ORIENTATIONS)


def parts_key(scene: Scene) -> tuple:
    """A key equal for two scenes made of the same shapes, each up to turning, mirroring and moving, wherever
    they are placed: what a deck that recognises a layout by its polygons' areas and perimeters would see."""
    return tuple(sorted(congruence_key(Scene("", (shape,))) for shape in scene.shapes))


def _placed(scene: Scene, orientation: tuple[int, int, int, int]) -> tuple:
    xx, xy, yx, yy = orientation
    shapes = [(s, [(xx * x + xy * y, yx * x + yy * y) for x, y in s.points]) for s in scene.shapes]
    left = min((x for _, pts in shapes for x, _ in pts), default=0)
    bottom = min((y for _, pts in shapes for _, y in pts), default=0)
    return tuple(sorted(
        (s.layer, s.string if isinstance(s, Text) else None, _cycle([(x - left, y - bottom) for x, y in pts]))
        for s, pts in shapes))


def _cycle(points: list[Point]) -> tuple[Point, ...]:
    """A polygon's vertices from its least one, in the direction that gives the lesser sequence."""
    if not points:
        return ()
    start = points.index(min(points))
    forward = points[start:] + points[:start]
    backward = [forward[0]] + forward[:0:-1]
    return tuple(min(forward, backward))

