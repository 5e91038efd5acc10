"""Small real layouts and decks that several tests use."""

from __future__ import annotations

import gdstk

WIDTH_SPACE_DECK = """
source($input)
report("width and space", $output)
m1 = input(1, 0)
m1.width(0.14).output("m1.1", "met1 width < 0.14 um")
m1.space(0.14).output("m1_2", "met1 spacing < 0.14 um")
"""


def write_rectangles(path, rectangles, layer=(1, 0)):
    """Writes a GDS with one cell of rectangles given in um as (x0, y0, x1, y1)."""
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    cell = library.new_cell("TOP")
    for x0, y0, x1, y1 in rectangles:
        cell.add(gdstk.rectangle((x0, y0), (x1, y1), layer=layer[0], datatype=layer[1]))
    library.write_gds(str(path))
    return path
