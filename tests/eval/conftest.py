"""A small Rule2DRC folder of drc-v0 test tasks, so that every Ray actor's env loads in a fraction of a second
(the whole suite takes seconds per env)."""

from __future__ import annotations

import pytest

from chipgym.tasks.drc.suite import build_suite

from layout_helpers import rule2drc_problems

TASK_IDS = ["sky130-0002", "sky130-0003", "sky130-0004", "sky130-0005"]


@pytest.fixture(scope="session")
def drc_tasks():
    return build_suite(ids=TASK_IDS)


@pytest.fixture(scope="session")
def drc_folder(drc_tasks, tmp_path_factory):
    return rule2drc_problems(drc_tasks, tmp_path_factory.mktemp("rule2drc"))
