"""Test-layout geometry: shapes in integer database units (1 dbu = 1 nm) and GDS export.

Every helper returns a tuple of :class:`Shape`; a :class:`Scene` is one layout.
Shapes may live in a child cell (``cell="SUB"``) placed once at the origin, to
exercise hierarchy (a feature split across cells).

>>> scene = Scene("w", rect("met1", 0, 0, 140, 2000) + rect("met1", 140, 0, 300, 2000, cell="SUB"))
>>> data = scene_gds(scene, {"met1": (68, 20)})
>>> data[:4], data == scene_gds(scene, {"met1": (68, 20)})
(b'\\x00\\x06\\x00\\x02', True)
"""
from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Mapping

import gdstk

DBU_UM = 0.001
FIXED_TIMESTAMP = datetime(2000, 1, 1)
Point = tuple[int, int]


@dataclass(frozen=True)
class Shape:
    """A polygon on a named layer, in dbu, in cell ``TOP`` or its child ``SUB``."""

    layer: str
    points: tuple[Point, ...]
    cell: str = "TOP"


@dataclass(frozen=True)
class Text(Shape):
    """A text label on a named layer, placed at its one point."""

    string: str = ""


@dataclass(frozen=True)
class Scene:
    """One test layout."""

    name: str
    shapes: tuple[Shape, ...]

    def mirrored(self, name: str) -> "Scene":
        """The scene mirrored at the y axis (x -> -x), under a new name."""
        return Scene(name, tuple(replace(s, points=tuple((-x, y) for x, y in reversed(s.points)))
                                 for s in self.shapes))


def rect(layer: str, x0: int, y0: int, x1: int, y1: int, cell: str = "TOP") -> tuple[Shape, ...]:
    """An axis-parallel rectangle (corners in any order)."""
    xa, xb, ya, yb = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
    return (Shape(layer, ((xa, ya), (xb, ya), (xb, yb), (xa, yb)), cell),)


def text(layer: str, x: int, y: int, string: str, cell: str = "TOP") -> tuple[Shape, ...]:
    """A text label ``string`` at (x, y)."""
    return (Text(layer, ((x, y),), cell, string),)


def polygon(layer: str, points: list[Point], cell: str = "TOP") -> tuple[Shape, ...]:
    """A simple polygon."""
    return (Shape(layer, tuple(points), cell),)


def ring(layer: str, x0: int, y0: int, hole_w: int, hole_h: int, wall: int, cell: str = "TOP") -> tuple[Shape, ...]:
    """A frame of width ``wall`` around a ``hole_w`` x ``hole_h`` hole whose lower-left is (x0, y0)."""
    x1, y1 = x0 + hole_w, y0 + hole_h
    return (
        rect(layer, x0 - wall, y0 - wall, x1 + wall, y0, cell)
        + rect(layer, x0 - wall, y1, x1 + wall, y1 + wall, cell)
        + rect(layer, x0 - wall, y0, x0, y1, cell)
        + rect(layer, x1, y0, x1 + wall, y1, cell)
    )


def diagonal_bar(layer: str, x0: int, y0: int, width: int, length: int, cell: str = "TOP") -> tuple[Shape, ...]:
    """A 45-degree bar whose perpendicular width is ``width`` (rounded to the grid)."""
    h = round(width * math.sqrt(2))
    return polygon(layer, [(x0, y0), (x0 + h, y0), (x0 + h + length, y0 + length), (x0 + length, y0 + length)], cell)


def l_shape(layer: str, x0: int, y0: int, arm: int, size: int, cell: str = "TOP") -> tuple[Shape, ...]:
    """An L of arm width ``arm`` and outer size ``size``."""
    return polygon(layer, [(x0, y0), (x0 + size, y0), (x0 + size, y0 + arm), (x0 + arm, y0 + arm),
                           (x0 + arm, y0 + size), (x0, y0 + size)], cell)


def u_shape(layer: str, x0: int, y0: int, gap: int, arm: int, depth: int, cell: str = "TOP") -> tuple[Shape, ...]:
    """A U whose two arms (width ``arm``) are ``gap`` apart and ``depth`` long (a notch)."""
    w = 2 * arm + gap
    return polygon(
        layer,
        [(x0, y0), (x0 + w, y0), (x0 + w, y0 + arm + depth), (x0 + arm + gap, y0 + arm + depth),
         (x0 + arm + gap, y0 + arm), (x0 + arm, y0 + arm), (x0 + arm, y0 + arm + depth), (x0, y0 + arm + depth)],
        cell,
    )


def scene_gds(scene: Scene, layers: Mapping[str, tuple[int, int]]) -> bytes:
    """GDSII bytes of a scene (fixed timestamp, so equal scenes give equal bytes)."""
    lib = gdstk.Library("CHIPGYM", unit=1e-6, precision=1e-9)
    top = lib.new_cell("TOP")
    cells = {"TOP": top}
    for shape in scene.shapes:
        if shape.cell not in cells:
            cells[shape.cell] = lib.new_cell(shape.cell)
            top.add(gdstk.Reference(cells[shape.cell]))
        layer, datatype = layers[shape.layer]
        pts = [(x * DBU_UM, y * DBU_UM) for x, y in shape.points]
        if isinstance(shape, Text):
            cells[shape.cell].add(gdstk.Label(shape.string, pts[0], layer=layer, texttype=datatype))
        else:
            cells[shape.cell].add(gdstk.Polygon(pts, layer=layer, datatype=datatype))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scene.gds"
        lib.write_gds(path, timestamp=FIXED_TIMESTAMP)
        return path.read_bytes()


def gds_scene(name: str, data: bytes) -> Scene:
    """A flattened scene from GDS bytes; layer names are ``"layer/datatype"``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.gds"
        path.write_bytes(data)
        lib = gdstk.read_gds(path, unit=1e-9)
    shapes = []
    for cell in lib.top_level():
        for poly in cell.get_polygons():
            pts = tuple((round(x), round(y)) for x, y in poly.points)
            shapes.append(Shape(f"{poly.layer}/{poly.datatype}", pts))
    return Scene(name, tuple(shapes))
