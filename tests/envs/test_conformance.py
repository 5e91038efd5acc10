"""Every env registered under ``chipgym/``: Gymnasium's checker, determinism under a seed, save and replay, and
two envs side by side in an ``AsyncVectorEnv``. A new env registered is a tested env; ``EPISODES`` gives it
cheap arguments and a short real episode (else it plays sampled actions). ``chipgym/RtlDesign-v0`` is tested
once per registered chip task, so a new task is a tested task."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.envs import drc_actions, rtl_actions
from chipgym.envs.episode import replay
from chipgym.tasks.chip.registry import load_task, task_names
from chipgym.tasks.drc.rule2drc import write_rule2drc
from chipgym.wrappers.drc_template import CHECK_NAMES, NVEC

from layout_helpers import MET1, MET1_WIDTH_GOLD, met1_width_task

IDS = sorted(env_id for env_id in gymnasium.registry if env_id.startswith("chipgym/"))
CHIP_TASK_ENVS = ("chipgym/RtlDesign-v0",)
"""ids whose env takes a ``task`` of the chip-task registry"""
CASES = [pytest.param(env_id, task, id=f"{env_id}-{task}" if task else env_id)
         for env_id in IDS for task in (task_names() if env_id in CHIP_TASK_ENVS else (None,))]


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    """A one-task Rule2DRC folder: an env made from it can be saved and replayed."""
    folder = tmp_path_factory.mktemp("conformance")
    task = met1_width_task(folder, {"ex_narrow": 0.1}, {"hidden_at": 0.14, "hidden_under": 0.139})
    return str(write_rule2drc([task], folder / "suite"))


def episode(env_id: str, task: str | None, problems: str) -> tuple[dict, dict, list[str]]:
    """Constructor arguments, reset options and actions of a short episode of ``env_id`` (on chip ``task``)."""
    if env_id == "chipgym/DrcScript-v0":
        narrow = drc_actions.add_test([drc_actions.box(MET1, 0, 0, 0.1, 2)], {"m1.1": 1})
        actions = [drc_actions.write(MET1_WIDTH_GOLD), narrow, drc_actions.run(), "oops", drc_actions.submit()]
        return {"tasks": problems, "split": "all"}, {}, actions
    if env_id == "chipgym/DrcTemplate-v0":  # one step: met1 width at least the rule's first number
        return {"tasks": problems, "split": "all"}, {}, [np.array([CHECK_NAMES.index("width")] + [0] * (len(NVEC) - 1))]
    if env_id == "chipgym/RtlDesign-v0":  # from the task's first fixture (the cpu's multicycle)
        actions = [rtl_actions.set_clock(1500), rtl_actions.check(), "oops", rtl_actions.write("notes.txt", "x")]
        return {"formal": False, "task": task}, {"start": next(iter(load_task(task).fixtures))}, actions
    if env_id == "chipgym/CpuKnobs-v0":  # the multicycle fixture's design at two periods, as in test_cpu_knobs_env.py
        choices = {"pipeline": ["multicycle"], "multiplier": ["single-cycle"], "period": [0, 2]}
        return {"evaluations": 4, "choices": choices}, {}, [[0, 0, 0, 0, 1], [0, 0, 0, 0, 0], "oops", [0] * 5]
    env = gymnasium.make(env_id)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(4)]
    env.close()
    return {}, {}, actions


def play(env_id: str, task: str | None, problems: str, seed: int = 7) -> tuple[list, gymnasium.Env]:
    kwargs, options, actions = episode(env_id, task, problems)
    env = gymnasium.make(env_id, **kwargs)
    steps = [env.reset(seed=seed, options=options)] + [env.step(action) for action in actions]
    return steps, env


def is_wrapper(env: gymnasium.Env, env_id: str) -> bool:
    """True for an id whose env is a wrapper of another chipgym env (its ``unwrapped`` is that env, which
    ``gymnasium.make`` gives the wrapper's spec: its class names its own id)."""
    return getattr(type(env.unwrapped), "env_id", env_id) != env_id


@pytest.mark.parametrize("env_id, task", CASES)
@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")  # a wrapper id: the wrapper is checked
def test_gymnasium_env_checker(env_id, task, problems):
    kwargs, _, _ = episode(env_id, task, problems)
    env = gymnasium.make(env_id, **kwargs)
    check_env(env if is_wrapper(env, env_id) else env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id, task", CASES)
def test_the_same_seed_and_actions_give_the_same_everything(env_id, task, problems):
    first, env = play(env_id, task, problems)
    env.close()
    second, env = play(env_id, task, problems)
    env.close()
    assert repr(first) == repr(second)


@pytest.mark.parametrize("env_id, task", CASES)
def test_a_saved_episode_replays_as_saved(env_id, task, problems, tmp_path):
    steps, env = play(env_id, task, problems)
    env.unwrapped.save_episode(tmp_path / "episode.json")
    env.close()
    result = replay(tmp_path / "episode.json")
    assert result.ok, result.divergence
    rewards = [step[1] for step in steps[1:]]
    if is_wrapper(env, env_id):  # the inner env's episode is saved: its last reward is the wrapper's
        assert result.rewards[-1:] == rewards[-1:]
    else:
        assert result.rewards == rewards


@pytest.mark.parametrize("env_id, task", CASES)
def test_two_envs_side_by_side_in_an_async_vector_env(env_id, task, problems):
    kwargs, options, actions = episode(env_id, task, problems)
    envs = gymnasium.vector.AsyncVectorEnv([lambda: gymnasium.make(env_id, **kwargs)] * 2, shared_memory=False)
    try:
        envs.reset(seed=[0, 1], options=options)
        for action in actions[:2]:
            _, rewards, terminated, truncated, _ = envs.step([action, action])
            assert len(rewards) == 2
    finally:
        envs.close()
