"""Hostile Rule2DRC folders (issue 26, section 4), on real files: a bad problem is that problem's error issue
and the others load (``strict`` raises it); only regular files under a size cap are read; YAML has no alias
and a bounded depth; every path stays inside the problem folder; ids are safe; layouts are not parsed when
loaded; nothing is written outside the folder chosen."""
from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path
from typing import Callable

import pytest
import yaml

from chipgym.baselines.selection.experiment import record_path
from chipgym.errors import Rule2DrcFormatError
from chipgym.tasks.drc import rule2drc
from chipgym.tasks.drc.rule2drc import load_rule2drc, write_rule2drc
from chipgym.tasks.drc.task import DrcTask, Testcase

from layout_helpers import huge_array_gds, met1_width_task, recursive_gds

pytestmark = pytest.mark.timeout(60)  # a FIFO opened or a 64 GiB file read fails the test instead of hanging it

GOOD, BAD = "0001", "0002"
HUGE = 64 << 30  # a sparse file of 64 GiB


@pytest.fixture
def task(tmp_path) -> DrcTask:
    return met1_width_task(tmp_path, {}, {"narrow": 0.1, "ok": 0.5})


@pytest.fixture
def problems(tmp_path, task) -> Path:
    """``published/problems/`` with a good problem and one to break, and beside it, outside, another problem."""
    write_rule2drc([dataclasses.replace(task, id="victim")], tmp_path / "elsewhere")
    return write_rule2drc([dataclasses.replace(task, id=i) for i in (GOOD, BAD)], tmp_path / "published")


def victim(problems: Path) -> Path:
    return problems.parent.parent / "elsewhere" / "problems" / "victim"


def refused(problems: Path, *words: str) -> None:
    """The broken problem is one error issue whose message has ``words``, the good one loads, and ``strict``
    raises that error."""
    folder = load_rule2drc(problems)
    assert [t.id for t in folder.tasks] == [GOOD], folder.issues
    [issue] = folder.issues
    assert (issue.problem, issue.severity) == (problems / BAD, "error")
    assert all(word in issue.message for word in words), issue.message
    with pytest.raises(Rule2DrcFormatError) as error:
        load_rule2drc(problems, strict=True)
    assert str(error.value) == issue.message


def spec_text(problem: Path, text: str) -> None:
    (problem / "spec.yaml").write_text(text)


def edit_spec(problem: Path, **changes) -> None:
    spec = yaml.safe_load((problem / "spec.yaml").read_text())
    spec_text(problem, yaml.safe_dump({**spec, **changes}))


def labels_row(problem: Path, filename: str) -> None:
    """Points the first layout row of ``labels.csv`` at ``filename``."""
    path = problem / "data" / "gds" / "labels.csv"
    header, first, *rest = path.read_text().splitlines()
    path.write_text("\n".join([header, f"{filename},{first.split(',')[1]}", *rest]) + "\n")


def replace(path: Path, make: Callable[[Path], object]) -> None:
    path.unlink()
    make(path)


def sparse(path: Path, size: int = HUGE) -> None:
    """``path`` (its bytes kept, so a layout still starts as a GDSII stream) grown to ``size`` without writing."""
    os.truncate(path, size)


NARROW = Path("data/gds/fail/narrow.gds")
DECK = Path(f"gold/{BAD}.drc")
LABELS = Path("data/gds/labels.csv")

ALIAS_BOMB = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}' if i else 'lol'] * 10)}]\n" for i in range(10)) \
    + "nl_description: *l9\n"


