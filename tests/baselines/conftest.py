"""For the training tests: a fresh local Ray of two CPUs per test module, and the tiny DRC task."""

from __future__ import annotations

import pytest

TINY_TASK = "sky130-0000"


@pytest.fixture(scope="session")
def tiny_tasks():
    """drc-v0's sky130-0000, diff width >= 0.15 um: one layer and one number; DrcTemplate-v0's answer is one
    check (width, with the euclidian or projection metric), about 1 in 21 of the masked actions."""
    from chipgym.tasks.drc.load import load_tasks

    return [task for task in load_tasks("drc-v0", "all") if task.id == TINY_TASK]


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()
