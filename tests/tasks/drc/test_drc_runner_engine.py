"""The task code's deck-running callables on the real engine."""
from __future__ import annotations

import pytest

from chipgym.errors import DeckError
from chipgym.tasks.drc.suite.layouts import Scene, rect, scene_gds

DECK = ('source($input)\nreport("t", $output)\nm = input(68, 20)\n'
        'm.width(0.14).output("w", "width")\nm.space(0.14).output("s.x", "space")\n')


def _layout(tmp_path, name, width):
    path = tmp_path / f"{name}.gds"
    path.write_bytes(scene_gds(Scene(name, rect("m", 0, 0, width, 1000)), {"m": (68, 20)}))
    return path


def test_many_decks_many_layouts(pool, tmp_path):
    narrow, wide = _layout(tmp_path, "narrow", 139), _layout(tmp_path, "wide", 140)
    results = pool([DECK, DECK.replace("0.14)", "0.1)")], [narrow, wide])
    assert results == [[{"w": 1, "s.x": 0}, {"w": 0, "s.x": 0}], [{"w": 0, "s.x": 0}, {"w": 0, "s.x": 0}]]


def test_errors_are_per_layout(pool, tmp_path):
    ok = _layout(tmp_path, "ok", 200)
    missing = tmp_path / "missing.gds"
    [syntax] = pool(["source($input)\nreport('t', $output)\nfoo(\n"], [ok, ok])
    assert all(isinstance(v, DeckError) and str(v).startswith("compile") for v in syntax)
    with pytest.raises(FileNotFoundError, match="missing.gds"):
        pool([DECK], [ok, missing])
    chatty = pool.run_deck('puts "done"\nputs "ready"\n' + DECK, [ok, ok])
    assert chatty == [{"w": 0, "s.x": 0}] * 2
    (no_report,) = pool.run_deck("source($input)\n", [ok])
    assert isinstance(no_report, DeckError) and "report" in str(no_report)
