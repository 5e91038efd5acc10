"""Rule2DRC folders as published (and in the other forms its evaluator accepts) load and grade, on real KLayout."""
from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
import yaml

import chipgym  # noqa: F401  (registers the envs)
from chipgym.envs import drc_actions as act
from chipgym.errors import Rule2DrcFormatError
from chipgym.scoring.drc import grade
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.rule2drc import load_rule2drc, write_rule2drc

from layout_helpers import MET1, MET1_WIDTH_GOLD, write_rectangles

WIDTHS = {"fail/narrow.gds": 0.1, "pass/ok.gds": 0.5}  # data-folder path: met1 wire width (um)
FLAT_WIDTHS = {"narrow.gds": 0.1, "ok.gds": 0.5}


def filename_row(form: str, problem_id: str, relative: str) -> str:
    """A ``labels.csv`` filename in one of the forms the published evaluator accepts."""
    return {
        "root": f"problems/{problem_id}/data/gds/{relative}",
        "problem": f"data/gds/{relative}",
        "flat": f"data/{relative}",
        "bare": relative,
    }[form]


def write_problem(root: Path, problem_id: str, form: str = "root", widths: dict[str, float] = WIDTHS,
                  spec: dict | None = None) -> Path:
    """Writes ``root/problems/{problem_id}`` by hand, as the published data (or another form) has it."""
    problem = root / "problems" / problem_id
    data = problem / ("data" if form == "flat" else "data/gds")
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    writer.writerow(["filename", "m1.1"])
    for relative, width in widths.items():
        (data / relative).parent.mkdir(parents=True, exist_ok=True)
        write_rectangles(data / relative, [(0, 0, width, 2), (1, 0, 1.5, 2)], layer=MET1)
        writer.writerow([filename_row(form, problem_id, relative), int(width < 0.14)])
    (data / "labels.csv").write_text(rows.getvalue())
    (problem / "gold").mkdir(parents=True)
    (problem / "gold" / f"{problem_id}.drc").write_text(MET1_WIDTH_GOLD)
    full = {
        "id": problem_id, "title": "Metal 1 width", "nl_description": "Metal 1 must be at least 0.14 um wide.",
        "layers": {"met1": list(MET1)}, "thresholds": {"m1.1": 0.14},
        "rules": [{"text": "Metal 1 must be at least 0.14 um wide.", "category": "m1.1"}], "categories": ["m1.1"],
        "deck": f"problems/{problem_id}/gold/{problem_id}.drc" if form == "root" else f"gold/{problem_id}.drc",
        "data_dir": {"root": f"problems/{problem_id}/data/gds", "flat": "data"}.get(form, "data/gds"),
    }
    (problem / "spec.yaml").write_text(yaml.safe_dump(full if spec is None else spec))
    return problem


def only_task(path, **kwargs):
    folder = load_rule2drc(path, **kwargs)
    assert len(folder.tasks) == 1, folder.issues
    return folder.tasks[0], folder.issues


@pytest.mark.parametrize("form, widths", [
    ("root", WIDTHS), ("problem", WIDTHS), ("flat", FLAT_WIDTHS), ("bare", FLAT_WIDTHS), ("bare", WIDTHS),
])
def test_each_path_form_loads_and_grades(tmp_path, pool, form, widths):
    write_problem(tmp_path, "0001", form, widths)
    task, issues = only_task(tmp_path / "problems", strict=True)
    assert issues == ()
    assert sorted(c.name for c in task.hidden_testcases) == ["narrow", "ok"] and task.public_examples == ()
    assert (task.split, task.group, task.layers) == (None, "rule2drc", {"met1": MET1})
    assert grade(task, task.gold_deck, pool).success
    assert not grade(task, MET1_WIDTH_GOLD.replace("0.14)", "0.05)"), pool).success


