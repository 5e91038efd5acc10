"""chipgym drc grade and validate, run as a user would, on a labelled slice of drc-v0."""
from __future__ import annotations

import json
import subprocess
import sys

from chipgym.tasks.drc.rule2drc import write_rule2drc


def chipgym(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chipgym.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900)


def test_grade_gold_and_a_deck_one_nm_off(labelled_slice, tmp_path):
    task = next(t for t in labelled_slice if t.group == "sky130")
    problems = write_rule2drc([task], tmp_path / "suite")
    gold = problems / task.id / "gold" / f"{task.id}.drc"
    run = chipgym("drc", "grade", problems / task.id, gold, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["success"] is True
    value = task.thresholds and next(iter(task.thresholds.values()))
    off = tmp_path / "off.drc"
    off.write_text(task.gold_deck.replace(f"{value}", f"{round(value + 0.001, 3)}", 1))
    graded = json.loads(chipgym("drc", "grade", problems / task.id, off, "--json").stdout)
    assert graded["success"] is False and graded["mismatches"] and graded["f1"] < 1


def test_grade_many_candidate_decks_on_many_problems_in_one_call(labelled_slice, tmp_path):
    """Best-of-N: a folder of decks, {id}.drc or {id}/*.drc, each graded on the problem it names."""
    tasks = labelled_slice[:3]
    problems = write_rule2drc(tasks, tmp_path / "suite")
    decks = tmp_path / "decks"
    (decks / tasks[0].id).mkdir(parents=True)
    (decks / tasks[0].id / "a-gold.drc").write_text(tasks[0].gold_deck)
    (decks / tasks[0].id / "b-empty.drc").write_text("source($input)\nreport('x', $output)\n")
    (decks / f"{tasks[1].id}.drc").write_text(tasks[1].gold_deck)  # tasks[2] has no deck: not graded
    run = chipgym("drc", "grade", problems, decks)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split()[:3] for line in lines[:3]] == [
        [tasks[0].id, str(decks / tasks[0].id / "a-gold.drc"), "PASS"],
        [tasks[0].id, str(decks / tasks[0].id / "b-empty.drc"), "FAIL"],
        [tasks[1].id, str(decks / f"{tasks[1].id}.drc"), "PASS"],
    ]
    assert lines[3] == "2 of 3 decks pass; 2 of 2 problems have a passing deck"
    rows = json.loads(chipgym("drc", "grade", problems, decks, "--json").stdout)
    assert [(row["problem"], row["grade"]["success"]) for row in rows] == [
        (tasks[0].id, True), (tasks[0].id, False), (tasks[1].id, True)]
    refused = chipgym("drc", "grade", problems, decks / f"{tasks[1].id}.drc")
    assert refused.returncode == 2 and "name one problem folder" in refused.stderr
    next((problems / tasks[2].id).rglob("labels.csv")).unlink()  # a problem that does not load is counted
    broken = chipgym("drc", "grade", problems, decks)
    assert broken.stdout.splitlines()[3] == ("2 of 3 decks pass; 2 of 2 problems have a passing deck; 1 more did "
                                             "not load (count them as failed beside the paper's numbers)")
    assert "labels" in broken.stderr


def test_validate_a_slice(labelled_slice, tmp_path):
    problems = write_rule2drc(labelled_slice, tmp_path / "suite")
    run = chipgym("drc", "validate", problems, "--mutation-tasks", "1", "--extra", "20")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "valid: every gold deck matches its labels" in run.stdout
    assert run.stdout.count("mutation score") == 3
