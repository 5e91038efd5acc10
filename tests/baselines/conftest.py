"""For the training tests: a fresh local Ray of two CPUs per test module, and the tiny DRC task; for the selection
tests, three drc-v0 tasks in a Rule2DRC folder (every Ray actor loads it in a fraction of a second)."""

from __future__ import annotations

import pytest

TINY_TASK = "sky130-0000"
SELECTION_TASK_IDS = ["sky130-0002", "sky130-0004", "sky130-0096"]  # diff space; diff in nwell; via3 square, space


@pytest.fixture(scope="session")
def tiny_tasks():
    """drc-v0's sky130-0000, diff width >= 0.15 um: one layer and one number; DrcTemplate-v0's answer is one
    check (width, with the euclidian or projection metric), about 1 in 21 of the masked actions. Its training
    pool is cut to one draw's size, so that every training submit grades all of it and a deck's reward does not
    depend on the draw."""
    import dataclasses

    from chipgym.scoring.drc import TRAINING_DRAW
    from chipgym.tasks.drc.load import load_tasks

    [task] = [task for task in load_tasks("drc-v0", "all") if task.id == TINY_TASK]
    return [dataclasses.replace(task, training_testcases=task.training_testcases[:TRAINING_DRAW])]


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def selection_tasks():
    from chipgym.tasks.drc.suite import build_suite

    return build_suite(ids=SELECTION_TASK_IDS)


@pytest.fixture(scope="session")
def selection_folder(selection_tasks, tmp_path_factory):
    from layout_helpers import rule2drc_problems

    return rule2drc_problems(selection_tasks, tmp_path_factory.mktemp("selection"))
