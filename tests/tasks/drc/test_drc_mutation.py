"""Deck mutants and their detection by the hidden layouts (real KLayout runs)."""
from __future__ import annotations

from chipgym.tasks.drc.mutate import mutants, mutation_scores, probe_scenes, score_task
from chipgym.tasks.drc.suite.layouts import scene_gds
from chipgym.tasks.drc.task import DrcTask

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
    assert all(m.deck != DECK for m in mutants(DECK))
    assert "enclosure" in next(m.deck for m in mutants(DECK) if m.operator == "category")  # strings untouched


def test_metric_mutants_try_every_other_metric():
    metrics = [m.description for m in mutants(DECK + "met1.width(0.14, projection).output(\"m1\", \"w\")\n")
               if m.operator == "metric"]
    assert metrics == [".enclosing(via, 0.055) -> (via, 0.055, projection)",
                       ".enclosing(via, 0.055) -> (via, 0.055, square)",
                       ".width(0.14, projection) -> (0.14, euclidian)", ".width(0.14, projection) -> (0.14, square)"]


def test_probe_layouts_tell_the_metrics_apart(pool, tmp_path):
    """The probes judging equivalence include layouts where a width check's metric changes the verdict (a
    corner pinch), and where an end-of-line space check does."""
    task = DrcTask(id="t", title="t", description="", layers={"met1": (68, 20)}, rules=(), categories=("w", "s"),
                   public_examples=(), hidden_testcases=(), group="syntax", gold_deck="",
                   thresholds={"w": 0.14, "s": 0.2})
    scenes = probe_scenes(task)
    paths = []
    for scene in scenes:
        paths.append(tmp_path / f"{scene.name}.gds")
        paths[-1].write_bytes(scene_gds(scene, task.layers))
    decks = [f'source($input)\nreport("t", $output)\nmet1 = input(68, 20)\nmet1.{check}.output("x", "x")\n'
             for check in ("width(0.14)", "width(0.14, projection)", "space(0.2)", "space(0.2, projection)")]
    verdicts = [[bool(v.get("x")) for v in per_deck] for per_deck in pool(decks, paths)]
    assert verdicts[0] != verdicts[1] and verdicts[2] != verdicts[3]

    values = {m.description.split(" -> ")[1].split(" ")[0] for m in mutants(DECK) if m.description.startswith("0.055")}
    assert values == {"0.054", "0.056", "0.05", "0.061"}
    assert not any(m.description.startswith(("68", "20", "44")) for m in mutants(DECK))  # layer numbers kept


def test_hidden_layouts_catch_mutants_on_slice(labelled_slice, pool):
    tasks = [t for t in labelled_slice if t.id.endswith("0000")]  # one task per group
    outcomes = [o for t in tasks for o in score_task(t, pool, extra=20)]
    scores = mutation_scores(outcomes)
    assert set(scores) == {"sky130", "synthetic", "syntax"}
    assert all(s["score"] >= 0.95 for s in scores.values()), scores
