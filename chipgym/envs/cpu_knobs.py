"""``chipgym/CpuKnobs-v0``: design-space exploration of the ``cpu`` task by knobs, on the real flow.

## Description
In the style of ArchGym: each step picks one knob vector, the cpu task's design generator
(``load_task("cpu").generator``, ``generator.py`` in the task's folder) writes its design (RTL and timing
model), and the real scorer (:func:`chipgym.scoring.chip.score_design`: the public check with formal, Yosys
synthesis, OpenSTA timing at the declared period, gate-level energy) grades it through the disk cache, so a
design scored once, by any env or process, costs milliseconds afterwards.

## Action Space
``MultiDiscrete(generator.action_sizes())``: ``[pipeline, forwarding, branch, multiplier, period]``, each
the index of a value in the generator's ``KNOBS`` and the period an index into the profile's grid
``PERIODS_PS``. ``forwarding`` and ``branch`` are
ignored by the multicycle core (see ``Knobs.canonical``). An action outside the space is not an error of
the env: it costs its evaluation, with reward 0 and ``info["action_error"]``.

## Observation Space
``Box(float32, 11)``: the last evaluated design's ``T / T0``, ``E / E0``, ``A / A0`` (the profile's units)
and ``cost`` (0 when unknown), its outcome (1 scored, 0 failed a check or timing, -1 none yet, unavailable
or a rejected action), its knob vector scaled to [0, 1], and the fraction of the episode's evaluations spent.

## Rewards
``1 / (1 + cost)`` of the evaluated design, 0 when it fails any check or misses timing. Designs are graded on
the public kernels (and, as every score, on the held-out ones too when ``$CHIPGYM_GRADING_SEED`` is set:
``info["graded_with"]``). An infrastructure
failure gives ``info["status"] = "unavailable"`` with ``info["reason"]`` and reward 0: no verdict on the
design.

## Starting State
No design evaluated: zeros, outcome -1.

## Episode End
Terminated after ``evaluations`` steps.

## Arguments
``profile`` (``"osu018"`` or ``"asap7"``), ``evaluations`` (8), ``timings`` (wall times under
``info["seconds"]``), ``choices``: a sub-space, the values allowed for some knobs (``{"pipeline":
["multicycle"], "period": [0, 2]}``; the period by index), each dimension of the action then an index into
its knob's allowed values (the observation keeps the full space's knob vector).

## Version History
- v0: the first version.

>>> import gymnasium, chipgym
>>> env = gymnasium.make("chipgym/CpuKnobs-v0", evaluations=2)
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step([0, 0, 0, 0, 2])  # multicycle, 8,000 ps
>>> info["design"], info["status"], 0 < reward < 1                       # doctest: +SKIP
('multicycle/mul-single-cycle/p2', 'ok', True)
>>> env.close()
"""
from __future__ import annotations

import re
import shutil
import tempfile
import time
import weakref
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from chipgym.envs.base import SKELETON_INFO
from chipgym.envs.episode import EpisodeRecord, Step
from chipgym.envs.registry import SmokeEpisode
from chipgym.results import Status
from chipgym.scoring.chip import ChipScore, score_design
from chipgym.scoring.profile import load_profile
from chipgym.tasks.chip.registry import load_task

generator = load_task("cpu").generator
Knobs = generator.Knobs

ENV_ID = "chipgym/CpuKnobs-v0"
KNOB_NAMES = (*generator.KNOBS, "period")
OUTCOME = {Status.OK: 1.0, Status.FAILED: 0.0, Status.UNAVAILABLE: -1.0}
NO_OUTCOME = -1.0
RATIO_MAX = 1e6
"""the observation's bound on T / T0, E / E0, A / A0 and cost"""
MAX_DETAIL = 300
"""characters of each failure's detail in info"""
DESIGN_PATH = re.compile(r"\S*chipgym-knobs-[^/\s]*/design-\d+")
"""the folder a design was scored in, by this env or by the one whose score the cache kept"""


