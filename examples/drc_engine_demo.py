"""The DRC engine on a real example: SKY130 metal-1 rules, a layout with violations, and a picture.

Run: ``bash run.sh demo`` (or ``.venv/bin/python examples/drc_engine_demo.py``).
Writes ``out/demo/layout.gds``, ``out/demo/deck.drc`` and ``out/demo/violations.png``.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

import gdstk

from chipgym.engines.klayout import DrcPool, read_report_counts
from chipgym.render import render_layout, save_png

MET1, VIA = (68, 20), (68, 44)  # SKY130 GDS layer/datatype numbers

DECK = """\
# SKY130 periphery rules m1.1, m1.2 and via.4a
source($input)
report("SKY130 met1", $output)
met1 = input(68, 20)
via = input(68, 44)
met1.width(0.14).output("m1.1", "met1 width must be at least 0.14 um")
met1.space(0.14).output("m1.2", "met1 spacing must be at least 0.14 um")
via.enclosed(met1, 0.055).output("via.4a", "via must be enclosed by met1 by at least 0.055 um")
(via - met1).output("via.4a_outside", "via must lie inside met1")
"""


def write_layout(path: Path, narrow: float = 0.12, gap: float = 0.10, enclosure: float = 0.03) -> Path:
    """A good wire with a good via, a narrow wire, two wires too close, and a via short of enclosure."""
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    cell = library.new_cell("TOP")

    def box(layer, x0, y0, x1, y1):
        cell.add(gdstk.rectangle((x0, y0), (x1, y1), layer=layer[0], datatype=layer[1]))

    box(MET1, 0, 0, 0.4, 3)  # good wire ...
    box(VIA, 0.12, 1.0, 0.27, 1.15)  # ... with a 0.15 um via enclosed by 0.12/0.13 um
    box(MET1, 1.0, 0, 1.0 + narrow, 3)  # narrow wire
    box(MET1, 2.0, 0, 2.4, 3)
    box(MET1, 2.4 + gap, 0, 2.9 + gap, 3)  # too close to its neighbour
    box(MET1, 3.6, 0, 4.0, 3)
    box(VIA, 4.0 - 0.15 - enclosure, 2.0, 4.0 - enclosure, 2.15)  # too close to the wire's right edge
    library.write_gds(str(path))
    return path


def main() -> None:
    out = Path("out/demo").resolve()
    out.mkdir(parents=True, exist_ok=True)
    deck_path = out / "deck.drc"
    deck_path.write_text(DECK)
    layout = write_layout(out / "layout.gds")
    print(f"deck:   {deck_path}\nlayout: {layout}\n")

    with DrcPool(workers=2) as pool:
        [result] = pool.run(DECK, [layout])
        print(f"{'category':16} {'markers':>7}  where (um)")
        for name, category in result.categories.items():
            where = ", ".join(_where(marker) for marker in category.markers)
            print(f"{name:16} {category.count:7}  {where}")
        image = out / "violations.png"
        save_png(render_layout(layout, {n: c.markers for n, c in result.categories.items()}), image)
        print(f"\npicture of the violations: {image}")

        with tempfile.TemporaryDirectory() as scratch:  # the speed measurement's layouts, not kept
            variants = [write_layout(Path(scratch) / f"variant{i}.gds", narrow=0.13 + 0.001 * i, gap=0.13 + 0.001 * i)
                        for i in range(20)]
            start = time.perf_counter()
            pool.run(DECK.replace("SKY130 met1", "SKY130 met1 (variants)"), variants)
            pooled = (time.perf_counter() - start) / len(variants)

    start = time.perf_counter()
    subprocess.run(["klayout", "-b", "-r", deck_path, "-rd", f"input={layout}", "-rd", f"output={out / 'plain.lyrdb'}"],
                   check=True)
    plain = time.perf_counter() - start
    assert read_report_counts(out / "plain.lyrdb") == result.counts, "the pool and plain KLayout disagree"
    print(f"speed: {pooled * 1000:.0f} ms per layout in the sandboxed pool; "
          f"{plain * 1000:.0f} ms for one plain `klayout -b -r` run")


def _where(marker) -> str:
    coords = marker[1]
    xs, ys = coords[0::2], coords[1::2]
    return f"({min(xs) / 1000:g},{min(ys) / 1000:g})-({max(xs) / 1000:g},{max(ys) / 1000:g})"


if __name__ == "__main__":
    main()
