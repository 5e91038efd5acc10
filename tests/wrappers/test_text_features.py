"""TextFeatures: a Box view of text fields that Gymnasium's checker accepts, deterministic, sensitive to the
numbers and words of a rule, usable in an AsyncVectorEnv, with clear errors for fields that are not text."""

from __future__ import annotations

from dataclasses import replace

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.wrappers import TextFeatures

from layout_helpers import met1_width_task


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return met1_width_task(tmp_path_factory.mktemp("task"), {"ex_narrow": 0.1}, {"at": 0.14, "under": 0.139})


def features(task, dim=64, **kwargs):
    return TextFeatures(DrcScriptEnv(tasks=[task], split="all", **kwargs), dim=dim)


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")  # the wrapper is what is checked
def test_the_checker_accepts_it_and_the_box_is_stated(task):
    env = features(task)
    assert env.observation_space == gymnasium.spaces.Box(0.0, 1.0, (3 * 64,), np.float32)
    check_env(env, skip_render_check=True)
    env.close()


def test_same_seed_and_actions_give_the_same_features_and_feedback_moves_them(task):
    runs = []
    for _ in range(2):
        env = features(task)
        first, _ = env.reset(seed=3)
        after, *_ = env.step(act.run())
        runs.append((first, after))
        env.close()
    assert all(np.array_equal(a, b) for a, b in zip(*runs))
    first, after = runs[0]
    assert first in features(task).observation_space
    assert not np.array_equal(first[-64:], after[-64:])  # the feedback field changed
    assert np.array_equal(first[:128], after[:128])        # the rule and the layers did not


def test_a_threshold_or_a_layer_changes_the_rule_features(task):
    def rule(text):
        env = features(replace(task, description=text))
        observation, _ = env.reset(seed=0)
        env.close()
        return observation[:64]

    base = rule("Metal 1 (met1) must be at least 0.14 um wide.")
    assert np.array_equal(base, rule("Metal 1 (met1) must be at least 0.14 um wide."))
    assert not np.array_equal(base, rule("Metal 1 (met1) must be at least 0.15 um wide."))
    assert not np.array_equal(base, rule("Metal 2 (met2) must be at least 0.14 um wide."))


def test_it_runs_in_an_async_vector_env(task):
    envs = gymnasium.vector.AsyncVectorEnv([lambda: features(task)] * 2)
    try:
        observations, _ = envs.reset(seed=[0, 1])
        assert observations.shape == (2, 3 * 64) and observations.dtype == np.float32
        observations, *_ = envs.step([act.run(), act.submit()])
        assert observations.shape == (2, 3 * 64)
    finally:
        envs.close()


def test_fields_that_are_not_text_are_refused_by_name(task):
    with pytest.raises(ValueError, match=r"\['budget', 'nope'\] are not text fields.*text fields: "):
        TextFeatures(DrcScriptEnv(tasks=[task], split="all"), fields=("rule", "budget", "nope"))
    with pytest.raises(ValueError, match="dim must be an even number"):
        TextFeatures(DrcScriptEnv(tasks=[task], split="all"), dim=7)
    with pytest.raises(TypeError, match="not a Dict of text fields"):
        TextFeatures(gymnasium.make("CartPole-v1"))
