"""The episode skeleton every chipgym env shares: one JSON text action per step, a step budget, named text
observations, ``info`` keys, and the episode record that ``save_episode`` writes and
:func:`chipgym.envs.episode.replay` plays again.

A chipgym env subclasses :class:`TextActionEnv` and writes only its domain: ``parse_action`` (its ops),
``_begin`` (a new episode), ``_apply`` (what an action does), ``_observation`` and ``_episode_info``. What the
generic code asks of an env it finds on the env's class (:func:`chipgym.envs.registry.env_class`): its chat
protocol (``chat``), its evaluation plan (``evaluation_episodes``), its success rule (``succeeded``), its scripted
agent (``scripted_plan``), its smoke episodes (``smoke_episodes``) and its info schema (``info_keys``); it never
switches on an env's id.

Every step's ``info`` has ``step`` and ``budget``; an action the env refuses adds ``action_error`` (and
costs a step); wall-clock times, only with ``timings=True`` since they are not deterministic, are under
``info["seconds"]`` (``"step"``, and whatever the step timed).
"""

from __future__ import annotations

import inspect
import json
import os
import string
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Generator, Mapping, Sequence

import gymnasium as gym
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec

from chipgym.envs.episode import EpisodeRecord, Step, logged_action
from chipgym.envs.json_action import ActionError

CHARSET = string.printable + "µ²³×·±≤≥°–—‘’“”"  # ASCII and the symbols design manuals use
MAX_TEXT = 500_000  # characters of one observation field

SKELETON_INFO = {
    "step": "steps taken in the episode",
    "budget": "steps left",
    "action_error": "why the env refused the last action (it cost a step)",
    "seconds": "wall-clock times of the step and what it timed (only with timings=True)",
}
"""the ``info`` keys every chipgym env's skeleton sets (its ``info_keys`` include them)"""

Plan = Generator[str, dict[str, Any], None]
"""A scripted episode: a generator that yields actions and is sent the ``info`` of each step."""


def observation_text(text: str) -> str:
    """Text fit for the observation space: characters outside it become '?', and it is cut to MAX_TEXT.

    >>> observation_text("width ≥ 0.14 µm \\x00")
    'width ≥ 0.14 µm ?'
    """
    if not all(c in CHARSET for c in text):
        text = "".join(c if c in CHARSET else "?" for c in text)
    return text[:MAX_TEXT]


def text_space(max_length: int = MAX_TEXT) -> spaces.Text:
    return spaces.Text(max_length=max_length, min_length=0, charset=CHARSET)


@dataclass
class StepOutcome:
    """What an action did: its reward, whether it ended the episode, and what it adds to ``info``."""

    reward: float = 0.0
    terminated: bool = False
    info: dict[str, Any] = field(default_factory=dict)


