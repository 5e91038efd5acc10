"""One env and one agent playing episodes step by step, each step returned as a log record as soon as it is
done: what ``chipgym eval`` runs in every Ray actor (and what a test runs in process).

Records (JSON objects; :mod:`chipgym.baselines.step_log` writes and reads them):

- ``start``: the episode's key, attempt, env, reset seed and options, the opening messages of its chat (those
  the agent sent, when it keeps a conversation), and what the agent says of its set-up (``agent``: the LLM
  agent's context budget and where it came from, whether tools are offered and the actions listed).
- ``step``: the action (as an episode record keeps it), the assistant message it came from, why that reply could
  not be read as an action (``reply_error``, "" when it could), why the model stopped (``finish_reason``:
  ``length`` is a reply cut at max_tokens), the env's answer as the chat protocol puts it, a digest of the
  observation, reward, ending, info, tokens, retries and seconds.
- ``end``: the status (``success``, ``failure``, ``error``: the deck or design errored, ``unavailable``: the
  endpoint or an engine failed, not the agent), the reason, the return, steps, tokens and seconds.

Only the infrastructure makes an episode ``unavailable`` (:data:`chipgym.errors.UNAVAILABLE`: an
``InfrastructureError`` such as ``EndpointUnavailable``, or running out of memory); any other exception, of the
agent or of the env, ends the episode a ``failure`` whose reason names it.

Wall times are under ``seconds`` and where an episode ran under ``node``: the only keys that differ between two
runs of the same agent on the same episodes.

>>> runner = EpisodeRunner("chipgym/RtlDesign-v0", {"formal": False}, "random")
>>> [start] = runner.start(EpisodeSpec("empty#0", {"start": "empty"}, seed=0))
>>> records = runner.advance()
>>> records[0]["type"], records[0]["step"], "action_error" in records[0]["info"]
('step', 1, True)
>>> runner.close()
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

import gymnasium

import chipgym  # noqa: F401  (registers the env ids in Ray's worker processes too)
from chipgym.baselines.agent import Agent
from chipgym.envs import chat
from chipgym.envs.episode import logged_action
from chipgym.errors import UNAVAILABLE
from chipgym.results import Status

AGENTS = ("openai", "scripted", "random")
VOLATILE = ("seconds", "node")  # record keys that hold wall times and places, not results

@dataclass(frozen=True)
class EpisodeSpec:
    """An episode to play: ``key`` names it in the log (``TASK#SAMPLE``), ``options`` go to ``reset``."""

    key: str
    options: dict[str, Any]
    seed: int
    group: str = ""
    sample: int = 0

def make_agent(name: str, env_id: str, llm: dict[str, Any] | None = None) -> Agent:
    """The agent ``name`` (openai, scripted, random) for ``env_id``; ``llm`` holds the LlmConfig's fields."""
    if name == "openai":
        from chipgym.baselines.llm import LlmAgent, LlmConfig

        return LlmAgent(env_id, LlmConfig(**(llm or {})))
    if name == "scripted":
        from chipgym.baselines.scripted import ScriptedAgent

        return ScriptedAgent(env_id)
    if name == "random":
        from chipgym.baselines.random_text import RandomTextAgent

        return RandomTextAgent()
    raise ValueError(f"--agent: expected one of {', '.join(AGENTS)}, got {name!r}")

def end_record(spec: EpisodeSpec, attempt: int, status: str, reason: str, **figures: Any) -> dict[str, Any]:
    """The end record of an attempt; ``figures`` (return, steps, tokens, seconds) default to 0."""
    zero = {"return": 0.0, "steps": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}
    return {"type": "end", "episode": spec.key, "attempt": attempt, "status": str(status), "reason": reason[:2000],
            **zero, **figures, "group": spec.group}


def digest(observation: dict[str, str]) -> str:
    """A short sha256 of an observation, to compare runs without logging every field."""
    return hashlib.sha256(json.dumps(observation, sort_keys=True).encode()).hexdigest()[:16]

@dataclass
class _Episode:
    spec: EpisodeSpec
    attempt: int
    observation: dict[str, str]
    info: dict[str, Any]
    started: float
    steps: int = 0
    total: float = 0.0
    tokens: list[int] = field(default_factory=lambda: [0, 0])
    errors: bool = False  # the last run, check or grade reported errors of the deck or design

class EpisodeRunner:
    """Plays episodes of ``env_id`` (made with ``env_kwargs``) with the agent ``agent``; one env for its life,
    made anew only where the env forbids replaying a task (the evaluation regime grades each task once)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], agent: str, llm: dict[str, Any] | None = None,
                 time_limit: float | None = None):
        self.env_id, self.env_kwargs, self.time_limit = env_id, dict(env_kwargs), time_limit
        self.env = gymnasium.make(env_id, **self.env_kwargs)
        self.agent = make_agent(agent, env_id, llm)
        self._played: set[str] = set()
        self._episode: _Episode | None = None

    def start(self, spec: EpisodeSpec, attempt: int = 0) -> list[dict[str, Any]]:
        """Resets the env for ``spec``; the start record (or, when the env cannot reset, the end record too)."""
        replayed = spec.options.get("task", spec.key) in self._played
        if replayed and self.env_kwargs.get("regime") == "evaluation":  # a new sample of a task: a new env
            tasks = getattr(self.env.unwrapped, "tasks", None)  # loaded once
            self.env.close()
            self.env = gymnasium.make(self.env_id, **{**self.env_kwargs, **({"tasks": tasks} if tasks else {})})
            self._played = set()
        self._played.add(spec.options.get("task", spec.key))
        base = {"episode": spec.key, "attempt": attempt}
        start = {"type": "start", **base, "env": self.env_id, "seed": spec.seed, "options": spec.options,
                 "group": spec.group, "sample": spec.sample, "node": _node()}
        try:
            observation, info = self.env.reset(seed=spec.seed, options=spec.options)
            self.agent.reset(observation, info, _agent_seed(spec))
        except Exception as error:  # an engine that cannot start is unavailable; anything else, a failure
            self._episode = None
            return [start, end_record(spec, attempt, *_failed("reset", error))]
        self._episode = _Episode(spec, attempt, observation, info, time.perf_counter())
        opening = getattr(self.agent, "opening", None) or chat.messages(self.env_id, observation)
        start["messages"] = [dict(message) for message in opening]  # as they are now: the agent may add to them
        start["agent"] = getattr(self.agent, "setup", {})
        start["group"] = spec.group or str(info.get("group") or info.get("start") or "")
        return [start]

    def advance(self) -> list[dict[str, Any]]:
        """Plays one step: its record, and the end record when the episode ended."""
        episode = self._episode
        if episode is None:
            raise RuntimeError("advance: no episode; call start() first")
        base = {"episode": episode.spec.key, "attempt": episode.attempt}
        began = time.perf_counter()
        try:
            turn = self.agent.act(episode.observation, episode.info)
        except Exception as error:
            return [self._end(*_failed("the agent", error))]
        acted = time.perf_counter()
        try:
            observation, reward, terminated, truncated, info = self.env.step(turn.action)
        except Exception as error:
            return [self._end(*_failed("the env's step", error))]
        stepped = time.perf_counter()
        episode.observation, episode.info = observation, info
        episode.steps += 1
        episode.total += reward
        episode.tokens[0] += turn.prompt_tokens
        episode.tokens[1] += turn.completion_tokens
        episode.errors = _reports_errors(info, episode.errors)
        step = {"type": "step", **base, "step": episode.steps, "action": logged_action(turn.action, 1 << 20),
                "message": turn.message, "reply_error": turn.problem, "finish_reason": turn.finish_reason,
                "answer": chat.state_message(self.env_id, observation, unread=turn.problem),
                "observation": digest(observation), "reward": reward, "terminated": terminated,
                "truncated": truncated, "info": _jsonable(info), "prompt_tokens": turn.prompt_tokens,
                "completion_tokens": turn.completion_tokens, "retries": turn.retries,
                "seconds": {"agent": acted - began, "env": stepped - acted}}
        out_of_time = self.time_limit is not None and stepped - episode.started > self.time_limit
        if not (terminated or truncated or out_of_time):
            return [step]
        return [step, self._end(*self._verdict(reward, terminated, info, out_of_time))]

    def close(self) -> None:
        self.agent.close()
        self.env.close()

    def _verdict(self, reward: float, terminated: bool, info: dict[str, Any], out_of_time: bool) -> tuple[str, str]:
        if info.get("status") == Status.UNAVAILABLE:
            return Status.UNAVAILABLE, str(info.get("reason", ""))
        if self.env.unwrapped.succeeded(reward, terminated):
            return "success", ""
        reason = "submitted" if terminated else ("time limit" if out_of_time else "step budget spent")
        return ("error" if self._episode.errors else "failure"), reason

    def _end(self, status: str, reason: str) -> dict[str, Any]:
        episode, self._episode = self._episode, None
        return end_record(episode.spec, episode.attempt, status, reason, steps=episode.steps,
                          prompt_tokens=episode.tokens[0], completion_tokens=episode.tokens[1],
                          seconds=time.perf_counter() - episode.started, **{"return": episode.total})

def _failed(where: str, error: Exception) -> tuple[str, str]:
    """The status and reason of an episode that ``error`` stopped: unavailable when the infrastructure failed,
    else the agent's or the env's failure."""
    if isinstance(error, UNAVAILABLE):
        return Status.UNAVAILABLE, str(error) or type(error).__name__
    return "failure", f"{where} raised {type(error).__name__}: {error}"


def _reports_errors(info: dict[str, Any], before: bool) -> bool:
    """Whether the deck or design has errors, as far as this step tells (a step that tells nothing keeps what
    the earlier ones told)."""
    if "run" in info:
        return bool(info["run"].get("errors"))
    if "grade" in info:
        return bool(info["grade"].get("error")) or before
    if "failures" in info or "check" in info:
        return bool(info.get("failures")) or info.get("status") == Status.FAILED
    return before

def _jsonable(info: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps({k: v for k, v in info.items() if k not in VOLATILE}, default=str))

def _agent_seed(spec: EpisodeSpec) -> int:
    return zlib.crc32(f"{spec.key}".encode())

def _node() -> str:
    try:
        import ray

        return ray.get_runtime_context().get_node_id() if ray.is_initialized() else os.uname().nodename
    except ImportError:
        return os.uname().nodename
