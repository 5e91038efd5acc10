"""Episodes as records: what was done in an env and what it gave, saved as JSON and replayed.

A record holds the env id and the constructor arguments (never the secret ones, such as a grading seed),
the reset seed and options, and every step's action, reward and ending. Replaying runs the same actions
in a new env and says at which step, if any, the replay diverged from the record and how.

>>> import gymnasium
>>> record = EpisodeRecord("CartPole-v1", {}, seed=0, options={})
>>> record.steps.append(Step(0, 1.0, False, False))
>>> result = replay(record)
>>> result.ok, result.rewards
(True, [1.0])
>>> record.steps[0] = Step(0, 2.0, False, False)
>>> print(replay(record).divergence)
step 0: reward 1.0, saved 2.0
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from chipgym.results import JsonResult


@dataclass(frozen=True)
class Step:
    """One step: the action as logged (see :func:`logged_action`), the reward and how the step ended."""

    action: Any
    reward: float
    terminated: bool
    truncated: bool


@dataclass
class EpisodeRecord(JsonResult):
    """An episode so far: enough to make the env again, reset it the same way and play the same actions."""

    env_id: str
    kwargs: dict[str, Any]
    seed: int | None
    options: dict[str, Any]
    steps: list[Step] = field(default_factory=list)

    def __post_init__(self):
        self.steps = [step if isinstance(step, Step) else Step(**step) for step in self.steps]

    @property
    def rewards(self) -> list[float]:
        return [step.reward for step in self.steps]

    def save(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1))

    @classmethod
    def load(cls, path: str | os.PathLike) -> EpisodeRecord:
        """Reads a saved record; a file that is not one is a ValueError naming the file."""
        try:
            return cls.from_dict(json.loads(Path(path).read_text()))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path}: not a saved chipgym episode ({type(error).__name__}: {error})") from None


@dataclass(frozen=True)
class Divergence:
    """The first step whose reward or ending differs between a record and its replay."""

    step: int
    field: str
    replayed: Any
    saved: Any

    def __str__(self) -> str:
        return f"step {self.step}: {self.field} {self.replayed}, saved {self.saved}"


@dataclass(frozen=True)
class ReplayResult:
    """What a replay gave: the rewards of the steps replayed, and where it diverged (None if nowhere)."""

    env_id: str
    rewards: list[float]
    divergence: Divergence | None = None

    @property
    def ok(self) -> bool:
        return self.divergence is None


def logged_action(action: Any, max_length: int) -> Any:
    """An action as a record keeps it: one the env rejects for its type or length alone, by its length only.

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


def replay(record: EpisodeRecord | str | os.PathLike, **secret_kwargs: Any) -> ReplayResult:
    """Plays a record's actions in a new env (made from the registry, unwrapped, closed afterwards) up to the
    first step that diverges; ``secret_kwargs`` are the arguments a record leaves out (e.g. ``grading_seed``)."""
    if not isinstance(record, EpisodeRecord):
        record = EpisodeRecord.load(record)
    if record.env_id not in gym.registry:  # also refuses "module:Env" ids, which would import a module
        raise ValueError(f"env_id: {record.env_id!r} is not a registered env id")
    env = gym.make(record.env_id, **record.kwargs, **secret_kwargs).unwrapped
    try:
        env.reset(seed=record.seed, options=record.options)
        rewards: list[float] = []
        for index, saved in enumerate(record.steps):
            _, reward, terminated, truncated, _ = env.step(_replayed(saved.action))
            rewards.append(float(reward))
            for name, got in (("reward", reward), ("terminated", terminated), ("truncated", truncated)):
                if got != getattr(saved, name):
                    return ReplayResult(record.env_id, rewards, Divergence(index, name, got, getattr(saved, name)))
        return ReplayResult(record.env_id, rewards)
    finally:
        env.close()
