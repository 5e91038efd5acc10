"""The two grading metrics on real KLayout: chipgym's (the default) and the published Rule2DRC evaluator's.

The first tests are the published evaluator's own unit-test scenarios (its ``tests/test_klayout_eval.py``),
run here on real layouts and decks instead of a replaced ``run_klayout``; the rest cover the other rows of
``docs/rule2drc.md``, one test per row.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
import yaml

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.engines.klayout import DrcPool
from chipgym.envs import drc_actions as act
from chipgym.envs.episode import replay
from chipgym.scoring.drc import Grade, LayoutError, Mismatch, grade, grade_many
from chipgym.tasks.drc.rule2drc import load_rule2drc

from layout_helpers import write_rectangles

RULES = {"WIDTH": 'metal.width(0.2).output("WIDTH", "Minimum width 0.2 micrometers")\n',
         "SPACE": 'metal.space(0.2).output("SPACE", "Minimum space 0.2 micrometers")\n'}
CLEAN_BBOX = 400  # dbu: the width of a clean layout, one 0.4 um wire
WHERE_CLEAN = f"metal.data.bbox.width == {CLEAN_BBOX}"
WHERE_FLAGGED = f"metal.data.bbox.width != {CLEAN_BBOX}"


def deck(fails_if: str = "", categories: tuple[str, ...] = ("WIDTH",)) -> str:
    """The evaluator's test deck, with the rules of ``categories``, raising where ``fails_if`` (Ruby) holds."""
    guard = f'raise "Deliberate test failure" if {fails_if}\n' if fails_if else ""
    return ('source($input)\nreport("Synthetic width", $output)\nmetal = input(1, 0)\n' + guard
            + "".join(RULES[c] for c in categories))


GOLD = deck()
FAILS_WHERE_CLEAN = deck(WHERE_CLEAN)
FAILS_WHERE_FLAGGED = deck(WHERE_FLAGGED)
FAILS_EVERYWHERE = deck("true")
BLIND = GOLD.replace("width(0.2)", "width(0.05)")  # runs everywhere, flags nothing


def shapes(labels: dict[str, int]) -> list[tuple[float, float, float, float]]:
    """Rectangles (um) that violate exactly the labelled categories: a 0.1 um wire for WIDTH, two 0.4 um wires
    0.1 um apart for SPACE, else one clean 0.4 um wire."""
    found = [(0, 0, 0.1, 1)] if labels.get("WIDTH") else []
    found += [(2, 0, 2.4, 1), (2.5, 0, 2.9, 1)] if labels.get("SPACE") else []
    return found or [(0, 0, 0.4, 1)]


def write_problem(root: Path, labels: list[list[int]], categories: tuple[str, ...] = ("WIDTH",), form: str = "flat",
                  spec: dict | None = None) -> Path:
    """A problem as the evaluator's tests write one: ``data/{i}.gds`` and a spec with only ``id``, ``data_dir``
    and ``categories``; the ``filename`` column is ``data/{i}.gds`` (flat) or ``{i}.gds`` (bare)."""
    problem = root / "synthetic"
    (problem / "data").mkdir(parents=True)
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    writer.writerow(["filename", *categories])
    for index, label in enumerate(labels):
        write_rectangles(problem / "data" / f"{index}.gds", shapes(dict(zip(categories, label))))
        writer.writerow([f"data/{index}.gds" if form == "flat" else f"{index}.gds", *label])
    (problem / "data" / "labels.csv").write_text(rows.getvalue())
    (problem / "gold").mkdir()
    (problem / "gold" / "synthetic.drc").write_text(GOLD)
    base = {"id": "synthetic", "data_dir": "data", "categories": list(categories)}
    (problem / "spec.yaml").write_text(yaml.safe_dump({**base, **(spec or {})}))
    return problem


def grades(problem: Path, deck_text: str, pool: DrcPool) -> dict[str, Grade]:
    """The deck's grade under each metric."""
    [task] = load_rule2drc(problem, strict=True).tasks
    return {metric: grade(task, deck_text, pool, metric=metric) for metric in ("chipgym", "rule2drc")}


