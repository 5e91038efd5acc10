"""Rule2DRC folder format: loader errors, round trip, any working directory (published forms:
test_rule2drc_published.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from chipgym.errors import Rule2DrcFormatError
from chipgym.tasks.drc.rule2drc import load_rule2drc, write_rule2drc
from chipgym.tasks.drc.suite.layouts import Scene, rect, scene_gds
from chipgym.tasks.drc.task import DrcTask, Testcase

LAYERS = {"met1": (68, 20)}
DECK = 'source($input)\nreport("m1", $output)\nmet1 = input(68, 20)\nmet1.width(0.14).output("m1_1", "w")\n'


def _case(name: str, width: int) -> Testcase:
    data = scene_gds(Scene(name, rect("met1", 0, 0, width, 1000)), LAYERS)
    return Testcase(name, data, {"m1_1": int(width < 140)})


def _task(task_id: str = "0001") -> DrcTask:
    return DrcTask(
        id=task_id, title="m1.1", description="Minimum width of met1 is 0.14 um.", layers=LAYERS,
        rules=(("Minimum width of met1 is 0.14 um.", "m1_1"),), categories=("m1_1",), gold_deck=DECK,
        public_examples=(_case("pub_ok", 200),), hidden_testcases=(_case("narrow", 139), _case("ok", 140)),
        group="sky130", thresholds={"m1_1": 0.14}, split="train", metadata={"source": "test"},
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_round_trip_is_byte_identical(tmp_path):
    first = write_rule2drc([_task()], tmp_path / "a")
    loaded = load_rule2drc(first).tasks
    second = write_rule2drc(loaded, tmp_path / "b")
    assert _tree(first) == _tree(second)
    (task,) = loaded
    original = _task()
    assert task.agent_view().rules == original.rules
    assert [c.name for c in task.hidden_testcases] == ["narrow", "ok"]
    assert [c.gds_bytes() for c in task.public_examples] == [c.gds_bytes() for c in original.public_examples]
    assert (task.gold_deck, task.group, task.split, task.thresholds) == (DECK, "sky130", "train", {"m1_1": 0.14})


def test_loads_from_any_working_directory(tmp_path, monkeypatch):
    problems = write_rule2drc([_task("0001"), _task("0002")], tmp_path / "data")
    monkeypatch.chdir(tmp_path.parent)
    assert [t.id for t in load_rule2drc(problems).tasks] == ["0001", "0002"]
    assert [t.id for t in load_rule2drc(problems.parent).tasks] == ["0001", "0002"]
    assert [t.id for t in load_rule2drc(os.path.relpath(problems / "0002")).tasks] == ["0002"]


def test_upstream_layout_without_public_key_is_all_hidden(tmp_path):
    problems = write_rule2drc([_task()], tmp_path)
    spec_path = problems / "0001" / "spec.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    for key in ("public_examples", "group", "split", "metadata"):
        del spec[key]
    spec_path.write_text(yaml.safe_dump(spec))
    (task,) = load_rule2drc(problems).tasks
    assert task.public_examples == () and len(task.hidden_testcases) == 3
    assert (task.group, task.split) == ("rule2drc", None)


def _broken(tmp_path: Path, edit) -> Path:
    problems = write_rule2drc([_task()], tmp_path)
    edit(problems / "0001")
    return problems


def _edit_spec(change):
    def edit(problem: Path) -> None:
        spec = yaml.safe_load((problem / "spec.yaml").read_text())
        change(spec)
        (problem / "spec.yaml").write_text(yaml.safe_dump(spec))
    return edit


def _edit_labels(transform):
    def edit(problem: Path) -> None:
        path = problem / "data" / "gds" / "labels.csv"
        path.write_text(transform(path.read_text()))
    return edit


@pytest.mark.parametrize(
    "edit, file_name, message",
    [
        (_edit_spec(lambda s: s.pop("categories")), "spec.yaml", "missing key categories"),
        (_edit_spec(lambda s: s.update(layers={"met1": 68})), "spec.yaml", "key layers: unexpected value"),
        (_edit_spec(lambda s: s.update(split="validation")), "spec.yaml", "key split: unexpected value"),
        (_edit_spec(lambda s: s.update(data_dir="nowhere")), "spec.yaml", "data_dir 'nowhere': labels file not found"),
        (lambda p: (p / "gold" / "0001.drc").unlink(), "0001.drc", "gold deck not found"),
        (_edit_labels(lambda t: t.replace("filename,m1_1", "filename,m1_1,extra").replace(",1\n", ",1,0\n")
                      .replace(",0\n", ",0,0\n")), "labels.csv", "extra ['extra']"),
        (_edit_labels(lambda t: "filename\n" + "".join(row.split(",")[0] + "\n" for row in t.splitlines()[1:])),
         "labels.csv", "missing ['m1_1']"),
        (_edit_labels(lambda t: t.splitlines()[0] + "\n"), "labels.csv", "no labelled layouts"),
        (_edit_labels(lambda t: t + t.splitlines()[1] + "\n"), "labels.csv", "more than one row"),
        (lambda p: (p / "data" / "gds" / "fail" / "narrow.gds").write_bytes(b"not a gds"), "narrow.gds",
         "unreadable layout"),
        (lambda p: (p / "data" / "gds" / "pass" / "ok.gds").unlink(), "labels.csv", "not found"),
    ],
)
def test_loader_errors_name_the_file(tmp_path, edit, file_name, message):
    problems = _broken(tmp_path, edit)
    with pytest.raises(Rule2DrcFormatError) as info:
        load_rule2drc(problems, strict=True)
    assert isinstance(info.value, ValueError)
    assert file_name in str(info.value) and message in str(info.value)
    folder = load_rule2drc(problems)
    assert folder.tasks == () and [(i.problem, i.severity) for i in folder.issues] == [(problems / "0001", "error")]
    assert str(info.value) in str(folder.issues[0])


def test_two_problems_with_one_id_are_refused_naming_both_folders(tmp_path):
    problems = write_rule2drc([_task("0001"), _task("0002")], tmp_path)
    spec_path = problems / "0002" / "spec.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    spec["id"] = "0001"
    spec_path.write_text(yaml.safe_dump(spec))
    with pytest.raises(Rule2DrcFormatError) as error:
        load_rule2drc(problems, strict=True)
    assert str(problems / "0001") in str(error.value) and str(problems / "0002") in str(error.value)
    folder = load_rule2drc(problems)
    assert [t.id for t in folder.tasks] == ["0001"] and [i.problem for i in folder.issues] == [problems / "0002"]
