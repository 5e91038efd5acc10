"""Shared fixtures: small real layouts and one KLayout pool for the whole test session."""

from __future__ import annotations

import pytest

from chipgym.engines.klayout import DrcPool

from layout_helpers import write_rectangles


@pytest.fixture(scope="session")
def layouts(tmp_path_factory):
    """A narrow wire (one width error), two wires 0.05 um apart (one space error), and a clean one."""
    folder = tmp_path_factory.mktemp("layouts")
    return {
        "narrow": write_rectangles(folder / "narrow.gds", [(0, 0, 0.1, 2), (1, 0, 2, 2)]),
        "close": write_rectangles(folder / "close.gds", [(0, 0, 1, 2), (1.05, 0, 2, 2)]),
        "clean": write_rectangles(folder / "clean.gds", [(0, 0, 1, 2)]),
    }


@pytest.fixture(scope="session")
def pool():
    with DrcPool(workers=2, timeout=4.0) as pool:
        yield pool
