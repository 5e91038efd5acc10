"""The KLayout DRC reference given to agents: every ```ruby example runs on real KLayout 0.28.5.

Fragments (blocks without their own `source(...)`) run after the prelude stated at the top of the
document, which is taken from the document itself so that the two cannot drift apart.
"""

from __future__ import annotations

import re
from pathlib import Path

import gdstk
import pytest

from chipgym.engines.klayout import DrcJob, DrcPool, DrcStatus

DOC = Path(__file__).resolve().parents[2] / "chipgym" / "envs" / "klayout_drc_reference.md"
MAX_BYTES = 50_000

# Methods and options of newer KLayout releases (0.29/0.30) that fail on the 0.28.5 binary.
NEWER_THAN_0_28_5 = [
    r"drc_hull",
    r"peel",
    r"rasterize",
    r"size_inside",
    r"size_outside",
    r"split_\w+",
    r"ignore_angle",
    r"intra_polygon",
    r"inter_polygon",
    r"without_touching_corners",
    r"without_touching_edges",
]

M1, VIA, M2, POLY, DIFF = (68, 20), (68, 44), (69, 20), (66, 20), (65, 20)


def blocks(text: str, info: str) -> list[str]:
    return re.findall(rf"^```{info}\n(.*?)^```", text, flags=re.M | re.S)


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def prelude() -> str:
    """The first ```text block: the lines every fragment runs after."""
    first = blocks(doc_text(), "text")[0]
    assert "source($input)" in first and "report(" in first
    return first


def as_deck(example: str) -> str:
    if re.search(r"^\s*source\(", example, flags=re.M):
        return example
    return prelude() + example


def write_layout(path: Path) -> Path:
    """Small shapes on the prelude's layers, with violations of the usual kinds and a hierarchy."""
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    top = library.new_cell("TOP")
    sub = library.new_cell("VIA_CELL")

    def box(x0, y0, x1, y1, layer):
        return gdstk.rectangle((x0, y0), (x1, y1), layer=layer[0], datatype=layer[1])

    shapes = [
        # metal1: a narrow wire 0.1 um from a wide one, two abutting boxes, a U with a 0.1 um notch,
        # a tiny square, a ring with a small hole
        (0, 0, 0.1, 2, M1), (0.2, 0, 1.2, 2, M1),
        (2, 0, 3, 1, M1), (3, 0, 4, 1, M1),
        (5, 0, 5.5, 2, M1), (5.6, 0, 6.1, 2, M1), (5, 0, 6.1, 0.5, M1),
        (7, 0, 7.1, 0.1, M1),
        (9, 0, 11, 0.9, M1), (9, 1.1, 11, 2, M1), (9, 0.9, 9.9, 1.1, M1), (10.1, 0.9, 11, 1.1, M1),
        # metal1: corner-to-corner pair 0.1 um apart in x and y, and a pair touching at a corner
        (30, 0, 31, 1, M1), (31.1, 1.1, 32, 2, M1), (33, 0, 34, 1, M1), (34, 1, 35, 2, M1),
        # vias: well enclosed, crossing the metal1 edge, outside metal1, edge-on with metal1
        (0.5, 0.5, 0.7, 0.7, VIA), (1.1, 1.0, 1.3, 1.2, VIA), (13, 0, 13.2, 0.2, VIA), (0.2, 1.5, 0.4, 1.7, VIA),
        (0.4, 0.4, 0.8, 0.8, M2), (1.0, 0.9, 1.35, 1.3, M2), (12.9, -0.1, 13.3, 0.3, M2),
        # a transistor with a short poly end cap, one with long end caps, poly touching diff
        (15, -0.1, 15.15, 1.1, POLY), (16, -0.5, 16.2, 1.5, POLY), (18, 0, 18.1, 1, POLY),
        (14.5, 0, 16.6, 1, DIFF), (18.1, 0.2, 19, 0.8, DIFF),
    ]
    for x0, y0, x1, y1, layer in shapes:
        top.add(box(x0, y0, x1, y1, layer))
    top.add(gdstk.Polygon([(20, 0), (22, 0), (20, 1)], layer=M1[0], datatype=M1[1]))  # acute corners
    sub.add(box(0, 0, 0.2, 0.2, VIA), box(-0.1, -0.1, 0.3, 0.3, M1), box(-0.1, -0.1, 0.3, 0.3, M2))
    top.add(gdstk.Reference(sub, (25, 0), columns=3, rows=1, spacing=(1, 0)))
    library.write_gds(str(path))
    return path


@pytest.fixture(scope="module")
def examples() -> list[str]:
    found = blocks(doc_text(), "ruby")
    assert len(found) >= 20
    return found


@pytest.fixture(scope="module")
def results(examples, tmp_path_factory):
    layout = write_layout(tmp_path_factory.mktemp("drc_reference") / "reference.gds")
    with DrcPool(workers=2) as pool:
        runs = pool.run_batch([DrcJob(as_deck(example), [layout]) for example in examples])
    return [run[0] for run in runs]


def test_every_ruby_example_runs_on_klayout(examples, results):
    failures = [
        f"example {i} ({result.status.value}): {result.error}\n{example}"
        for i, (example, result) in enumerate(zip(examples, results))
        if result.status is not DrcStatus.OK
    ]
    assert not failures, "\n\n".join(failures)


def test_every_output_category_reaches_the_report(examples, results):
    for example, result in zip(examples, results):
        code = re.sub(r"(^|\s)#.*$", "", example, flags=re.M)  # drop Ruby comments
        written = set(re.findall(r"\.output\(\"([^\"]+)\"", code))
        assert written <= set(result.counts), f"missing {written - set(result.counts)} in:\n{example}"


def test_the_examples_find_the_violations_they_describe(examples, results):
    """A few spot checks that the layout exercises the examples (an all-empty run would prove little)."""
    counts: dict[str, int] = {}
    for result in results:
        counts.update(result.counts)
    assert counts["m1.width"] > 0 and counts["m1.space"] > 0  # the skeleton deck
    assert counts["v1.cov"] > 0
    assert counts["po.ext"] > 0 and counts["df.ext"] == 0  # short end cap, long diff extension
    assert counts["via.edge"] > 0  # the edge-on via
    assert counts["sp.proj"] < counts["sp.sq"]  # corner-to-corner pair is not a projection error


def test_doc_names_no_method_missing_from_klayout_0_28_5():
    text = doc_text()
    found = [name for name in NEWER_THAN_0_28_5 if re.search(rf"\b{name}\b", text)]
    assert not found, f"not available in KLayout 0.28.5: {found}"


def test_doc_stays_small_enough_for_an_llm_context():
    size = len(doc_text().encode("utf-8"))
    assert 15_000 < size < MAX_BYTES, size


def test_unrunnable_blocks_are_marked_text():
    fences = re.findall(r"^```(\S*)$", doc_text(), flags=re.M)
    openers = fences[0::2]
    assert set(openers) <= {"ruby", "text"}, openers
    assert all(closer == "" for closer in fences[1::2])