def test_loads_from_any_working_directory(tmp_path, monkeypatch):
    write_problem(tmp_path / "data", "0001")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert only_task("../data/problems")[0].id == "0001"
    monkeypatch.chdir(tmp_path / "data")  # the published evaluator's working directory
    assert only_task("problems/0001")[0].id == "0001"


def test_a_spec_with_only_id_and_categories_loads_with_defaults(tmp_path, pool):
    write_problem(tmp_path, "0001", "problem", spec={"id": "0001", "categories": ["m1.1"]})
    write_problem(tmp_path, "named-by-folder", "problem", spec={"categories": ["m1.1"]})
    folder = load_rule2drc(tmp_path, strict=True)
    assert [t.id for t in folder.tasks] == ["0001", "named-by-folder"] and folder.issues == ()
    task = folder.tasks[0]
    assert (task.title, task.description, task.layers, task.thresholds) == ("0001", "", {}, {})
    assert task.rules == (("m1.1", "m1.1"),) and task.gold_deck == MET1_WIDTH_GOLD
    assert grade(task, task.gold_deck, pool).success


def test_a_category_labelled_1_everywhere_loads_silently(tmp_path, pool):
    write_problem(tmp_path, "0001", widths={"fail/a.gds": 0.1, "fail/b.gds": 0.12})
    task, issues = only_task(tmp_path)
    assert issues == () and {c.labels["m1.1"] for c in task.hidden_testcases} == {1}
    assert grade(task, task.gold_deck, pool).success


def test_a_category_labelled_0_everywhere_loads_with_a_warning(tmp_path, pool):
    problem = write_problem(tmp_path, "0001", widths={"pass/a.gds": 0.5, "pass/b.gds": 0.2})
    task, [issue] = only_task(tmp_path, strict=True)  # a warning, not a broken problem
    assert (issue.problem, issue.severity) == (problem, "warning")
    assert "'m1.1' is labelled 0 on every layout" in issue.message and "never succeeds" in issue.message
    assert "labels.csv" in issue.message
    assert grade(task, task.gold_deck, pool).success  # chipgym's verdict metric, unlike the published one


def test_one_stem_in_pass_and_fail_is_two_layouts(tmp_path, pool):
    write_problem(tmp_path, "0001", "root", {"fail/x.gds": 0.1, "pass/x.gds": 0.5, "pass/y.gds": 0.3})
    task, issues = only_task(tmp_path, strict=True)
    assert issues == () and sorted(c.name for c in task.hidden_testcases) == ["fail/x", "pass/x", "y"]
    assert grade(task, task.gold_deck, pool).success
    again = only_task(write_rule2drc([task], tmp_path / "again"))[0]
    assert again == task


def test_an_unlabelled_layout_is_reported_and_fails_the_precheck(tmp_path, pool):
    problem = write_problem(tmp_path, "0001")
    write_rectangles(problem / "data/gds/pass/stray.gds", [(0, 0, 1, 1)], layer=MET1)
    task, [issue] = only_task(tmp_path, strict=True)
    assert issue.severity == "warning" and "stray.gds" in issue.message and "precheck" in issue.message
    assert task.unlabelled_layouts == ("pass/stray.gds",) and len(task.hidden_testcases) == 2
    result = grade(task, task.gold_deck, pool)
    assert not result.success and "no label" in result.precheck
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=[task], regime="evaluation")
    try:
        env.reset(seed=0)
        env.step(act.write(task.gold_deck))
        obs, reward, terminated, _, info = env.step(act.submit())
        assert (reward, terminated, info["grade"]["success"]) == (0.0, True, False)
        assert info["grade"]["precheck"] == result.precheck and "precheck" in obs["feedback"]
    finally:
        env.close()


