"""Measuring a policy the same way whatever it is (PPO, random, heuristic): DRC success over every task of a
split once, and the best chip reward found within each evaluation budget.

A policy is a callable ``policy(observation, info) -> action``; ``info`` is the last reset's or step's, for
policies that read the rule text there.

>>> import gymnasium
>>> env = gymnasium.make("chipgym/DrcTemplate-v0", tasks="drc-v0", split="test", regime="evaluation")  # doctest: +SKIP
>>> result = success_on_every_task(env, lambda obs, info: env.action_space.sample())  # doctest: +SKIP
>>> result.success_rate, len(result.rewards)                                     # doctest: +SKIP
(0.0, 83)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import gymnasium
import numpy as np

Policy = Callable[[Any, dict], Any]


@dataclass(frozen=True)
class TaskSuccess:
    """A policy's reward on each task (one episode each), whether the env counts the episode a success
    (``TextActionEnv.succeeded``), and the tasks whose grading was unavailable, which no rate counts (as
    ``chipgym eval``'s summary)."""

    rewards: dict[str, float]
    solved: dict[str, bool]
    groups: dict[str, str]
    unavailable: tuple[str, ...]

    @property
    def success_rate(self) -> float:
        hits = [solved for task, solved in self.solved.items() if task not in self.unavailable]
        return float(np.mean(hits)) if hits else 0.0

    def by_group(self) -> dict[str, float]:
        """The success rate of each task group (sky130, synthetic, syntax, ...)."""
        groups: dict[str, list[bool]] = {}
        for task, solved in self.solved.items():
            if task not in self.unavailable:
                groups.setdefault(self.groups[task], []).append(solved)
        return {group: float(np.mean(hits)) for group, hits in sorted(groups.items())}


def success_on_every_task(env: gymnasium.Env, policy: Policy) -> TaskSuccess:
    """Plays one episode of the policy on each task of a DRC env (any wrapper of DrcScript-v0), in task order."""
    tasks = env.unwrapped.tasks
    rewards, solved, unavailable = {}, {}, []
    for task in tasks:
        observation, info = env.reset(seed=0, options={"task": task.id})
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, info = env.step(policy(observation, info))
            total += float(reward)
            done = terminated or truncated
        rewards[task.id], solved[task.id] = total, env.unwrapped.succeeded(float(reward), terminated)
        if info.get("status") == "unavailable":
            unavailable.append(task.id)
    return TaskSuccess(rewards, solved, {t.id: t.group for t in tasks}, tuple(unavailable))


def best_reward_by_budget(env: gymnasium.Env, policy: Policy, seeds: list[int]) -> list[float]:
    """The best reward found after 1, 2, ..., K evaluations (one episode of K steps per seed), averaged over
    the seeds."""
    curves = []
    for seed in seeds:
        observation, info = env.reset(seed=seed)
        best, curve, done = 0.0, [], False
        while not done:
            observation, reward, terminated, truncated, info = env.step(policy(observation, info))
            best = max(best, float(reward))
            curve.append(best)
            done = terminated or truncated
        curves.append(curve)
    length = min(len(c) for c in curves)
    return [float(np.mean([c[i] for c in curves])) for i in range(length)]
