"""One success rule, asked of the env (issue 29): ``chipgym eval`` and the trainers' evaluation count an episode a
success when the env says so, and leave tasks whose grading was unavailable out of every rate."""
from __future__ import annotations

import pytest

from chipgym.baselines.policy_evaluation import TaskSuccess
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.tasks.drc.load import load_tasks


def test_each_env_says_what_a_success_is():
    assert DrcScriptEnv.succeeded(1.0, True) and not DrcScriptEnv.succeeded(0.5, True)  # partial credit is not
    assert RtlDesignEnv.succeeded(0.12, True) and not RtlDesignEnv.succeeded(0.0, True)  # any score of a pass is
    assert not DrcScriptEnv.succeeded(1.0, False) and not RtlDesignEnv.succeeded(0.3, False)


def test_unavailable_tasks_count_in_no_rate():
    result = TaskSuccess({"a": 1.0, "b": 0.0, "c": 0.0}, {"a": True, "b": False, "c": False},
                         {"a": "sky130", "b": "sky130", "c": "syntax"}, unavailable=("c",))
    assert result.success_rate == 0.5 and result.by_group() == {"sky130": 0.5}


def test_an_evaluation_plays_the_episodes_the_env_plans():
    """``episode_specs`` asks the env class: the chip env's starting designs (the empty folder by default), the DRC
    env's tasks of its suite and split; a name the env lacks is refused, naming what it has."""
    from chipgym.baselines.evaluation import episode_specs

    assert [s.key for s in episode_specs("chipgym/RtlDesign-v0", {})] == ["empty#0"]
    assert [s.options for s in episode_specs("chipgym/RtlDesign-v0", {}, names=["pipelined"])] == [
        {"start": "pipelined"}]
    with pytest.raises(ValueError, match="no 'fastest' among the 3 starting designs: empty, multicycle"):
        episode_specs("chipgym/RtlDesign-v0", {}, names=["fastest"])
    drc = episode_specs("chipgym/DrcScript-v0", {"tasks": "drc-v0", "split": "test"}, limit=5)
    assert [s.options["task"] for s in drc] == [t.id for t in load_tasks("drc-v0", "test")[:5]]
    with pytest.raises(ValueError, match="plans no evaluation"):
        episode_specs("chipgym/CpuKnobs-v0", {})
