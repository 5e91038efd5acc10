"""Pictures of a layout with DRC markers on top, drawn offscreen by KLayout's own layout view.

>>> from chipgym.render import render_layout
>>> image = render_layout("layout.gds", {"m1.1": [("edge_pair", (0, 0, 0, 2000, 100, 2000, 100, 0))]})  # doctest: +SKIP
>>> image.shape  # doctest: +SKIP
(480, 640, 3)
"""

from __future__ import annotations

import os
import tempfile
from typing import Mapping, Sequence

import numpy as np

from chipgym.engines.klayout import Layout, Marker

MARKER_LAYER = 10_000  # drawn on layers 10000/0, 10000/1, ... one datatype per category
MARKER_COLORS = (0xE6194B, 0xF58231, 0x911EB4, 0x4363D8, 0x3CB44B, 0xF032E6)


def render_layout(
    layout: Layout, markers: Mapping[str, Sequence[Marker]] | None = None, size: tuple[int, int] = (640, 480)
) -> np.ndarray:
    """An RGB image (height x width x 3, uint8) of the layout, markers drawn solid on top."""
    import klayout.db as db
    import klayout.lay as lay

    source = _read(layout)
    top = source.top_cells()[0] if source.top_cells() else source.create_cell("TOP")
    bbox = top.bbox()
    category_layers = {}
    for index, (category, shapes) in enumerate(sorted((markers or {}).items())):
        layer = source.layer(db.LayerInfo(MARKER_LAYER, index, category))
        category_layers[MARKER_LAYER, index] = MARKER_COLORS[index % len(MARKER_COLORS)]
        legend_y = bbox.top + (len(markers) - index) * max(bbox.height(), 1) // 12
        top.shapes(layer).insert(db.Text(f"{category}: {len(shapes)}", bbox.left, legend_y))
        for marker in shapes:
            polygon = _marker_polygon(db, marker)
            if polygon is not None:
                top.shapes(layer).insert(polygon)

    view = lay.LayoutView()
    view.set_config("background-color", "#ffffff")
    view.show_layout(source, False)
    view.max_hier()
    view.add_missing_layers()
    layers = view.begin_layers()
    while not layers.at_end():
        props = layers.current()
        color = category_layers.get((props.source_layer, props.source_datatype))
        if color is not None:
            props.fill_color = props.frame_color = color
            props.dither_pattern = 0  # solid
            props.width = 2
            view.set_layer_properties(layers, props)
        layers.next()
    view.zoom_box(_with_margin(db, top.dbbox()))
    pixels = view.get_pixels(*size)
    argb = np.frombuffer(pixels.to_bytes(), dtype=np.uint32)[2:].reshape(size[1], size[0])  # after width, height
    return np.stack([(argb >> 16) & 0xFF, (argb >> 8) & 0xFF, argb & 0xFF], axis=-1).astype(np.uint8)


def _with_margin(db, box):
    """The box, a little larger, and with room above its top for the legend's last line of text."""
    margin = max(box.width(), box.height()) * 0.04
    return db.DBox(box.left - margin, box.bottom - margin, box.right + margin, box.top + 2 * margin + box.height() / 12)


def save_png(image: np.ndarray, path: str | os.PathLike) -> None:
    """Writes an RGB image as a PNG file."""
    import klayout.lay as lay

    height, width, _ = image.shape
    argb = ((0xFF << 24) | (image[..., 0].astype(np.uint32) << 16) | (image[..., 1].astype(np.uint32) << 8)
            | image[..., 2])
    header = np.array([width, height], dtype=np.uint32).tobytes()
    lay.PixelBuffer.from_bytes(header + argb.astype(np.uint32).tobytes()).write_png(str(path))


def _read(layout: Layout):
    import klayout.db as db

    source = db.Layout()
    if isinstance(layout, bytes):
        with tempfile.NamedTemporaryFile(suffix=".gds") as file:
            file.write(layout)
            file.flush()
            source.read(file.name)
    else:
        source.read(str(layout))
    return source


def _marker_polygon(db, marker: Marker):
    kind, coords = marker[0], marker[1]
    points = [db.Point(x, y) for x, y in zip(coords[0::2], coords[1::2])]
    if kind in ("polygon", "box"):
        return db.Polygon(points) if kind == "polygon" else db.Box(*points)
    if kind in ("edge_pair", "edge"):
        edges = [db.Edge(a, b) for a, b in zip(points[0::2], points[1::2])]
        pair = db.EdgePair(edges[0], edges[-1])
        return pair.polygon(max(1, int(pair.bbox().width() + pair.bbox().height()) // 100))
    return None
