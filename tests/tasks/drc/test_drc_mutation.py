"""Deck mutants and their detection by the hidden layouts (real KLayout runs)."""
from __future__ import annotations

from chipgym.tasks.drc.mutate import mutants, mutation_scores, score_task

DECK = """source($input)
report("t", $output)
met1 = input(68, 20)
via = input(68, 44)
met1.enclosing(via, 0.055).output("via_4a", "enclosure")
via.non_squares.or(via.squares.without_bbox_width(0.15)).output("via_1a", "size")
"""


def test_every_operator_applies():
    found = {m.operator: m for m in mutants(DECK)}
    assert set(found) == {"threshold", "operation", "swap_layers", "metric", "drop_rule", "category"}
    assert "via.enclosing(met1, 0.055)" in found["swap_layers"].deck
    assert "0.055, projection)" in found["metric"].deck
    assert all(m.deck != DECK for m in mutants(DECK))
    assert "enclosure" in next(m.deck for m in mutants(DECK) if m.operator == "category")  # strings untouched


def test_threshold_mutants_are_one_dbu_and_ten_percent():
    values = {m.description.split(" -> ")[1].split(" ")[0] for m in mutants(DECK) if m.description.startswith("0.055")}
    assert values == {"0.054", "0.056", "0.05", "0.061"}
    assert not any(m.description.startswith(("68", "20", "44")) for m in mutants(DECK))  # layer numbers kept


def test_hidden_layouts_catch_mutants_on_slice(labelled_slice, pool):
    tasks = [t for t in labelled_slice if t.id.endswith("0000")]  # one task per group
    outcomes = [o for t in tasks for o in score_task(t, pool, extra=20)]
    scores = mutation_scores(outcomes)
    assert set(scores) == {"sky130", "synthetic", "syntax"}
    assert all(s["score"] >= 0.95 for s in scores.values()), scores