# -- the published evaluator's unit-test scenarios ------------------------------------------------------------------
@pytest.mark.parametrize("form", ["flat", "bare"])
def test_failed_zero_label_case_cannot_succeed(tmp_path, pool, form):
    result = grades(write_problem(tmp_path, [[1], [0]], form=form), FAILS_WHERE_CLEAN, pool)
    name = "data/1.gds" if form == "flat" else "1.gds"
    for metric, graded in result.items():
        assert not graded.success and graded.compile_rate == 0.5 and graded.n_cases == 2
        assert graded.mismatches == () and graded.precheck == "" and graded.metric == metric
        assert graded.errors == (LayoutError(name, "runtime"),) and graded.error == "runtime"
    # F1 exact: the published evaluator counts the failed layout as predicting 0 (here right), chipgym as wrong
    assert result["rule2drc"].categories["WIDTH"].f1 == 1.0
    assert result["chipgym"].categories["WIDTH"].f1 == pytest.approx(2 / 3)


def test_successful_matching_executions_still_succeed(tmp_path, pool):
    for graded in grades(write_problem(tmp_path, [[1], [0]]), GOLD, pool).values():
        assert graded.success and graded.compile_rate == 1.0 and graded.errors == () and graded.f1 == 1.0


def test_failed_positive_label_case_remains_unsuccessful(tmp_path, pool):
    for graded in grades(write_problem(tmp_path, [[1], [0]]), FAILS_WHERE_FLAGGED, pool).values():
        assert not graded.success and graded.compile_rate == 0.5
        # the evaluator lists data/0.gds under mismatches; chipgym lists it as the error it is
        assert graded.errors == (LayoutError("data/0.gds", "runtime"),) and graded.mismatches == ()
        assert graded.categories["WIDTH"].f1 == 0.0


def test_all_failed_executions_remain_unsuccessful(tmp_path, pool):
    for graded in grades(write_problem(tmp_path, [[1], [0]]), FAILS_EVERYWHERE, pool).values():
        assert not graded.success and graded.compile_rate == 0.0 and graded.error_counts == {"runtime": 2}


def test_successful_execution_with_wrong_label_remains_unsuccessful(tmp_path, pool):
    for graded in grades(write_problem(tmp_path, [[1], [0]]), BLIND, pool).values():
        assert not graded.success and graded.compile_rate == 1.0
        assert graded.mismatches == (Mismatch("data/0.gds", "WIDTH", 1, 0),)


def test_failure_with_multiple_categories_cannot_succeed(tmp_path, pool):
    problem = write_problem(tmp_path, [[1, 1], [0, 0]], categories=("WIDTH", "SPACE"))
    both = ("WIDTH", "SPACE")
    assert all(g.success for g in grades(problem, deck(categories=both), pool).values())
    for graded in grades(problem, deck(WHERE_CLEAN, both), pool).values():
        assert not graded.success and graded.mismatches == ()
        assert graded.errors == (LayoutError("data/1.gds", "runtime"),)


def test_an_all_negative_category_never_succeeds_under_rule2drc(tmp_path, pool):
    result = grades(write_problem(tmp_path, [[0], [0]]), GOLD, pool)
    assert not result["rule2drc"].success and result["rule2drc"].compile_rate == 1.0
    assert result["rule2drc"].mismatches == () and result["rule2drc"].categories["WIDTH"].f1 == 0.0
    assert result["chipgym"].success and result["chipgym"].categories["WIDTH"].f1 == 1.0


def test_a_spec_with_only_id_and_categories_grades_as_the_evaluator_does(tmp_path, pool):
    problem = tmp_path / "synthetic_width"  # the evaluator's KLayout tests: data at the default data/gds
    data = problem / "data" / "gds"
    data.mkdir(parents=True)
    write_rectangles(data / "fail.gds", [(0, 0, 0.1, 1)])
    write_rectangles(data / "pass.gds", [(0, 0, 0.4, 1)])
    (data / "labels.csv").write_text("filename,WIDTH\nfail.gds,1\npass.gds,0\n")
    (problem / "gold").mkdir()
    (problem / "gold" / "synthetic_width.drc").write_text(GOLD)
    (problem / "spec.yaml").write_text("id: synthetic_width\ncategories: [WIDTH]\n")
    assert grades(problem, GOLD, pool)["rule2drc"].success
    failed = grades(problem, FAILS_WHERE_CLEAN, pool)["rule2drc"]
    assert (failed.success, failed.compile_rate, failed.mismatches, failed.precheck) == (False, 0.5, (), "")