@pytest.mark.parametrize("attack, words", [
    pytest.param(lambda p: spec_text(p, (p / "spec.yaml").read_text() + ALIAS_BOMB), ("spec.yaml", "aliases"),
                 id="alias bomb"),
    pytest.param(lambda p: spec_text(p, (p / "spec.yaml").read_text() + "metadata: " + "[" * 100_000
                                     + "]" * 100_000 + "\n"), ("spec.yaml", "nested deeper than"), id="deep nesting"),
    pytest.param(lambda p: spec_text(p, (p / "spec.yaml").read_text() + "thresholds: {m1.1: " + "1" * 5000 + "}\n"),
                 ("spec.yaml", "invalid YAML"), id="5000-digit integer"),
    pytest.param(lambda p: (p / "spec.yaml").write_bytes((p / "spec.yaml").read_bytes() + b"title: \xff\xfe\n"),
                 ("spec.yaml", "not UTF-8"), id="non-UTF-8 spec"),
    pytest.param(lambda p: sparse(p / "spec.yaml"), ("spec.yaml", "over the limit"), id="64 GiB spec"),
    pytest.param(lambda p: replace(p / "spec.yaml", os.mkfifo), ("spec.yaml", "not a regular file"), id="FIFO spec"),
    pytest.param(lambda p: (p / LABELS).write_bytes((p / LABELS).read_bytes() + b"\xff.gds,0\n"),
                 ("labels.csv", "not UTF-8"), id="non-UTF-8 labels"),
    pytest.param(lambda p: replace(p / LABELS, os.mkfifo), ("labels.csv", "not a regular file"), id="FIFO labels"),
    pytest.param(lambda p: (p / LABELS).write_text("filename,m1.1\n" + "x" * 200_000 + ",1\n"),
                 ("labels.csv", "not a CSV file"), id="CSV field over the csv limit"),
    pytest.param(lambda p: (p / DECK).write_bytes(b"source($input)\n# \xc3\x28\n"), ("0002.drc", "not UTF-8"),
                 id="non-UTF-8 deck"),
    pytest.param(lambda p: sparse(p / DECK), ("0002.drc", "over the limit"), id="64 GiB deck"),
    pytest.param(lambda p: sparse(p / NARROW), ("narrow.gds", "over the limit"), id="64 GiB sparse GDS"),
    pytest.param(lambda p: replace(p / NARROW, os.mkfifo), ("narrow.gds", "not a regular file"), id="FIFO GDS"),
    pytest.param(lambda p: replace(p / NARROW, os.mkdir), ("narrow.gds", "not a regular file"), id="folder as GDS"),
    pytest.param(lambda p: (p / NARROW).write_bytes((p / NARROW).read_bytes()[:-40]), ("narrow.gds", "not a GDSII"),
                 id="truncated GDS"),
])
def test_a_hostile_file_is_its_problems_issue(problems, attack, words):
    attack(problems / BAD)
    refused(problems, *words)


def test_a_device_is_not_read(problems):
    try:
        replace(problems / BAD / NARROW, lambda p: os.mknod(p, 0o600 | stat.S_IFCHR, os.makedev(1, 5)))  # /dev/zero
    except PermissionError:
        pytest.skip("no permission to make a device node here")
    refused(problems, "narrow.gds", "not a regular file")


@pytest.mark.parametrize("key, value, word", [
    ("layers", {"met1": [float("inf"), 20]}, "inf"),
    ("layers", {"met1": [68, float("nan")]}, "nan"),
    ("layers", {"met1": [70000, 20]}, "70000"),
    ("layers", {"met1": [-1, 20]}, "-1"),
    ("layers", {"met1": [10**400, 20]}, "expected an integer"),
    ("layers", {"met1": [True, 20]}, "True"),
    ("layers", {"met1": [68.5, 20]}, "68.5"),
    ("layers", {"met1": [68, 20, 5]}, "[layer, datatype]"),
    ("thresholds", {"m1.1": float("inf")}, "finite"),
    ("thresholds", {"m1.1": float("nan")}, "finite"),
    ("thresholds", {"m1.1": 10**400}, "OverflowError"),
])
def test_a_number_out_of_range_is_refused_naming_its_key(problems, key, value, word):
    edit_spec(problems / BAD, **{key: value})
    refused(problems, "spec.yaml", f"key {key}: unexpected value", word)


def test_layer_numbers_at_the_ends_of_the_range_load(problems):
    edit_spec(problems / BAD, layers={"met1": [0, 65535], "met2": [69.0, 20]})
    assert {t.id: t.layers for t in load_rule2drc(problems, strict=True).tasks}[BAD] == \
        {"met1": (0, 65535), "met2": (69, 20)}


def to_victim(problem: Path, *parts: str) -> str:
    """An absolute path into the other problem's folder."""
    return str(victim(problem.parent).joinpath(*parts))


UP = "../elsewhere/problems/victim"  # from the folder holding problems/ to the other problem


@pytest.mark.parametrize("key, value, words", [
    ("data_dir", lambda p: to_victim(p, "data", "gds"), ("key data_dir", "absolute path")),
    ("data_dir", lambda p: f"{UP}/data/gds", ("key data_dir", "leads outside")),
    ("data_dir", lambda p: f"../../{UP}/data/gds", ("key data_dir", "leads outside")),  # from the problem
    ("deck", lambda p: "/etc/hostname", ("key deck", "absolute path")),
    ("deck", lambda p: to_victim(p, "gold", "victim.drc"), ("key deck", "absolute path")),
    ("deck", lambda p: f"{UP}/gold/victim.drc", ("key deck", "leads outside")),
])
def test_a_spec_path_out_of_the_problem_is_refused(problems, key, value, words):
    edit_spec(problems / BAD, **{key: value(problems / BAD)})
    refused(problems, "spec.yaml", *words)


