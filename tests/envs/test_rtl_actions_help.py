"""The actions' help in chipgym/RtlDesign-v0's prompt is each task's own (issue 29 §1: every task's prompt named
``rtl/chipgym_cpu.v`` and offered ``simulate`` on ``memcpy``, the noc's too, which has no simulate)."""
from __future__ import annotations

import pytest

from chipgym.envs.rtl_design import actions_help
from chipgym.tasks.chip.registry import load_task, task_names
from chipgym.tasks.chip.task import ChipTask


@pytest.mark.parametrize("name", task_names())
def test_the_actions_help_names_the_tasks_file_and_offers_simulate_where_it_runs(name):
    task = load_task(name)
    shown = actions_help(task)
    simulates = type(task).stepper is not ChipTask.stepper
    assert f'"path": "rtl/{task.top}.v"' in shown and "chipgym_cpu" not in shown.replace(task.top, "")
    assert ('"op": "simulate"' in shown) == simulates == (task.simulate_help is not None)
