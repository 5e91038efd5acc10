"""Replaying a saved episode (``env.save_episode(path)``): the same seed, options and actions must give the same
rewards.

>>> import gymnasium
>>> log = {"seed": 0, "options": None, "steps": [{"action": 0, "reward": 1.0, "terminated": False, "truncated": False}]}
>>> replay_log(gymnasium.make("CartPole-v1").unwrapped, log, "cartpole.json")
[1.0]
"""
from __future__ import annotations

import os
from typing import Any

import gymnasium as gym


def logged_action(action: Any, max_length: int) -> Any:
    """An action as the log keeps it: one the env rejects for its type or length alone, by its length only.

    >>> logged_action("x" * 50, max_length=10)
    {'over_long': 50}
    """
    if not isinstance(action, str):
        return {"not_text": type(action).__name__}
    return {"over_long": len(action)} if len(action) > max_length else action


def _replayed(action: Any) -> Any:
    """The action to replay for a logged one (an over-long one is rejected for its length again)."""
    if isinstance(action, dict) and "over_long" in action:
        return " " * action["over_long"]
    return None if isinstance(action, dict) and "not_text" in action else action


def replay_log(env: gym.Env, log: dict[str, Any], path: str | os.PathLike) -> list[float]:
    """Play ``log``'s actions in ``env`` (closed afterwards); raises ValueError at the first step whose reward or
    ending differs from the saved one."""
    try:
        env.reset(seed=log["seed"], options=log["options"])
        rewards = []
        for index, step in enumerate(log["steps"]):
            _, reward, terminated, truncated, _ = env.step(_replayed(step["action"]))
            rewards.append(reward)
            if (reward, terminated, truncated) != (step["reward"], step["terminated"], step["truncated"]):
                raise ValueError(f"{path}: step {index} gave reward {reward}, saved {step['reward']}")
        return rewards
    finally:
        env.close()