class TextActionEnv(gym.Env):
    """Base of chipgym's envs: JSON text actions, a step budget, an episode record.

    Subclasses set ``max_action`` (characters of one action) and ``default_max_steps``, list the arguments a
    saved episode must leave out in ``secret_kwargs``, and call ``super().__init__`` with their constructor
    arguments (for ``env.spec.kwargs`` when the env is made directly rather than by ``gymnasium.make``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1}
    env_id: ClassVar[str]
    max_action: ClassVar[int]
    default_max_steps: ClassVar[int]
    secret_kwargs: ClassVar[tuple[str, ...]] = ()
    info_keys: ClassVar[Mapping[str, str]]
    """every key the env's ``info`` may hold, and what it holds (:data:`SKELETON_INFO` and the domain's): the
    env's info schema, checked by the conformance test"""
    scripted_plan: ClassVar[Callable[[dict[str, str]], Plan] | None] = None
    """The env's scripted agent, which needs no model (``chipgym eval --agent scripted``): called with the first
    observation, it plans the episode; once the plan ends, its last action is repeated. None: the env has none."""

    def __init__(self, kwargs: dict[str, Any], max_steps: int | None, timings: bool, render_mode: str | None):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.max_steps = self.default_max_steps if max_steps is None else max_steps
        if self.max_steps < 1:
            raise ValueError(f"max_steps: expected a positive number of steps, got {max_steps}")
        self.timings, self.render_mode = timings, render_mode
        self.action_space = text_space(self.max_action)
        self.spec = EnvSpec(self.env_id, f"{type(self).__module__}:{type(self).__name__}", kwargs=kwargs)
        self.steps = 0
        self.feedback = ""
        self._done = False
        self._record: EpisodeRecord | None = None

    @classmethod
    def arguments(cls, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """``kwargs`` completed with the constructor's defaults: the arguments an env made with them has."""
        parameters = inspect.signature(cls.__init__).parameters.values()
        return {**{p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}, **kwargs}

    @classmethod
    def evaluation_episodes(cls, kwargs: Mapping[str, Any], names: Sequence[str] | None = None
                            ) -> list[tuple[str, dict[str, Any], str]]:
        """The episodes an evaluation of the env made with ``kwargs`` plays, each as its name, its reset options
        and its group: the env's default plan, or those named in ``names`` (ValueError for a name it lacks)."""
        raise NotImplementedError(f"{cls.env_id} plans no evaluation")

    @staticmethod
    def succeeded(reward: float, terminated: bool) -> bool:
        """Whether the step that ended an episode solved its task (an evaluation's success): a submit rewarded
        above 0. An env whose reward grades a solution by degree says what counts."""
        return terminated and reward > 0

    # -- the domain's part ---------------------------------------------------------------------------------
    def parse_action(self, text: Any) -> Any:
        """The checked action in ``text``; raises ActionError naming the field at fault."""
        raise NotImplementedError

    def _begin(self, options: dict[str, Any]) -> dict[str, Any]:
        """Starts a new episode (``self.np_random`` is seeded); returns the options that make ``reset`` pick the
        same episode again (e.g. the task it drew) and sets ``self.feedback``."""
        raise NotImplementedError

    def _apply(self, action: Any) -> StepOutcome:
        """Carries out a parsed action; raises ActionError when it cannot be carried out."""
        raise NotImplementedError

    def _observation(self) -> dict[str, str]:
        raise NotImplementedError

    def _episode_info(self) -> dict[str, Any]:
        """The domain's keys of every step's ``info``."""
        return {}

    # -- the skeleton -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        chosen = self._begin(dict(options or {}))
        self.steps, self._done = 0, False
        self._record = EpisodeRecord(self.spec.id, self._saved_kwargs(), seed, chosen)
        return self._observation(), self._info()

    def step(self, action: Any):
        self._require_reset()
        start = time.perf_counter()
        self.steps += 1
        try:
            if self._done:
                raise ActionError("the episode has ended; call reset()")
            outcome = self._apply(self.parse_action(action))
        except ActionError as error:
            self.feedback = f"Action rejected: {error}"
            outcome = StepOutcome(info={"action_error": str(error)})
        truncated = not outcome.terminated and self.steps >= self.max_steps
        if truncated and not self._done:
            self.feedback += f"\nThe step budget of {self.max_steps} is spent; the episode ends."
        self._done = self._done or outcome.terminated or truncated
        info = {**self._info(), **outcome.info}
        seconds = info.pop("seconds", {})
        if self.timings:
            info["seconds"] = {**seconds, "step": time.perf_counter() - start}
        reward = float(outcome.reward)
        self._record.steps.append(Step(logged_action(action, self.max_action), reward, outcome.terminated, truncated))
        return self._observation(), reward, outcome.terminated, truncated, info

    def _info(self) -> dict[str, Any]:
        return {**self._episode_info(), "step": self.steps, "budget": self.max_steps - self.steps}

    def _require_reset(self) -> None:
        if self._record is None:
            raise gym.error.ResetNeeded("call reset() before step() or render()")

    # -- records ------------------------------------------------------------------------------------------
    @property
    def episode_record(self) -> EpisodeRecord:
        """The episode so far (a copy)."""
        self._require_reset()
        record = self._record
        return EpisodeRecord(record.env_id, dict(record.kwargs), record.seed, dict(record.options), list(record.steps))

    def save_episode(self, path: str | os.PathLike) -> None:
        """Writes the episode so far as JSON, for :func:`chipgym.envs.episode.replay` and ``chipgym replay``."""
        record = self.episode_record
        for name, value in record.kwargs.items():
            try:
                json.dumps(value)
            except TypeError:
                raise ValueError(f"save_episode: the argument {name} (a {type(value).__name__}) cannot be saved as "
                                 "JSON; make the env from values JSON holds, e.g. a suite name or a folder") from None
        record.save(path)

    def _saved_kwargs(self) -> dict[str, Any]:
        """``spec.kwargs`` without the secret ones, paths as text."""
        return {name: os.fspath(value) if isinstance(value, os.PathLike) else value
                for name, value in self.spec.kwargs.items() if name not in self.secret_kwargs}


def chosen(plan: Sequence[tuple[str, dict[str, Any], str]], names: Sequence[str] | None, what: str
           ) -> list[tuple[str, dict[str, Any], str]]:
    """The episodes of ``plan`` named in ``names`` (all of ``plan`` without), in the order of ``names``; ValueError
    names one it lacks (``what``: the plural noun of its episodes)."""
    if names is None:
        return list(plan)
    by_name = {episode[0]: episode for episode in plan}
    if unknown := [name for name in names if name not in by_name]:
        raise ValueError(f"no {unknown[0]!r} among the {len(by_name)} {what}: {', '.join(list(by_name)[:8])}"
                         f"{' ...' if len(by_name) > 8 else ''}")
    return [by_name[name] for name in names]

