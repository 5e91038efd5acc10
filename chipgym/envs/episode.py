"""Episodes as records: what was done in an env and what it gave, saved as JSON and replayed.

A record holds the env id and the constructor arguments (never the secret ones, such as a grading seed),
the reset seed and options, and every step's action, reward and ending. Replaying runs the same actions
in a new env and says at which step, if any, the replay diverged from the record and how.

A saved record is a file anyone can write, so it is read as untrusted input: only a regular file of at most
MAX_RECORD_BYTES, whose fields have a record's types and bounds (at most MAX_RECORD_STEPS steps, text arguments
and options of at most MAX_RECORD_TEXT characters); and before an env is made, its arguments are checked
against the env's constructor (names it takes, not the secret ones, values of the kind of the default) and
against REPLAY_BOUNDS, the one table of the arguments that decide how long a replay may run.

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

import inspect
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from chipgym.envs.registry import env_class
from chipgym.files import read_regular_file
from chipgym.results import JsonResult

MAX_RECORD_BYTES = 64 << 20  # of a saved record (40 steps of whole-file RTL actions take about 32 MiB)
MAX_RECORD_STEPS = 10_000
MAX_RECORD_TEXT = 4096  # characters of a text argument or option (a task id, a folder path)
REPLAY_BOUNDS: dict[str, tuple[float, float]] = {
    # by argument name, for every env; a replay refuses a record whose value is outside
    "timeout": (0.001, 120.0),  # s of a deck on one layout: 120 s is the published Rule2DRC evaluator's
    "max_steps": (1, MAX_RECORD_STEPS),
    "max_tests": (0, 256),
    "evaluations": (1, 1000),
}


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
        """Reads a saved record; a file that is not one (not a regular file, too large, not JSON, fields of the
        wrong types) is a ValueError naming the file and what is wrong."""
        try:
            return cls.from_dict(_record_fields(json.loads(read_regular_file(path, MAX_RECORD_BYTES))))
        except RecursionError:
            raise ValueError(f"{path}: not a saved chipgym episode (nested too deeply)") from None
        except ValueError as error:
            raise ValueError(f"{path}: not a saved chipgym episode ({str(error)[:500]})") from None


def _text(where: str, value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_RECORD_TEXT:
        raise ValueError(f"{where}: longer than {MAX_RECORD_TEXT} characters")
    return value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _action(where: str, action: Any) -> Any:
    """A logged action (see :func:`logged_action`; any JSON value, which the env checks as it checks any
    action), whose length, when it was logged by its length, is a length."""
    if isinstance(action, dict) and "over_long" in action:
        length = action["over_long"]
        if type(length) is not int or length < 0:
            raise ValueError(f"{where}.over_long: expected a number of characters")
    return action


def _step(where: str, step: Any) -> Step:
    if not isinstance(step, dict) or set(step) != {"action", "reward", "terminated", "truncated"}:
        raise ValueError(f"{where}: expected an object of action, reward, terminated and truncated")
    if not _number(step["reward"]):
        raise ValueError(f"{where}.reward: expected a finite number")
    if not all(isinstance(step[name], bool) for name in ("terminated", "truncated")):
        raise ValueError(f"{where}: terminated and truncated must be true or false")
    return Step(_action(f"{where}.action", step["action"]), step["reward"], step["terminated"], step["truncated"])


def _record_fields(data: Any) -> dict[str, Any]:
    """The fields of a saved record, checked against the types and bounds of one."""
    names = ("env_id", "kwargs", "seed", "options", "steps")
    if not isinstance(data, dict) or set(data) != set(names):
        raise ValueError(f"expected a JSON object of {', '.join(names)}")
    if not isinstance(data["env_id"], str) or len(data["env_id"]) > MAX_RECORD_TEXT:
        raise ValueError("env_id: expected an env id")
    seed = data["seed"]
    if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
        raise ValueError("seed: expected null or an integer from 0 to 2**63 - 1")
    for name in ("kwargs", "options"):
        if not isinstance(data[name], dict):
            raise ValueError(f"{name}: expected a JSON object")
        for key, value in data[name].items():
            _text(f"{name}.{key}", value)
    if not isinstance(data["steps"], list) or len(data["steps"]) > MAX_RECORD_STEPS:
        raise ValueError(f"steps: expected a list of at most {MAX_RECORD_STEPS} steps")
    return {**data, "steps": [_step(f"steps[{i}]", step) for i, step in enumerate(data["steps"])]}


def check_kwargs(env_id: str, kwargs: dict[str, Any]) -> None:
    """Refuses (ValueError) constructor arguments of a record that ``env_id``'s constructor does not take or
    keeps secret, whose value is not of the kind of the argument's default, or is outside REPLAY_BOUNDS.

    >>> check_kwargs("chipgym/DrcScript-v0", {"split": "test", "timeout": 30})
    >>> check_kwargs("chipgym/DrcScript-v0", {"timeout": 1e6})
    Traceback (most recent call last):
    ...
    ValueError: kwargs.timeout: 1000000.0 is outside what a replay allows (0.001 to 120.0)
    """
    creator = env_class(env_id)
    parameters = inspect.signature(creator).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    for name, value in kwargs.items():
        if name in getattr(creator, "secret_kwargs", ()):
            raise ValueError(f"kwargs.{name}: a secret argument, which a record never holds")
        if name not in parameters and not takes_any:
            raise ValueError(f"kwargs.{name}: {env_id} takes no such argument")
        default = parameters[name].default if name in parameters else None
        if default not in (None, inspect.Parameter.empty) and _kind(value) != _kind(default):
            raise ValueError(f"kwargs.{name}: expected {_kind(default)} (as its default {default!r}), got {value!r}")
        low, high = REPLAY_BOUNDS.get(name, (None, None))
        if low is not None and value is not None and not (_number(value) and low <= value <= high):
            raise ValueError(f"kwargs.{name}: {value!r} is outside what a replay allows ({low} to {high})")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return "text" if isinstance(value, str) else type(value).__name__


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
        return " " * min(action["over_long"], MAX_RECORD_BYTES)  # longer than any env takes, whatever it says
    return None if isinstance(action, dict) and "not_text" in action else action


def replay(record: EpisodeRecord | str | os.PathLike, **secret_kwargs: Any) -> ReplayResult:
    """Plays a record's actions in a new env (made from the registry, unwrapped, closed afterwards) up to the
    first step that diverges; ``secret_kwargs`` are the arguments a record leaves out (e.g. ``grading_seed``)."""
    if not isinstance(record, EpisodeRecord):
        record = EpisodeRecord.load(record)
    if record.env_id not in gym.registry:  # also refuses "module:Env" ids, which would import a module
        raise ValueError(f"env_id: {record.env_id!r} is not a registered env id")
    check_kwargs(record.env_id, record.kwargs)
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
