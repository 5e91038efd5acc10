"""Hostile actions on chipgym/DrcTemplate-v0: every action, on every task that loads (one without public
examples, as every published Rule2DRC problem, included), returns a step: a graded deck or an action error."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import gymnasium
import numpy as np
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.tasks.drc.rule2drc import write_rule2drc
from chipgym.tasks.drc.suite import build_suite
from chipgym.wrappers.drc_template import CHECK_NAMES, NVEC, clipped_action, dimension_value

N = len(NVEC)
TOP = np.array(NVEC) - 1

# name: (action, the clipped action it is, or None when it is refused)
ATTACKS = {
    "huge ints": ([10**400] * N, TOP),
    "huge negative ints": ([-10**400] * N, np.zeros(N)),
    "one huge int": ([10**400] + [0] * (N - 1), np.r_[TOP[0], np.zeros(N - 1)]),
    "negative": ([-5] * N, np.zeros(N)),
    "floats": ([1.7] * N, np.ones(N)),
    "huge floats": ([1e308] * N, TOP),
    "uint64 max": (np.full(N, 2**64 - 1, np.uint64), TOP),
    "longdouble beyond float": (np.full(N, np.finfo(np.longdouble).max, np.longdouble), TOP),
    "bools": (np.ones(N, bool), np.ones(N)),
    "huge fraction": ([Fraction(10**400, 3)] * N, TOP),
    "nan": ([float("nan")] * N, None),
    "inf": ([float("inf")] * N, None),
    "-inf": ([-float("inf")] + [0] * (N - 1), None),
    "2-d of the right size": (np.zeros((3, N // 3)), None),
    "batched": (np.zeros((1, N)), None),
    "too short": (np.zeros(5), None),
    "too long": (np.zeros(N + 1), None),
    "empty": ([], None),
    "scalar": (3, None),
    "string": ("hello", None),
    "strings": (["1"] * N, None),
    "bytes": (b"\x00" * N, None),
    "None": (None, None),
    "dict": ({"check": 1}, None),
    "objects": ([object()] * N, None),
    "ragged": ([[1, 2], [3]], None),
    "complex": (np.ones(N, complex), None),
    "deep nesting": (None, None),  # filled in below
}
deep: list = []
for _ in range(10_000):
    deep = [deep]
ATTACKS["deep nesting"] = (deep, None)


@pytest.fixture(scope="module")
def task():
    [task] = build_suite(ids=["sky130-0000"])  # diff width >= 0.15 um
    return task


@pytest.fixture(scope="module", params=["public examples", "no public examples", "published folder"])
def env(request, task, tmp_path_factory):
    """A published folder has no training layouts, so it is played in the evaluation regime: its task is graded
    once, and every later submit is the env's action error."""
    bare = dataclasses.replace(task, public_examples=())
    if request.param == "published folder":
        folder = write_rule2drc([bare], tmp_path_factory.mktemp("rule2drc"))
        env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=str(folder), split="all", regime="evaluation")
    else:
        tasks = [task] if request.param == "public examples" else [bare]
        env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=tasks, split="all")
    yield env
    env.close()


def graded_every_step(env) -> bool:
    return env.unwrapped.regime == "training"


def gold() -> np.ndarray:
    action = np.zeros(N, np.int64)
    action[0] = CHECK_NAMES.index("width")  # slot 0: width of layer 0 at the rule's number 0
    return action


def test_the_gold_action_earns_1_with_or_without_public_examples(env):
    """First, so that the evaluation regime's one grading is the gold deck's."""
    env.reset(seed=0)
    has_examples = bool(env.unwrapped.tasks[0].public_examples)
    _, reward, terminated, _, info = env.step(gold())
    assert (reward, terminated) == (1.0, True) and "action_error" not in info
    assert ("run" in info) == has_examples  # no public examples: no run, and nothing made up for it


@pytest.mark.parametrize("name", ATTACKS)
def test_every_action_returns_a_step(env, name):
    action, clipped = ATTACKS[name]
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs in env.observation_space and (reward, terminated, truncated) in ((0.0, True, False), (1.0, True, False))
    if clipped is None:
        assert info["action_error"].startswith("action") and "grade" not in info and "deck" not in info
        return
    assert not info.get("action_error", "").startswith("action")
    assert "grade" in info if graded_every_step(env) else info["action_error"].startswith("submit: task")
    env.reset(seed=0)
    assert env.step(clipped.astype(np.int64))[4]["deck"] == info["deck"]


def test_random_actions_of_the_space_are_steps(env):
    env.action_space.seed(0)
    for _ in range(5):
        env.reset()
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert obs in env.observation_space and reward in (0.0, 1.0) and terminated and not truncated
        assert "grade" in info if graded_every_step(env) else info["action_error"].startswith("submit: task")


def test_values_are_rounded_down_and_clipped_exactly():
    assert dimension_value(10**400, 16) == 15 and dimension_value(-10**400, 16) == 0
    assert dimension_value(15.999, 16) == 15 and dimension_value(-0.5, 16) == 0 and dimension_value(2.5, 16) == 2
    assert dimension_value(np.int8(-3), 16) == 0 and dimension_value(np.float32(7.9), 16) == 7
    assert dimension_value(Fraction(7, 2), 16) == 3
    for bad in (float("nan"), np.float32("inf"), -float("inf"), 1j, "3", None, b"3", [1]):
        with pytest.raises(ValueError):
            dimension_value(bad, 16)
    assert clipped_action(np.full(N, 10**18, np.int64)).tolist() == TOP.tolist()
    assert clipped_action(np.full(N, 10**18, np.int64)).dtype == np.int64
