"""Random and grid search over ``chipgym/CpuKnobs-v0``: what a learner must beat at the same number of evaluations.

Both play one episode of the env (``evaluations`` steps, each design scored by the real flow through the
cache) and keep the best reward seen:

- **random search** samples each knob vector uniformly from the action space (seeded), as a random agent does;
- **grid search** walks the distinct designs (the cpu task's ``generator.designs()``, knob order,
  the period fastest) at an even stride of ``len(designs) / evaluations``, starting at index ``seed``; with as
  many evaluations as designs it scores every design once.

>>> grid_actions(evaluations=3, seed=0)
[[0, 0, 0, 0, 0], [1, 0, 0, 1, 1], [1, 1, 0, 0, 2]]
>>> result = random_search(evaluations=4, seed=0)                     # doctest: +SKIP
>>> result.best_reward == max(result.rewards)                           # doctest: +SKIP
True
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

import gymnasium
import numpy as np

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.tasks.chip.registry import load_task

ENV_ID = "chipgym/CpuKnobs-v0"


@dataclass(frozen=True)
class SearchResult:
    method: str
    seed: int
    best_reward: float
    best_design: str
    """the name of the first design that reached the best reward ('' if none scored)"""
    rewards: list[float]
    """per evaluation"""
    unavailable: int
    """evaluations the flow could not score (reward 0, not the design's)"""


def random_actions(evaluations: int, seed: int) -> list[list[int]]:
    """``evaluations`` knob vectors drawn uniformly from the env's action space, seeded."""
    space = gymnasium.make(ENV_ID).action_space
    space.seed(seed)
    return [space.sample().tolist() for _ in range(evaluations)]


def grid_actions(evaluations: int, seed: int) -> list[list[int]]:
    """``evaluations`` distinct designs at an even stride through the grid, from index ``seed``."""
    grid = load_task("cpu").generator.designs()
    return [grid[(seed + index * len(grid) // evaluations) % len(grid)].to_action() for index in range(evaluations)]


def play(method: str, actions: list[list[int]], seed: int, profile: str = "osu018") -> SearchResult:
    """One episode of the env with ``actions``; the best reward it gave and where."""
    env = gymnasium.make(ENV_ID, profile=profile, evaluations=len(actions))
    try:
        env.reset(seed=seed)
        rewards, best, unavailable = [], ("", 0.0), 0
        for action in actions:
            _, reward, _, _, info = env.step(np.array(action))
            rewards.append(reward)
            unavailable += info.get("status") == "unavailable"
            if reward > best[1]:
                best = (info["design"], reward)
    finally:
        env.close()
    return SearchResult(method, seed, best[1], best[0], rewards, unavailable)


def random_search(evaluations: int = 8, seed: int = 0, profile: str = "osu018") -> SearchResult:
    return play("random", random_actions(evaluations, seed), seed, profile)


def grid_search(evaluations: int = 8, seed: int = 0, profile: str = "osu018") -> SearchResult:
    return play("grid", grid_actions(evaluations, seed), seed, profile)


SEARCHES = {"random": random_search, "grid": grid_search}


def compare(evaluations: int, seeds: list[int], profile: str = "osu018") -> dict[str, list[SearchResult]]:
    """Every search once per seed, at ``evaluations`` evaluations each."""
    return {name: [search(evaluations, seed, profile) for seed in seeds] for name, search in SEARCHES.items()}


def mean_best(results: list[SearchResult]) -> tuple[float, float]:
    """The mean best reward over seeds and its standard deviation (0 for one seed)."""
    best = [r.best_reward for r in results]
    return statistics.fmean(best), statistics.stdev(best) if len(best) > 1 else 0.0
