"""Small real layouts and decks that several tests use."""

from __future__ import annotations

import gdstk

from chipgym.tasks.drc.task import DrcTask, Testcase

WIDTH_SPACE_DECK = """
source($input)
report("width and space", $output)
m1 = input(1, 0)
m1.width(0.14).output("m1.1", "met1 width < 0.14 um")
m1.space(0.14).output("m1_2", "met1 spacing < 0.14 um")
"""


MET1 = (68, 20)
MET1_WIDTH_GOLD = ('source($input)\nreport("m1", $output)\n'
                   'input(68, 20).width(0.14).output("m1.1", "met1 width below 0.14 um")\n')


TRAINING_WIDTHS = (0.09, 0.12, 0.135, 0.139, 0.14, 0.141, 0.15, 0.2, 0.25, 0.35, 0.4, 0.5)
"""The widths of met1_width_task's training layouts, which are 3 um long where the others are 2 um: none is
congruent to a public or hidden one. They are as many as a training draw (TRAINING_DRAW), so every draw is
all of them, whatever the grading secret: the tests' figures are the same on every machine."""


def met1_width_task(folder, public: dict[str, float], hidden: dict[str, float],
                    training: tuple[float, ...] = TRAINING_WIDTHS) -> DrcTask:
    """A one-rule task (met1 at least 0.14 um wide) whose layouts are a wire of each given width beside a wide one,
    with a training pool of such layouts."""

    def case(name, width, length=2):
        path = write_rectangles(folder / f"{name}.gds", [(0, 0, width, length), (1, 0, 1.5, length)], layer=MET1)
        return Testcase(name, path.read_bytes(), {"m1.1": int(width < 0.14)})

    return DrcTask(
        id="m1-width", title="Metal 1 minimum width", description="Metal 1 (met1) must be at least 0.14 um wide.",
        layers={"met1": MET1}, rules=(("Metal 1 must be at least 0.14 um wide.", "m1.1"),), categories=("m1.1",),
        gold_deck=MET1_WIDTH_GOLD, public_examples=tuple(case(n, w) for n, w in public.items()),
        hidden_testcases=tuple(case(n, w) for n, w in hidden.items()), group="sky130", split="train",
        training_testcases=tuple(case(f"train{i}", w, length=3) for i, w in enumerate(training)),
    )


def write_rectangles(path, rectangles, layer=(1, 0)):
    """Writes a GDS with one cell of rectangles given in um as (x0, y0, x1, y1)."""
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    cell = library.new_cell("TOP")
    for x0, y0, x1, y1 in rectangles:
        cell.add(gdstk.rectangle((x0, y0), (x1, y1), layer=layer[0], datatype=layer[1]))
    library.write_gds(str(path))
    return path


def gds_records(*records) -> bytes:
    """A GDS stream from raw (record type, data type, payload) records, to write what no library would."""
    out = b""
    for kind, datatype, payload in records:
        out += (4 + len(payload)).to_bytes(2, "big") + bytes([kind, datatype]) + payload
    return out


def _int16(*values):
    return b"".join(v.to_bytes(2, "big", signed=True) for v in values)


def _int32(*values):
    return b"".join(v.to_bytes(4, "big", signed=True) for v in values)


def _name(text):
    data = text.encode()
    return data + b"\0" * (len(data) % 2)


def gds_header():
    """HEADER, BGNLIB, LIBNAME and UNITS (1 nm database unit)."""
    return [(0x00, 0x02, _int16(600)), (0x01, 0x02, _int16(*[0] * 12)), (0x02, 0x06, _name("LIB")),
            (0x03, 0x05, bytes.fromhex("3e4189374bc6a7ef3944b82fa09b5a54"))]


def gds_box(x, y, size, layer=1):
    """A square BOUNDARY of ``size`` dbu on layer/0 whose corner is (x, y) (its far side clipped to int32)."""
    x1, y1 = (min(v + size, 2**31 - 1) for v in (x, y))
    return [(0x08, 0x00, b""), (0x0D, 0x02, _int16(layer)), (0x0E, 0x02, _int16(0)),
            (0x10, 0x03, _int32(x, y, x1, y, x1, y1, x, y1, x, y)), (0x11, 0x00, b"")]


def gds_cell(name, *elements):
    return [(0x05, 0x02, _int16(*[0] * 12)), (0x06, 0x06, _name(name)), *elements, (0x07, 0x00, b"")]


def _sref(name):
    return [(0x0A, 0x00, b""), (0x12, 0x06, _name(name)), (0x10, 0x03, _int32(0, 0)), (0x11, 0x00, b"")]


def recursive_gds() -> bytes:
    """Two cells that place each other."""
    return gds_records(*gds_header(), *gds_cell("A", *gds_box(0, 0, 100), *_sref("B")), *gds_cell("B", *_sref("A")),
                       (0x04, 0x00, b""))


def huge_array_gds(n: int = 32767) -> bytes:
    """A top cell with an n x n array of a cell holding one box."""
    aref = [(0x0B, 0x00, b""), (0x12, 0x06, _name("C")), (0x13, 0x02, _int16(n, n)),
            (0x10, 0x03, _int32(0, 0, 200 * n, 0, 0, 200 * n)), (0x11, 0x00, b"")]
    return gds_records(*gds_header(), *gds_cell("C", *gds_box(0, 0, 100)), *gds_cell("TOP", *aref), (0x04, 0x00, b""))


def rule2drc_problems(tasks, folder) -> str:
    """``tasks`` written as a Rule2DRC folder under ``folder``: the path of its ``problems/`` (an env or a Ray
    actor loads a few tasks from it in a fraction of a second, the whole suite takes seconds)."""
    from chipgym.tasks.drc.rule2drc import write_rule2drc

    write_rule2drc(tasks, folder)
    return str(folder / "problems")