def test_one_broken_problem_does_not_stop_the_others(tmp_path):
    for problem_id in ("0001", "0002", "0003"):
        write_problem(tmp_path, problem_id)
    broken = tmp_path / "problems" / "0002"
    (broken / "data/gds/labels.csv").unlink()
    folder = load_rule2drc(tmp_path)
    assert [t.id for t in folder.tasks] == ["0001", "0003"]
    [issue] = folder.issues
    assert (issue.problem, issue.severity) == (broken, "error")
    assert str(broken) in issue.message and "labels.csv" in issue.message and "data_dir" in issue.message
    with pytest.raises(Rule2DrcFormatError, match="0002.*data_dir"):
        load_rule2drc(tmp_path, strict=True)
    with pytest.warns(UserWarning, match="0002"):
        assert [t.id for t in load_tasks(tmp_path, "train")] == ["0001", "0003"]


def test_the_cli_grades_a_published_problem_and_names_a_broken_one(tmp_path):
    problem = write_problem(tmp_path, "0001")
    write_problem(tmp_path, "0002")
    (tmp_path / "problems/0002/spec.yaml").write_text("categories: [m1.1]\nlayers: [oops]\n")
    cli = [sys.executable, "-m", "chipgym.cli", "drc", "grade"]
    gold = problem / "gold" / "0001.drc"
    run = subprocess.run([*cli, problem, gold, "--strict"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "0001: PASS" in run.stdout, run.stderr
    for strict in ([], ["--strict"]):
        run = subprocess.run([*cli, tmp_path / "problems/0002", gold, *strict], capture_output=True, text=True,
                             timeout=300)
        assert run.returncode != 0 and "spec.yaml: key layers" in run.stderr, run.stderr


def test_validate_reports_a_broken_problem_and_stops_at_it_with_strict(tmp_path):
    for problem_id in ("0001", "0002"):
        write_problem(tmp_path, problem_id)
    (tmp_path / "problems/0002/gold/0002.drc").unlink()
    cli = [sys.executable, "-m", "chipgym.cli", "drc", "validate", tmp_path, "--mutation-tasks", "0"]
    run = subprocess.run(cli, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "1 tasks" in run.stdout, run.stderr
    assert "error: " in run.stdout and "0002.drc: gold deck not found" in run.stdout
    run = subprocess.run([*cli, "--strict"], capture_output=True, text=True, timeout=300)
    assert run.returncode not in (0, 1) and "0002.drc: gold deck not found" in run.stderr, run.stderr


def test_the_env_grades_a_published_folder_in_the_evaluation_regime_only(tmp_path):
    """A published folder has one labelled set: training on it would teach its evaluation labels."""
    write_problem(tmp_path, "0001")
    with pytest.raises(ValueError, match="no training layouts.*regime='evaluation'"):
        gymnasium.make("chipgym/DrcScript-v0", tasks=str(tmp_path))
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=str(tmp_path), regime="evaluation")
    try:
        obs, info = env.reset(seed=0)
        assert info["task"] == "0001" and "m1.1" in obs["rule"]
        env.step(act.write(MET1_WIDTH_GOLD))
        _, reward, terminated, _, info = env.step(act.submit())
        assert (reward, terminated, info["grade"]["success"]) == (1.0, True, True)
    finally:
        env.close()


def test_an_export_is_graded_from_the_folder_holding_problems(tmp_path, monkeypatch):
    write_problem(tmp_path / "published", "0001", "problem", {"fail/x.gds": 0.1, "pass/x.gds": 0.5})
    task, _ = only_task(tmp_path / "published")
    problems = write_rule2drc([task], tmp_path / "export")
    monkeypatch.chdir(problems.parent)  # where the published evaluator runs; it reads every path from here
    spec = yaml.safe_load(Path("problems/0001/spec.yaml").read_text())
    assert spec["data_dir"] == "problems/0001/data/gds" and Path(spec["deck"]).is_file()
    rows = list(csv.DictReader(io.StringIO((Path(spec["data_dir"]) / "labels.csv").read_text())))
    assert [r["filename"] for r in rows] == ["problems/0001/data/gds/fail/x.gds", "problems/0001/data/gds/pass/x.gds"]
    assert all(Path(r["filename"]).is_file() for r in rows)
    assert only_task("problems", strict=True)[0] == task
