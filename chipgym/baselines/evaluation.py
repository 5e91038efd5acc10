"""Evaluating an agent on a suite, episodes in parallel as Ray actors: what ``chipgym eval`` runs.

Each actor owns one :class:`~chipgym.baselines.episode_runner.EpisodeRunner` (an env with its engine pools, and
an agent) and plays one step per call, so the driver writes every step to the log as soon as it is done; a new
episode goes to whichever actor finishes first. Works on a local Ray (started here with ``workers`` CPUs) and
on a cluster (``ray_address``); an actor lost mid-episode ends that episode ``unavailable`` and is replaced.
Once ``EvalRun.stop`` is set (``chipgym eval`` sets it on SIGTERM), no step is asked for any more: the episodes
in flight are left without an end (``--resume`` plays them again) and the summary covers those that ended.

>>> specs = episode_specs("chipgym/RtlDesign-v0", {}, samples=2, names=["pipelined"])
>>> [(s.key, s.seed) for s in specs]
[('pipelined#0', 0), ('pipelined#1', 1)]
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tqdm import tqdm

from chipgym.baselines.episode_runner import EpisodeRunner, EpisodeSpec, end_record
from chipgym.baselines.eval_summary import summarize
from chipgym.baselines.ray_actors import actor_class, ray_session
from chipgym.baselines.step_log import StepLog, read_episodes
from chipgym.envs.registry import env_class
from chipgym.errors import UNAVAILABLE

LOG_NAME, RUN_NAME, SUMMARY_NAME = "steps.jsonl", "run.json", "summary.json"
SAME_RUN = ("env_id", "env_kwargs", "agent", "samples")  # what --resume must find unchanged in run.json
POLL_SECONDS = 0.5  # between looks at EvalRun.stop while steps are in flight


@dataclass
class EvalRun:
    """What to evaluate, where, and how."""

    env_id: str
    env_kwargs: dict[str, Any]
    agent: str
    episodes: list[EpisodeSpec]
    out: Path
    workers: int = 1
    llm: dict[str, Any] | None = None  # the LlmConfig's fields, for the openai agent
    samples: int = 1
    ray_address: str | None = None
    resume: bool = False
    time_limit: float | None = None  # seconds of one episode
    progress: bool = True
    stop: threading.Event | None = None  # once set, the run ends after the steps in flight, without their records


def episode_specs(env_id: str, env_kwargs: dict[str, Any], limit: int | None = None, samples: int = 1,
                  names: Sequence[str] | None = None) -> list[EpisodeSpec]:
    """The episodes of an evaluation, as the env plans them (``evaluation_episodes``: every task of the DRC env's
    suite and split, the chip env's starting designs), those in ``names`` if given, the first ``limit``, each
    ``samples`` times (sample i is reset with seed i)."""
    if samples < 1:
        raise ValueError(f"--samples: expected at least 1, got {samples}")
    plan = getattr(env_class(env_id), "evaluation_episodes", None)
    if plan is None:
        raise ValueError(f"--env: {env_id} plans no evaluation (its class has no evaluation_episodes)")
    units = plan(env_kwargs, names)
    units = units[:limit] if limit is not None else units
    return [EpisodeSpec(f"{name}#{i}", options, i, group, i) for name, options, group in units for i in range(samples)]


def _check_resumable(run: EvalRun, saved: dict[str, Any]) -> None:
    for name in SAME_RUN:
        if saved.get(name) != _run_file(run).get(name):
            raise ValueError(f"--resume: {run.out / RUN_NAME} holds a run with another {name} "
                             f"({saved.get(name)!r}); use another --out or the same arguments")


def _run_file(run: EvalRun) -> dict[str, Any]:
    llm = {k: v for k, v in (run.llm or {}).items() if k != "api_key"}
    return json.loads(json.dumps({"env_id": run.env_id, "env_kwargs": run.env_kwargs, "agent": run.agent,
                                  "samples": run.samples, "llm": llm, "episodes": len(run.episodes)}))


def evaluate(run: EvalRun) -> dict[str, Any]:
    """Plays every episode of ``run`` not finished yet, logging each step to ``out/steps.jsonl``; writes and
    returns the summary of the log's episodes (``out/summary.json``)."""
    run.out.mkdir(parents=True, exist_ok=True)
    log = StepLog(run.out / LOG_NAME)
    run_path = run.out / RUN_NAME
    if run.resume and run_path.exists():
        _check_resumable(run, json.loads(run_path.read_text()))
    elif log.path.exists() and log.path.stat().st_size:
        raise ValueError(f"--out: {run.out} holds a log already; pass --resume to go on with it, or another --out")
    run_path.write_text(json.dumps(_run_file(run), indent=1))
    finished = log.finished() if run.resume else set()
    attempts = log.attempts()
    todo = deque(spec for spec in run.episodes if spec.key not in finished)
    wall = time.perf_counter()
    try:
        with ray_session(run.workers, run.ray_address, "chipgym eval") as ray:
            _play(run, todo, attempts, log, ray)
    finally:
        log.close()
    keys = {spec.key for spec in run.episodes}
    episodes = [e for e in read_episodes(log.path) if e.start["episode"] in keys]
    summary = summarize(episodes, run.samples, time.perf_counter() - wall)
    summary["played"] = len([spec for spec in run.episodes if spec.key not in finished])
    summary["stopped"] = bool(run.stop and run.stop.is_set())
    (run.out / SUMMARY_NAME).write_text(json.dumps(summary, indent=1))
    return summary


def _play(run: EvalRun, todo: deque, attempts, log: StepLog, ray) -> None:
    Runner = actor_class(ray, EpisodeRunner)

    def new_actor():
        return Runner.remote(run.env_id, run.env_kwargs, run.agent, run.llm, run.time_limit)

    bar = tqdm(total=len(todo), desc="episodes", unit="episode", file=sys.stderr, disable=not run.progress)
    done = successes = 0
    inflight: dict[Any, tuple[Any, EpisodeSpec, int]] = {}

    def begin(actor) -> None:
        if todo:
            spec = todo.popleft()
            attempt = attempts[spec.key]
            attempts[spec.key] += 1
            inflight[actor.start.remote(spec, attempt)] = (actor, spec, attempt)

    for _ in range(min(run.workers, len(todo))):
        begin(new_actor())
    while inflight:
        ready, _ = ray.wait(list(inflight), num_returns=1, timeout=POLL_SECONDS)
        if run.stop is not None and run.stop.is_set():
            break
        if not ready:
            continue
        actor, spec, attempt = inflight.pop(ready[0])
        try:
            records = ray.get(ready[0])
        except ray.exceptions.RayError as error:
            records = [end_record(spec, attempt, *_lost(ray, error))]
            ray.kill(actor, no_restart=True)
            actor = new_actor()
        for record in records:
            log.write(record)
        if records[-1]["type"] != "end":
            inflight[actor.advance.remote()] = (actor, spec, attempt)
            continue
        done += 1
        successes += records[-1]["status"] == "success"
        bar.set_postfix_str(f"success {successes}/{done} ({successes / done:.0%})")
        bar.update()
        if todo:
            begin(actor)
        else:
            ray.get(actor.close.remote())
    bar.close()


def _lost(ray, error: Exception) -> tuple[str, str]:
    """The status and reason of an episode whose actor call failed: a call that raised (the runner turns the
    agent's and the env's exceptions into failures itself, so this is a bug of its own) is a failure, unless
    what it raised is the infrastructure's; an actor that died (its node went away, out of memory) is
    unavailable."""
    described = f"{type(error).__name__}: {str(error)[:500]}"
    if isinstance(error, ray.exceptions.RayTaskError) and not isinstance(error, UNAVAILABLE):
        return "failure", f"the episode raised {described}"
    return "unavailable", f"the Ray actor was lost: {described}"
