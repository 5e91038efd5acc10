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


def test_validate_a_slice(labelled_slice, tmp_path):
    problems = write_rule2drc(labelled_slice, tmp_path / "suite")
    run = chipgym("drc", "validate", problems, "--mutation-tasks", "1", "--extra", "20")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "valid: every gold deck matches its labels" in run.stdout
    assert run.stdout.count("mutation score") == 3
