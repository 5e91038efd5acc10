"""Layouts as text for agents, and agents' shapes as layouts.

``layout_to_text`` lists a trusted layout's polygons per layer in um (what an LLM reads), and
``summary_to_text`` does the same for an agent's layout read in the sandbox
(:meth:`chipgym.engines.klayout.DrcPool.summarise`); ``summary_gds`` redraws such a layout, flat, for pictures.
``shapes_to_gds`` builds a GDS from the shapes an agent writes in an ``add_test`` action, with an error that
names the bad field.

>>> gds = shapes_to_gds([{"layer": [68, 20], "box": [0, 0, 0.1, 2]}])
>>> print(layout_to_text(gds, {"met1": (68, 20)}))
met1 (68/20): 1 shape
  box (0,0) (0.1,2)
"""

from __future__ import annotations

import datetime
import math
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import gdstk

from chipgym.engines.klayout import Layout, LayoutSummary

GDS_TIMESTAMP = datetime.datetime(2000, 1, 1)  # fixed, so that equal shapes give equal bytes
MAX_SHAPES = 2000
MAX_POINTS = 2000


def layout_to_text(layout: Layout, layers: Mapping[str, tuple[int, int]]) -> str:
    """Every polygon of the named layers, flattened, in um; rectangles are written as boxes."""
    tops = _read(layout).top_level()
    return _layers_text(
        {key: [p.points for top in tops for p in top.get_polygons(include_paths=True, layer=key[0], datatype=key[1])]
         for key in layers.values()},
        layers,
    )


def summary_to_text(summary: LayoutSummary, layers: Mapping[str, tuple[int, int]]) -> str:
    """``layout_to_text`` of a layout read in the sandbox."""
    return _layers_text({key: _points_um(summary, key) for key in layers.values()}, layers)


def summary_gds(summary: LayoutSummary) -> bytes:
    """A flat GDS of the summary's polygons (one cell, 1 nm database unit)."""
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    cell = library.new_cell("TOP")
    for key in summary.layers:
        for points in _points_um(summary, key):
            cell.add(gdstk.Polygon(points, layer=key[0], datatype=key[1]))
    return _gds_bytes(library)


def _points_um(summary: LayoutSummary, key: tuple[int, int]) -> list[list[tuple[float, float]]]:
    return [list(zip((x * summary.dbu for x in p[0::2]), (y * summary.dbu for y in p[1::2])))
            for p in summary.layers.get(key, ())]


def _layers_text(polygons: Mapping[tuple[int, int], Sequence], layers: Mapping[str, tuple[int, int]]) -> str:
    lines = []
    for name, (layer, datatype) in layers.items():
        shapes = sorted(_shape_text(points) for points in polygons[layer, datatype])
        lines.append(f"{name} ({layer}/{datatype}): {len(shapes)} shape{'s' if len(shapes) != 1 else ''}")
        lines += [f"  {shape}" for shape in shapes]
    return "\n".join(lines)


def _read(layout: Layout) -> gdstk.Library:
    if isinstance(layout, bytes):
        with tempfile.NamedTemporaryFile(suffix=".gds") as file:
            file.write(layout)
            file.flush()
            return gdstk.read_gds(file.name)
    return gdstk.read_gds(str(layout))


def _shape_text(points) -> str:
    xs, ys = sorted({round(x, 4) for x, _ in points}), sorted({round(y, 4) for _, y in points})
    corners = {(round(x, 4), round(y, 4)) for x, y in points}
    if len(points) == 4 and len(xs) == 2 and len(ys) == 2 and len(corners) == 4:
        return f"box ({_um(xs[0])},{_um(ys[0])}) ({_um(xs[1])},{_um(ys[1])})"
    return "polygon " + " ".join(f"({_um(x)},{_um(y)})" for x, y in points)


def _um(value: float) -> str:
    """Micrometres to 0.1 nm, without trailing zeros (``:g`` would round 900000.1 to 900000)."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def shapes_to_gds(shapes: Sequence[Mapping[str, Any]]) -> bytes:
    """A one-cell GDS (dbu 1 nm) from
    ``[{"layer": [L, D], "box": [x0, y0, x1, y1]} | {"layer": ..., "polygon": [[x, y], ...]}]`` in um."""
    if not isinstance(shapes, (list, tuple)) or not shapes:
        raise ValueError("shapes: expected a non-empty list of shapes")
    if len(shapes) > MAX_SHAPES:
        raise ValueError(f"shapes: at most {MAX_SHAPES} shapes, got {len(shapes)}")
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    cell = library.new_cell("TOP")
    for index, shape in enumerate(shapes):
        cell.add(_polygon(shape, f"shapes[{index}]"))
    return _gds_bytes(library)


def _gds_bytes(library: gdstk.Library) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "test.gds"
        library.write_gds(str(path), timestamp=GDS_TIMESTAMP)
        return path.read_bytes()


def _polygon(shape: Any, where: str) -> gdstk.Polygon:
    if not isinstance(shape, Mapping):
        raise ValueError(f"{where}: expected an object with 'layer' and 'box' or 'polygon'")
    layer = shape.get("layer")
    if not (isinstance(layer, (list, tuple)) and len(layer) == 2 and all(_is_int(v) and 0 <= v < 65536 for v in layer)):
        raise ValueError(f"{where}.layer: expected [layer, datatype], two integers from 0 to 65535")
    if "box" in shape:
        box = _numbers(shape["box"], f"{where}.box", 4)
        if not (box[0] < box[2] and box[1] < box[3]):
            raise ValueError(f"{where}.box: expected [x0, y0, x1, y1] with x0 < x1 and y0 < y1")
        return gdstk.rectangle(box[:2], box[2:], layer=layer[0], datatype=layer[1])
    if "polygon" in shape:
        points = shape["polygon"]
        if not isinstance(points, (list, tuple)) or not 3 <= len(points) <= MAX_POINTS:
            raise ValueError(f"{where}.polygon: expected 3 to {MAX_POINTS} points [[x, y], ...]")
        coords = [tuple(_numbers(p, f"{where}.polygon[{i}]", 2)) for i, p in enumerate(points)]
        return gdstk.Polygon(coords, layer=layer[0], datatype=layer[1])
    raise ValueError(f"{where}: needs 'box' or 'polygon'")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _numbers(value: Any, where: str, count: int) -> list[float]:
    if not (isinstance(value, (list, tuple)) and len(value) == count):
        raise ValueError(f"{where}: expected {count} numbers (um)")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) < 1e6
               for v in value):
        raise ValueError(f"{where}: expected {count} finite numbers (um) below 1e6 in size")
    return [float(v) for v in value]