@pytest.mark.parametrize("row, words", [
    (lambda p: to_victim(p, "data", "gds", "fail", "narrow.gds"), ("labels.csv", "absolute path")),
    (lambda p: f"{UP}/data/gds/fail/narrow.gds", ("labels.csv", "leads outside")),
    (lambda p: f"../../../../{UP}/data/gds/fail/narrow.gds", ("labels.csv", "leads outside")),  # from data/gds
    (lambda p: "/dev/zero", ("labels.csv", "absolute path")),
])
def test_a_labels_row_out_of_the_problem_is_refused(problems, row, words):
    labels_row(problems / BAD, row(problems / BAD))
    refused(problems, *words)


def test_another_problems_hidden_layout_never_becomes_a_public_example(problems):
    row = to_victim(problems / BAD, "data", "gds", "fail", "narrow.gds")
    labels_row(problems / BAD, row)
    edit_spec(problems / BAD, public_examples=[row])
    refused(problems, "labels.csv", "absolute path")


@pytest.mark.parametrize("link, target, words", [
    (NARROW, ("data", "gds", "fail", "narrow.gds"), ("narrow.gds", "leads outside")),
    (DECK, ("gold", "victim.drc"), ("0002.drc", "leads outside")),
    (LABELS, ("data", "gds", "labels.csv"), ("labels.csv", "leads outside")),
    (Path("spec.yaml"), ("spec.yaml",), ("spec.yaml", "leads outside")),
    (Path("data"), ("data",), ("key data_dir", "leads outside")),
])
def test_a_symlink_out_of_the_problem_is_refused(problems, link, target, words):
    path = problems / BAD / link
    path.rename(path.with_name("moved"))
    path.symlink_to(to_victim(problems / BAD, *target))
    refused(problems, *words)


def test_a_problem_folder_linked_out_of_problems_is_refused(problems):
    (problems / "0003").symlink_to(victim(problems), target_is_directory=True)
    folder = load_rule2drc(problems)
    assert [t.id for t in folder.tasks] == [GOOD, BAD]
    [issue] = folder.issues
    assert issue.problem == problems / "0003" and "outside its problems folder" in issue.message


def test_a_symlink_loop_is_refused(problems):
    replace(problems / BAD / NARROW, lambda p: p.symlink_to(p))
    refused(problems, "narrow.gds", "not found")


def test_symlinks_and_dots_that_stay_inside_load(problems):
    problem = problems / BAD
    (problem / "layouts").mkdir()
    os.rename(problem / NARROW, problem / "layouts" / "narrow.gds")
    (problem / NARROW).symlink_to(problem / "layouts" / "narrow.gds")
    edit_spec(problem, data_dir=f"problems/{BAD}/data/../data/gds")
    tasks = {t.id: t for t in load_rule2drc(problems, strict=True).tasks}
    assert sorted(c.name for c in tasks[BAD].hidden_testcases) == ["narrow", "ok"]


@pytest.mark.parametrize("task_id", ["../../x", "/abs/x", "..", ".hidden", "-rf", "a b", "a/b", "x" * 129, "",
                                     "é"])
def test_an_unsafe_id_is_refused(problems, task_id):
    edit_spec(problems / BAD, id=task_id)
    refused(problems, "spec.yaml", "key id", "is not an id")


@pytest.mark.parametrize("task_id", ["0001x", "sky130-0000", "named-by-folder", "m1.width_2", "_x", "X" * 128])
def test_ids_of_the_supported_forms_load(problems, task_id):
    edit_spec(problems / BAD, id=task_id)
    assert task_id in [t.id for t in load_rule2drc(problems, strict=True).tasks]


def test_an_unsafe_folder_name_without_an_id_is_refused(problems):
    spec = yaml.safe_load((problems / BAD / "spec.yaml").read_text())
    del spec["id"]
    spec_text(problems / BAD, yaml.safe_dump(spec))
    (problems / BAD).rename(problems / "a b")
    folder = load_rule2drc(problems)
    assert [t.id for t in folder.tasks] == [GOOD]
    [issue] = folder.issues
    assert issue.problem == problems / "a b" and "no key id, and the folder's name is not an id" in issue.message