class CpuKnobsEnv(gym.Env):
    """Pick knob vectors of the cpu design generator; each is checked and scored by the real flow."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1}

    info_keys = {
        **SKELETON_INFO,
        "design": "the knob vector's design name", "knobs": "the knobs chosen", "period_ps": "its clock period",
        "status": "ok, failed or unavailable: of the evaluation", "graded_with": "what it was graded with",
        "reason": "why the evaluation was unavailable", "failures": "the design's failures",
        **{name: f"the score's {name}" for name in ("T_us", "E_nJ", "A_um2", "cost", "slack_ps", "cells")},
    }

    @classmethod
    def smoke_episodes(cls, folder: Path) -> dict[str, SmokeEpisode]:
        """The multicycle fixture's design at two periods, a malformed action, and one evaluation again."""
        choices = {"pipeline": ["multicycle"], "multiplier": ["single-cycle"], "period": [0, 2]}
        return {"multicycle": SmokeEpisode({"evaluations": 4, "choices": choices}, {},
                                           [[0, 0, 0, 0, 1], [0, 0, 0, 0, 0], "oops", [0] * 5])}

    def __init__(self, profile: str = "osu018", evaluations: int = 8, choices: dict[str, list] | None = None,
                 timings: bool = False, render_mode: str | None = None):
        if profile not in generator.PERIODS_PS:
            raise ValueError(f"profile: expected one of {sorted(generator.PERIODS_PS)}, got {profile!r}")
        if evaluations < 1:
            raise ValueError(f"evaluations: expected a positive number, got {evaluations}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.profile, self.evaluations, self.timings, self.render_mode = profile, evaluations, timings, render_mode
        self.sizes = np.array(generator.action_sizes(), dtype=np.int64)
        self.allowed = _allowed(choices or {})
        self.action_space = spaces.MultiDiscrete([len(indices) for indices in self.allowed])
        size = 4 + 1 + len(self.sizes) + 1
        low = np.full(size, 0.0, dtype=np.float32)
        low[4] = NO_OUTCOME
        high = np.full(size, 1.0, dtype=np.float32)
        high[:4] = RATIO_MAX
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        kwargs = {"profile": profile, "evaluations": evaluations, **({"choices": choices} if choices else {})}
        self.spec = gym.envs.registration.EnvSpec(ENV_ID, f"{__name__}:CpuKnobsEnv", kwargs=kwargs)
        self.root = Path(tempfile.mkdtemp(prefix="chipgym-knobs-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.root, ignore_errors=True)
        self.steps = 0
        self._obs, self._last = self._blank(), ""
        self._record: EpisodeRecord | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.steps, self._obs, self._last = 0, self._blank(), "No design evaluated yet."
        self._record = EpisodeRecord(ENV_ID, dict(self.spec.kwargs), seed, {})
        return self._obs.copy(), {"step": 0, "budget": self.evaluations}

    def step(self, action):
        if self._record is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.steps >= self.evaluations:
            raise gym.error.ResetNeeded(f"the episode's {self.evaluations} evaluations are spent; call reset()")
        start = time.perf_counter()
        self.steps += 1
        try:
            vector = self._vector(action)
            knobs = Knobs.from_action([self.allowed[d][i] for d, i in enumerate(vector)])
        except Exception as error:  # an action is any object: its conversion to an array may raise anything
            reward, info = 0.0, {"action_error": f"action: {_message(error)}"}
            self._obs = self._blank()
            logged: Any = {"not_knobs": _shown(action)}
        else:
            reward, info = self._evaluate(knobs)
            logged = [int(v) for v in vector]
        self._obs[-1] = self.steps / self.evaluations
        terminated = self.steps >= self.evaluations
        info.update(step=self.steps, budget=self.evaluations - self.steps)
        if self.timings:
            info["seconds"] = {**info.get("seconds", {}), "step": time.perf_counter() - start}
        self._record.steps.append(Step(logged, float(reward), terminated, False))
        return self._obs.copy(), float(reward), terminated, False, info

    def _evaluate(self, knobs: Knobs) -> tuple[float, dict[str, Any]]:
        """Generate, score and observe one design."""
        folder = self.root / f"design-{self.steps}"
        try:
            score = score_design(generator.generate(knobs, folder), profile=self.profile)
        except OSError as error:  # the machine's (a full disk, ...): the flow's own failures are in the score
            score = ChipScore(Status.UNAVAILABLE, 0.0, self.profile, "", reason=f"{type(error).__name__}: {error}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        info: dict[str, Any] = {"design": knobs.name, "knobs": asdict(knobs.canonical()),
                                "period_ps": knobs.period_ps(self.profile), "status": str(score.status),
                                "graded_with": score.graded_with}
        if score.status is Status.UNAVAILABLE:
            info["reason"] = score.reason
        for name in ("T_us", "E_nJ", "A_um2", "cost", "slack_ps", "cells"):
            if getattr(score, name) is not None:
                info[name] = getattr(score, name)
        info["failures"] = [(f.check, DESIGN_PATH.sub("DESIGN", f.detail)[:MAX_DETAIL]) for f in score.failures]
        if self.timings:
            info["seconds"] = dict(score.seconds)
        self._obs = self._observe(knobs, score)
        self._last = score.summary()
        return (score.reward if score.status is Status.OK else 0.0), info

    def _observe(self, knobs: Knobs, score: ChipScore) -> np.ndarray:
        obs = self._blank()
        if score.status is Status.OK:  # then the profile loaded
            units = load_profile(self.profile)
            obs[:4] = [score.T_us / units.time_us, score.E_nJ / units.energy_nJ, score.A_um2 / units.area_um2,
                       score.cost]
        obs[4] = OUTCOME[score.status]
        obs[5:5 + len(self.sizes)] = np.array(knobs.to_action()) / np.maximum(self.sizes - 1, 1)
        return np.clip(obs, self.observation_space.low, self.observation_space.high)

    def _blank(self) -> np.ndarray:
        obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        obs[4] = NO_OUTCOME
        obs[-1] = self.steps / self.evaluations
        return obs

    def _vector(self, action) -> np.ndarray:
        vector = np.asarray(action)
        if vector.shape != self.action_space.shape or not np.issubdtype(vector.dtype, np.integer):
            raise ValueError(f"expected {len(self.allowed)} integers, got {vector.dtype} of shape {vector.shape}")
        for (name, indices), index in zip(zip(KNOB_NAMES, self.allowed), vector):
            if not 0 <= index < len(indices):
                raise ValueError(f"{name}: expected an index below {len(indices)}, got {index}")
        return vector

    def render(self) -> str | None:
        return self._last if self.render_mode == "ansi" else None

    @property
    def episode_record(self) -> EpisodeRecord:
        if self._record is None:
            raise gym.error.ResetNeeded("call reset() before asking for the episode")
        record = self._record
        return EpisodeRecord(record.env_id, dict(record.kwargs), record.seed, dict(record.options), list(record.steps))

    def save_episode(self, path) -> None:
        """Writes the episode so far as JSON, for :func:`chipgym.envs.episode.replay` and ``chipgym replay``."""
        self.episode_record.save(path)

    def close(self) -> None:
        self._cleanup()
        super().close()


def _message(error: Exception) -> str:
    """What a failed conversion said, or its exception's name when even that fails."""
    try:
        return str(error)[:MAX_DETAIL]
    except Exception:
        return type(error).__name__


def _shown(action: Any) -> str:
    """The start of an action's repr, or its type's name when its repr fails."""
    try:
        return repr(action)[:200]
    except Exception:
        return f"a {type(action).__name__} whose repr fails"


def _allowed(choices: dict[str, list]) -> list[list[int]]:
    """Per dimension of the knob vector, the indices of the values ``choices`` allows (all by default)."""
    if unknown := sorted(set(choices) - set(KNOB_NAMES)):
        raise ValueError(f"choices: unknown knob {unknown[0]!r}; knobs: {', '.join(KNOB_NAMES)}")
    allowed = []
    for name, size in zip(KNOB_NAMES, generator.action_sizes()):
        values = generator.KNOBS.get(name, tuple(range(size)))
        picked = choices.get(name, list(values))
        if not picked or any(value not in values for value in picked):
            raise ValueError(f"choices: {name} must be a non-empty list of {list(values)}, got {picked!r}")
        allowed.append(sorted(set(values.index(value) for value in picked)))
    return allowed
