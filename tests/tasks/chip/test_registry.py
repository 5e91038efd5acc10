"""The chip-task registry: every registered task loads, shows an agent its task, and has fixtures that pass;
an unknown task is an error that names it and the known ones, wherever a task is named."""
from __future__ import annotations

import shutil

import gymnasium
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.errors import DataError
from chipgym.scoring.chip import estimate, score_design
from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task, task_names
from chipgym.tasks.chip.task import ChipTask, stall_seed

UNKNOWN = "unknown chip task 'gpu' (known: " + ", ".join(task_names()) + ")"


@pytest.mark.parametrize("name", task_names())
def test_a_registered_task_loads_with_its_files(name):
    task = load_task(name)
    assert isinstance(task, ChipTask) and task.name == name and load_task(name) is task
    texts = task.agent_text()
    assert set(texts) == {"task", "contracts", "ports", "workloads"}
    assert all(text.strip() for text in texts.values()), [field for field, text in texts.items() if not text.strip()]
    assert task.top in texts["ports"] and task.public_workloads()
    assert set(task.simulation_ports) <= {port.name for port in task.port_contract.ports}
    assert task.profiles and task.harness.is_file() and task.formal_properties.is_file()


@pytest.mark.parametrize("name", task_names())
def test_every_fixture_of_a_task_loads_on_every_profile_with_the_task_top(name):
    task = load_task(name)
    assert task.fixtures, f"{name} has no fixtures"
    for fixture, folder in task.fixtures.items():
        for profile in task.profiles:
            design = load_design(folder, profile)
            assert design.top == task.top and design.timing_model.is_file(), (fixture, profile)


def test_an_unknown_task_is_named_with_the_known_ones_everywhere(tmp_path):
    with pytest.raises(ValueError) as error:
        load_task("gpu")
    assert str(error.value) == UNKNOWN
    for call in (lambda: check_design(tmp_path, task="gpu"), lambda: score_design(tmp_path, task="gpu"),
                 lambda: estimate(tmp_path, task="gpu"), lambda: gymnasium.make("chipgym/RtlDesign-v0", task="gpu")):
        with pytest.raises(ValueError, match="unknown chip task 'gpu'"):
            call()
    with pytest.raises(ValueError, match="unknown chip task"):
        load_task(["cpu"])  # not a name at all


def test_a_malformed_task_file_names_the_key_or_the_file(tmp_path):
    task_class = type(load_task("cpu"))
    folder = tmp_path / "task"
    shutil.copytree(load_task("cpu").folder, folder, ignore=shutil.ignore_patterns("fixtures", "mutants", "knobs"))
    toml = (folder / "task.toml").read_text()
    (folder / "task.toml").write_text(toml.replace('harness = "dv/harness.cpp"\n', ""))
    with pytest.raises(DataError, match=r"task.toml: no key 'harness'"):
        task_class(folder)
    (folder / "task.toml").write_text(toml.replace('"isa.xml"', '"isa-v2.xml"'))
    with pytest.raises(DataError, match=r"task.toml: names isa-v2.xml, which is not a file"):
        task_class(folder)


@pytest.mark.parametrize("name", task_names())
def test_the_task_digest_follows_its_code_not_its_designs(name, tmp_path):
    """Scores are cached under the task's digest: a change to its checks or cost terms must change it."""
    task = load_task(name)
    copy = tmp_path / name
    shutil.copytree(task.folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert type(task)(copy).digest == task.digest
    fixture = next(iter(task.fixtures))
    with open(copy / "fixtures" / fixture / "design.toml", "a") as f:
        f.write("# a design edit\n")
    assert type(task)(copy).digest == task.digest
    with open(copy / "task.py", "a") as f:
        f.write("# a change to the task's code\n")
    assert type(task)(copy).digest != task.digest


@pytest.mark.parametrize("name", task_names())
def test_the_gate_level_stage_stalls_each_workload_as_the_check_did(name):
    """Issue 40 §2: the gate-level stage reran every workload under one stall seed no check used, so a design could
    tell the stages apart. Now each scored workload's seed is the one the check's first stalled run of it used:
    public ones by their place in the check's order, held-out ones after them."""
    task = load_task(name)
    public = task.public_workloads()
    scored = task.scored_workloads(grading_seed=1234)
    assert any(w.heldout is not None for w in scored)
    for workload in scored:
        index = public.index(workload.name) if workload.heldout is None else len(public) + workload.heldout
        assert task.check_stall_seed(workload) == stall_seed(index) == 7919 + index