# -- the other differences ----------------------------------------------------------------------------------------
def test_an_undefined_category_counts_under_rule2drc_only_when_it_fires(tmp_path, pool):
    problem = write_problem(tmp_path, [[1], [0]])
    quiet = grades(problem, GOLD + 'metal.width(0.01).output("EXTRA", "never fires")\n', pool)
    assert quiet["rule2drc"].success and quiet["rule2drc"].extra_categories == 0
    assert not quiet["chipgym"].success and quiet["chipgym"].extra_categories == 1
    assert quiet["chipgym"].error is None and quiet["chipgym"].mismatches == ()  # not a run error
    firing = grades(problem, GOLD + 'metal.width(0.2).output("EXTRA", "fires")\n', pool)
    for graded in firing.values():
        assert not graded.success and graded.extra_categories == 1 and graded.error is None
        assert "EXTRA" not in repr(graded)  # a name the deck made up is not kept


def test_a_quoted_category_name_matches_under_chipgym_only(tmp_path, pool):
    """KLayout writes m1.1 into the report as 'm1.1'; the published evaluator compares that text with m1.1."""
    problem = write_problem(tmp_path, [[1], [0]], categories=("m1.1",))
    write_rectangles(problem / "data" / "0.gds", shapes({"WIDTH": 1}))
    result = grades(problem, GOLD.replace('"WIDTH"', '"m1.1"'), pool)
    assert result["chipgym"].success
    assert not result["rule2drc"].success and result["rule2drc"].extra_categories == 1
    assert result["rule2drc"].mismatches == (Mismatch("data/0.gds", "m1.1", 1, 0),)


def test_an_unlabelled_layout_fails_the_precheck_under_both(tmp_path, pool):
    problem = write_problem(tmp_path, [[1], [0]])
    write_rectangles(problem / "data" / "stray.gds", [(0, 0, 0.4, 1)])
    for metric, graded in grades(problem, GOLD, pool).items():
        assert not graded.success and "no label" in graded.precheck and graded.metric == metric
        assert graded.n_cases == 0 and graded.compile_rate == 0.0  # the deck is not run


def test_rule2drc_grades_the_public_examples_too(tmp_path, pool):
    """The evaluator runs every layout of the data folder; chipgym's public examples are the agent's to see."""
    problem = write_problem(tmp_path, [[1], [0], [1]], spec={"public_examples": ["data/2.gds"]})
    write_rectangles(problem / "data" / "2.gds", [(0, 0, 0.15, 1)])  # narrow, but less so than data/0.gds
    result = grades(problem, GOLD.replace("width(0.2)", "width(0.12)"), pool)
    assert result["chipgym"].success and result["chipgym"].n_cases == 2
    assert not result["rule2drc"].success and result["rule2drc"].n_cases == 3
    assert result["rule2drc"].mismatches == (Mismatch("data/2.gds", "WIDTH", 1, 0),)


def test_markers_mode_is_refused_beside_the_published_metric(tmp_path, pool):
    [task] = load_rule2drc(write_problem(tmp_path, [[1], [0]]), strict=True).tasks
    with pytest.raises(ValueError, match="verdicts only"):
        grade_many([(task, GOLD)], pool, {task.id: []}, metric="rule2drc")
    with pytest.raises(ValueError, match="metric"):
        grade(task, GOLD, pool, metric="paper")
    with pytest.raises(ValueError, match="verdicts only"):
        gymnasium.make("chipgym/DrcScript-v0", tasks=str(tmp_path), grade="markers", metric="rule2drc")


