"""chipgym/DrcScript-v0 on a small hand-made task, with real KLayout behind it."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import gymnasium
import numpy as np
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.envs.episode import replay
from chipgym.tasks.drc.rule2drc import write_rule2drc
from chipgym.wrappers import DrcRewardShaping

from layout_helpers import MET1, MET1_WIDTH_GOLD, met1_width_task

GOLD = MET1_WIDTH_GOLD


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    hidden = {"hidden_at": 0.14, "hidden_under": 0.139, "hidden_wide": 0.5}
    return [met1_width_task(tmp_path_factory.mktemp("task"), {"ex_narrow": 0.1, "ex_wide": 0.3}, hidden)]


@pytest.fixture
def env(tasks):
    env = DrcScriptEnv(tasks=tasks, max_steps=8)
    yield env
    env.close()


def test_gold_deck_scores_one_and_one_nm_off_scores_zero(env):
    obs, info = env.reset(seed=0)
    assert "0.14 um" in obs["rule"] and "met1: 68/20" in obs["layers"] and "box (0,0) (0.1,2)" in obs["examples"]
    env.step(act.write(GOLD))
    _, reward, terminated, truncated, info = env.step(act.submit())
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["grade"]["success"] and info["grade"]["f1"] == 1.0

    env.reset(seed=0)
    env.step(act.write(GOLD.replace("0.14)", "0.141)")))
    _, reward, terminated, _, info = env.step(act.submit())
    assert reward == 0.0 and terminated
    assert 0 < info["grade"]["layouts_matched"] < 1  # on fresh layouts made from the hidden ones
    assert "hidden_" not in json.dumps(info) and "gold" not in json.dumps(info).lower()


def test_evaluation_regime_grades_each_task_once_on_the_hidden_layouts(tasks):
    env = DrcScriptEnv(tasks=tasks, regime="evaluation")
    env.reset(seed=0)
    env.step(act.write(GOLD.replace("0.14)", "0.141)")))
    _, reward, terminated, _, info = env.step(act.submit())
    assert (reward, terminated, info["grade"]) == (0.0, True, {"success": False})
    assert "Submitted: rejected." == env.unwrapped.feedback
    env.reset(seed=0)
    env.step(act.write(GOLD))
    obs, reward, terminated, _, info = env.step(act.submit())
    assert reward == 0.0 and not terminated and "grades each task once" in info["action_error"]
    env.close()


def test_tests_run_and_patch(env):
    env.reset(seed=1)
    env.step(act.write(GOLD.replace("0.14)", "0.2)")))
    obs, *_ = env.step(act.add_test([act.box(MET1, 0, 0, 0.15, 1)], {"m1.1": 0}, name="mine"))
    assert "mine (expected m1.1=0)" in obs["tests"] and "box (0,0) (0.15,1)" in obs["tests"]
    obs, reward, *_ , info = env.step(act.run())
    assert "mine: m1.1 expected 0 got 1 MISMATCH" in obs["feedback"]
    assert info["run"]["layouts_matched"] == pytest.approx(2 / 3)
    obs, *_ = env.step(act.patch("0.2)", "0.14)"))
    obs, *_ , info = env.step(act.run())
    assert info["run"]["layouts_matched"] == 1.0 and "MISMATCH" not in obs["feedback"]


def test_bad_actions_are_feedback_and_cost_a_step(env):
    env.reset(seed=2)
    bad = ["not json", '{"op": "fly"}', act.patch("nothing like this", "x"),
           '{"op": "add_test", "shapes": [{"layer": [68], "box": [0, 0, 1, 1]}], "expected": {"m1.1": 1}}',
           act.add_test([act.box(MET1, 0, 0, 1, 1)], {"nope": 1})]
    for step, action in enumerate(bad, start=1):
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs["feedback"].startswith("Action rejected:") and info["step"] == step and not terminated
    assert "shapes[0].layer" in info_of(env, bad[3]) and "expected.nope" in info_of(env, bad[4])


def info_of(env, action):
    env.reset(seed=3)
    return env.step(action)[4]["action_error"]


def test_agent_decks_cannot_see_hidden_layouts_or_the_gold_deck(env, tasks):
    hidden = [hashlib.sha256(case.gds).hexdigest() for case in tasks[0].hidden_testcases]
    env.reset(seed=0)
    spy = (
        'require "digest"\nsource($input)\nreport("x", $output)\n'
        f"hidden = {hidden!r}\n"
        'files = Dir.glob("/**/*.{gds,gds.gz,oas,drc}")\n'
        'raise "saw #{files}" unless files.all? { |f| f.start_with?("/job/") && '
        '!hidden.include?(Digest::SHA256.file(f).hexdigest) }\n'
        'input(68, 20).width(0.14).output("m1.1", "w")'
    )
    env.step(act.write(spy))
    obs, *_ = env.step(act.run())
    assert "100% match" in obs["feedback"], obs["feedback"]


def test_task_ids_by_group(env):
    assert env.task_ids() == env.task_ids("sky130") == ["m1-width"] and env.task_ids("syntax") == []


def test_step_budget_truncates(env):
    env.reset(seed=0)
    for _ in range(7):
        assert not env.step(act.run())[3]
    _, _, terminated, truncated, _ = env.step(act.run())
    assert truncated and not terminated


def test_save_and_replay_reproduce_rewards(tasks, tmp_path):
    problems = write_rule2drc(tasks, tmp_path / "suite")
    env = DrcRewardShaping(gymnasium.make("chipgym/DrcScript-v0", tasks=str(problems), split="all"))
    env.reset(seed=5)
    rewards = [env.step(a)[1] for a in (act.write(GOLD.replace("0.14)", "0.1)")), act.run(), "oops", act.submit())]
    env.unwrapped.save_episode(tmp_path / "episode.json")
    matched = env.unwrapped.episode_record
    env.close()
    assert rewards[:3] == [0.0, -0.01, -0.01] and 0 < rewards[3] < 0.5  # the shaping of reward_mode="shaped"
    result = replay(tmp_path / "episode.json")
    assert result.ok and result.rewards == matched.rewards == [0.0] * 4


def test_replay_names_the_step_that_diverged(tasks, tmp_path):
    problems = write_rule2drc(tasks, tmp_path / "suite")
    env = DrcScriptEnv(tasks=str(problems), split="all")
    env.reset(seed=5)
    for action in (act.write(GOLD), act.submit()):
        env.step(action)
    record = env.episode_record
    env.close()
    record.steps[1] = dataclasses.replace(record.steps[1], reward=0.0)  # as if the saved deck had failed
    result = replay(record)
    assert not result.ok and result.rewards == [0.0, 1.0]
    assert str(result.divergence) == "step 1: reward 1.0, saved 0.0"


def test_render_modes(tasks):
    env = DrcScriptEnv(tasks=tasks, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(act.write(GOLD))
    env.step(act.run())
    image = env.render()
    assert image.shape == (480, 640, 3) and image.dtype == np.uint8
    assert np.all(image == (0xE6, 0x19, 0x4B), axis=-1).any()  # the marker colour of the first category
    env.close()
    text_env = DrcScriptEnv(tasks=tasks, render_mode="ansi")
    text_env.reset(seed=0)
    assert "m1-width" in text_env.render()
    text_env.close()


def test_async_vector_env_with_two_envs(tasks):
    envs = gymnasium.vector.AsyncVectorEnv([lambda: DrcScriptEnv(tasks=tasks)] * 2, shared_memory=False)
    obs, info = envs.reset(seed=[0, 1])
    assert len(obs["rule"]) == 2
    envs.step([act.write(GOLD), act.write(GOLD.replace("0.14)", "0.141)"))])
    _, rewards, terminated, _, infos = envs.step([act.submit(), act.submit()])
    assert list(rewards) == [1.0, 0.0] and all(terminated)
    envs.close()
