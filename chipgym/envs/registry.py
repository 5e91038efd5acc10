"""Finding an env's class from its id, so that generic code asks the class (its ``chat``, ``evaluation_episodes``,
``succeeded``, ``scripted_plan``, ``smoke_episodes``) rather than switching on the id."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator


def env_class(env_id: str) -> Callable[..., gym.Env]:
    """The class (or function) registered as ``env_id``; ``module:id`` imports ``module`` first, as
    ``gymnasium.make`` does, so an env registered outside chipgym is found too. ValueError for an unknown id."""
    module, _, name = env_id.rpartition(":")
    try:
        if module:
            importlib.import_module(module)
        entry_point = gym.spec(name).entry_point
        return entry_point if callable(entry_point) else load_env_creator(entry_point)
    except (gym.error.Error, ImportError) as error:
        raise ValueError(f"env_id {env_id!r}: {error}") from None


@dataclass(frozen=True)
class SmokeEpisode:
    """A short real episode of an env: constructor arguments, reset options and actions. An env class lists its
    own as ``smoke_episodes(folder)`` (named; files they need are written under ``folder``); the conformance test
    plays each, so a new env is a tested env."""

    kwargs: dict[str, Any]
    options: dict[str, Any]
    actions: list[Any]


def smoke_episodes(env_id: str, folder: Path) -> dict[str, SmokeEpisode]:
    """The smoke episodes ``env_id``'s class lists; an env with none gets one of four sampled actions."""
    listed = getattr(env_class(env_id), "smoke_episodes", None)
    if listed is not None:
        return listed(folder)
    env = gym.make(env_id)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(4)]
    env.close()
    return {"sampled": SmokeEpisode({}, {}, actions)}