def test_mismatches_are_named_by_the_published_path(tmp_path, pool):
    """Published data names a layout from the folder holding problems/: problems/{id}/data/gds/fail/x.gds."""
    problem = tmp_path / "problems" / "0001"
    data = problem / "data" / "gds"
    for where, width in (("fail", 0.1), ("pass", 0.4)):
        (data / where).mkdir(parents=True)
        write_rectangles(data / where / "x.gds", [(0, 0, width, 1)])
    (data / "labels.csv").write_text("filename,WIDTH\nproblems/0001/data/gds/fail/x.gds,1\n"
                                     "problems/0001/data/gds/pass/x.gds,0\n")
    (problem / "spec.yaml").write_text("id: '0001'\ndata_dir: problems/0001/data/gds\ncategories: [WIDTH]\n")
    (problem / "gold").mkdir()
    (problem / "gold" / "0001.drc").write_text(GOLD)
    for graded in grades(problem, FAILS_EVERYWHERE, pool).values():
        assert [e.layout for e in graded.errors] == ["problems/0001/data/gds/fail/x.gds",
                                                     "problems/0001/data/gds/pass/x.gds"]
    for graded in grades(problem, BLIND, pool).values():
        assert graded.mismatches == (Mismatch("problems/0001/data/gds/fail/x.gds", "WIDTH", 1, 0),)


def chipgym_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chipgym.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def test_the_cli_takes_the_metric_and_prints_the_evaluator_fields(tmp_path):
    problem = write_problem(tmp_path, [[1], [0]])
    deck = tmp_path / "deck.drc"
    deck.write_text(FAILS_WHERE_CLEAN)
    run = chipgym_cli("drc", "grade", problem, deck, "--metric", "rule2drc", "--json")
    assert run.returncode == 0, run.stderr
    graded = json.loads(run.stdout)
    fields = (graded["metric"], graded["success"], graded["compile_rate"], graded["n_cases"])
    assert fields == ("rule2drc", False, 0.5, 2)
    assert graded["errors"] == [{"layout": "data/1.gds", "error": "runtime"}] and graded["mismatches"] == []
    assert Grade.from_dict(graded).errors == (LayoutError("data/1.gds", "runtime"),)
    text = chipgym_cli("drc", "grade", problem, deck, "--metric", "rule2drc").stdout
    assert "FAIL (rule2drc metric)" in text and "ran on 50%" in text and "  data/1.gds  runtime" in text
    refused = chipgym_cli("drc", "grade", problem, deck, "--metric", "rule2drc", "--mode", "markers")
    assert refused.returncode == 2 and "verdicts only" in refused.stderr


def test_the_timeout_is_per_layout_and_takes_the_evaluators_120_s(tmp_path):
    """A deck that sleeps 4 s on each of 2 layouts passes under a 6 s timeout (it is per layout; the 2 s margin is
    for a loaded machine), and one that sleeps past the default 20 s on one layout passes under 120 s (no hidden
    cap) and times out under 2 s."""
    problem = write_problem(tmp_path, [[1], [0]])
    for name, sleep, timeout in (("each", "sleep 4", 6), ("long", f"sleep 21 if {WHERE_CLEAN}", 120)):
        (tmp_path / f"{name}.drc").write_text(GOLD.replace("metal = input(1, 0)\n", f"metal = input(1, 0)\n{sleep}\n"))
        run = chipgym_cli("drc", "grade", problem, tmp_path / f"{name}.drc", "--timeout", timeout, "--json")
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["success"] is True
    slow = chipgym_cli("drc", "grade", problem, tmp_path / "long.drc", "--timeout", 2, "--json")
    assert json.loads(slow.stdout)["errors"] == [{"layout": "data/1.gds", "error": "timeout"}]


def test_the_env_takes_the_metric_and_replay_reproduces_it(tmp_path):
    write_problem(tmp_path, [[1], [0]])
    quiet_extra = GOLD + 'metal.width(0.01).output("EXTRA", "never fires")\n'
    rewards = {}
    for metric in ("chipgym", "rule2drc"):
        env = gymnasium.make("chipgym/DrcScript-v0", tasks=str(tmp_path), metric=metric, regime="evaluation",
                             timeout=120)
        try:
            assert env.unwrapped._grader.timeout == 120
            env.reset(seed=0)
            env.step(act.write(quiet_extra))
            rewards[metric] = env.step(act.submit())[1]
            env.unwrapped.save_episode(tmp_path / f"{metric}.json")
        finally:
            env.close()
        assert json.loads((tmp_path / f"{metric}.json").read_text())["kwargs"]["metric"] == metric
        result = replay(tmp_path / f"{metric}.json")
        assert result.ok and result.rewards == [0.0, rewards[metric]]
    assert rewards == {"chipgym": 0.0, "rule2drc": 1.0}