def test_a_layout_is_not_parsed_when_loaded(problems):
    """A 258-byte GDSII stream with a 32767 x 32767 array (and one whose cells place each other) loads as
    bytes: it is parsed in the sandbox, never in the process that loads it."""
    for name, data in (("fail/narrow.gds", huge_array_gds()), ("pass/ok.gds", recursive_gds())):
        (problems / BAD / "data" / "gds" / name).write_bytes(data)
    tasks = {t.id: t for t in load_rule2drc(problems, strict=True).tasks}
    assert sorted(c.gds_bytes() for c in tasks[BAD].hidden_testcases) == sorted([huge_array_gds(), recursive_gds()])


def test_a_good_problem_loads_beside_many_hostile_ones(problems, task):
    """One folder holding several of the attacks at once: each is its own issue and the good problem loads."""
    ids = ["a", "b", "c", "d"]
    write_rule2drc([dataclasses.replace(task, id=i) for i in ids], problems.parent)
    replace(problems / "a" / "spec.yaml", os.mkfifo)
    spec_text(problems / "b", (problems / "b" / "spec.yaml").read_text() + ALIAS_BOMB)
    edit_spec(problems / "c", deck="/etc/hostname")
    sparse(problems / "d" / "data" / "gds" / "fail" / "narrow.gds")
    edit_spec(problems / BAD, id="../../x")
    folder = load_rule2drc(problems)
    assert [t.id for t in folder.tasks] == [GOOD]
    assert [(i.problem.name, i.severity) for i in folder.issues] == [(p, "error") for p in [BAD, *ids]]


@pytest.mark.parametrize("bad", [
    lambda t, tmp: dataclasses.replace(t, id=".."),
    lambda t, tmp: dataclasses.replace(t, id="../escaped"),
    lambda t, tmp: dataclasses.replace(t, id=str(tmp / "abs" / "x")),
    lambda t, tmp: dataclasses.replace(t, hidden_testcases=(Testcase("../../../../../escaped", b"", {"m1.1": 1}),)),
])
def test_writing_never_leaves_or_removes_outside_the_folder(tmp_path, task, bad):
    out = tmp_path / "out"
    write_rule2drc([task], out)
    before = sorted(p for p in tmp_path.rglob("*"))
    with pytest.raises(Rule2DrcFormatError):
        write_rule2drc([bad(task, tmp_path)], out)
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_selection_records_stay_in_out_whatever_the_ids(tmp_path):
    ids = ["sky130-0000", "drc-v1/sky130-0000", "../../x", "/abs/x", "..", ".", "a\0b", "%2F", "x" * 300, "\udc80"]
    out = tmp_path / "out"
    (out / "tasks").mkdir(parents=True)
    paths = [record_path(out, task_id) for task_id in ids]
    for path, task_id in zip(paths, ids):
        path.write_text(repr(task_id))
    assert len(set(paths)) == len(ids)
    assert all(p.resolve().parent == (out / "tasks").resolve() for p in paths)
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == sorted(paths)
    assert record_path(out, "sky130-0000").name == "sky130-0000.json"


def test_a_folder_past_its_memory_budget_loads_the_problems_that_fit(problems, monkeypatch):
    [task] = load_rule2drc(problems / GOOD).tasks
    one = sum(len(case.gds) for case in task.public_examples + task.hidden_testcases + task.training_testcases)
    monkeypatch.setattr(rule2drc, "MAX_FOLDER_LAYOUT_BYTES", one + one // 2)
    refused(problems, "would take the folder's over its limit")


def test_a_training_pool_that_names_the_data_folder_is_refused(problems):
    """Issue 39, section 5: ``training_dir: data/gds`` made the training regime grade the evaluation layouts."""
    edit_spec(problems / BAD, training_dir=f"problems/{BAD}/data/gds")
    refused(problems, "training layout", "is the layout")


def test_a_training_layout_with_an_evaluation_layouts_bytes_is_refused(problems):
    training = sorted((problems / BAD / "training").rglob("*.gds"))[0]
    training.write_bytes(sorted((problems / BAD / "data" / "gds").rglob("*.gds"))[0].read_bytes())
    refused(problems, "training layout", "is the layout")


def test_running_out_of_memory_in_one_problem_is_its_issue(problems, monkeypatch):
    """Issue 39, section 5: a MemoryError escaped the loader."""
    read = rule2drc.read_regular_file

    def starved(path, limit):
        if f"/{BAD}/" in str(path) and str(path).endswith(".gds"):
            raise MemoryError
        return read(path, limit)

    monkeypatch.setattr(rule2drc, "read_regular_file", starved)
    refused(problems, "ran out of memory")
