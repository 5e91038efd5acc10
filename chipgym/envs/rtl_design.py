"""``chipgym/RtlDesign-v0``: write the RTL of a small CPU under a fixed contract; rewarded by its cost.

The agent reads the task and its contracts, edits files of a private design folder (``write``, ``patch``,
``delete``, ``set_clock``), runs the public check on the public workloads (``check``), and finally
``submit``s: the design is checked again with held-out kernels, synthesized and timed, and rewarded
``1 / (1 + cost)``, or 0 when any correctness check fails.

>>> import gymnasium, chipgym
>>> from chipgym.envs import rtl_actions as act
>>> env = gymnasium.make("chipgym/RtlDesign-v0", task="cpu")                                # doctest: +SKIP
>>> obs, info = env.reset(seed=0, options={"start": "multicycle"})                         # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(act.set_clock(2000))               # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(act.check())                       # doctest: +SKIP
>>> print(obs["feedback"])                                                                 # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(act.submit())                      # doctest: +SKIP

Rewards (``reward_mode``):

- ``"sparse"``: 0 on every step but ``submit``, which earns the score's reward (0 when a check fails).
- ``"shaped"``: with the potential ``P = SHAPED_WEIGHT * programs_passed / programs`` of the last ``check``
  (programs passing both functional and lockstep; 0 when ports or build fail), a ``check`` earns
  ``P_new - P_old``, ``submit`` earns ``score.reward - P_old`` and the step that runs out of budget earns
  ``-P_old``, so an episode's return is exactly its sparse return.

The grading seed (held-out kernels) is the ``grading_seed`` argument, else ``$CHIPGYM_GRADING_SEED``; it
never appears in observations, info or saved episodes. With neither, ``submit`` grades with a seed drawn
from the reset seed and says so in ``info["graded_with"]``. ``check`` never runs held-out kernels.
Infrastructure failures (a tool missing, the grader out of memory) set ``info["status"] = "unavailable"``
with ``info["reason"]`` and reward 0; they are never the design's 0. Wall-clock times are only under
``info["seconds"]``, and only with ``timings=True`` (they are not deterministic).

Each env edits a private temporary folder (``env.root``), so envs run side by side, e.g. in
``gymnasium.vector.AsyncVectorEnv(..., shared_memory=False)`` (Text observations cannot use shared memory).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
from gymnasium import spaces

from chipgym.envs import rtl_actions
from chipgym.envs.episode_log import logged_action, replay_log
from chipgym.envs.drc_script import CHARSET, MAX_TEXT, observation_text
from chipgym.envs.rtl_actions import Action, ActionError
from chipgym.errors import UNAVAILABLE, DesignError, InfrastructureError, SynthesisError
from chipgym.scoring.chip import estimate, score_design
from chipgym.scoring.profile import PROFILES
from chipgym.tasks.chip import CheckReport, check_design
from chipgym.tasks.chip.cpu import workloads
from chipgym.tasks.chip.cpu.assembler import disassemble
from chipgym.tasks.chip.cpu.checks import DV, STALL_PERMILLE
from chipgym.tasks.chip.cpu.heldout import SEED_ENV, grading_seed
from chipgym.tasks.chip.cpu.mutants import FIXTURES
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.workloads import KERNELS
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.ports import load_ports

RewardMode = Literal["sparse", "shaped"]
CPU = DV.parent
STARTS = ("empty", *sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
SHAPED_WEIGHT = 0.5
MAX_FILE_SHOWN = 60_000  # characters of one file in obs["files"]
MAX_FILES = 64  # files in the design folder
MAX_FAILURES = 10  # failures listed in feedback and info
CHECK_CACHE = 64  # check results remembered per env
PUBLIC_SEED = "public-derived seed: not an evaluation"
ACTIONS_HELP = """
## Actions (one JSON object per step; chipgym.envs.rtl_actions builds them)

{"op": "write", "path": "rtl/chipgym_cpu.v", "text": "..."}       create or replace a file
{"op": "patch", "path": P, "search": A, "replace": B}              A must occur exactly once in P
{"op": "delete", "path": P}
{"op": "set_clock", "period_ps": N}                                every clock_period_ps in design.toml
{"op": "check"} or {"op": "check", "estimate": true}               public check (+ area and timing)
{"op": "submit"}                                                   grade and end the episode
"""


@dataclass(frozen=True)
class CheckOutcome:
    status: Literal["ok", "failed", "unavailable"]
    failures: tuple[tuple[str, str], ...] = ()
    programs_passed: int = 0
    cycles: dict[str, int] = field(default_factory=dict)
    estimate: dict[str, Any] | None = None
    reason: str = ""


@dataclass
class _Episode:
    start: str
    public_seed: int
    feedback: str = ""
    steps: int = 0
    done: bool = False
    potential: float = 0.0


class RtlDesignEnv(gym.Env):
    """Design a CPU's RTL and timing model; rewarded ``1 / (1 + cost)`` when every check passes.

    Args:
        task: the chip task (``"cpu"``).
        profile: the technology profile ``submit`` scores with (see ``chipgym.scoring.chip``).
        grading_seed: seed of the held-out kernels (else ``$CHIPGYM_GRADING_SEED``; see the module doc).
        reward_mode: ``"sparse"`` or ``"shaped"`` (see the module doc).
        max_steps: the step budget; the episode is truncated when it runs out.
        formal: run the formal check in ``check`` (slow the first time for each design, then cached).
        timings: add wall-clock times under ``info["seconds"]`` (per step, per check, of grading).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        task: str = "cpu",
        profile: str = "osu018",
        grading_seed: int | None = None,
        reward_mode: RewardMode = "sparse",
        max_steps: int = 40,
        formal: bool = True,
        timings: bool = False,
        render_mode: str | None = None,
    ):
        if task != "cpu":
            raise ValueError(f"task: expected 'cpu', got {task!r}")
        if profile not in PROFILES:
            raise ValueError(f"profile: expected one of {', '.join(sorted(PROFILES))}, got {profile!r}")
        if reward_mode not in ("sparse", "shaped"):
            raise ValueError(f"reward_mode: expected 'sparse' or 'shaped', got {reward_mode!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = {"task": task, "profile": profile, "reward_mode": reward_mode, "max_steps": max_steps,
                       "formal": formal}
        self.task, self.profile, self.reward_mode = task, profile, reward_mode
        self.max_steps, self.formal, self.timings, self.render_mode = max_steps, formal, timings, render_mode
        self._grading_seed = grading_seed
        text = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        fields = ("task", "contracts", "ports", "workloads", "files", "feedback", "budget")
        self.observation_space = spaces.Dict({name: text for name in fields})
        self.action_space = spaces.Text(max_length=rtl_actions.MAX_ACTION, min_length=0, charset=CHARSET)
        self.root = Path(tempfile.mkdtemp(prefix="chipgym-rtl-")).resolve()
        weakref.finalize(self, shutil.rmtree, self.root, True)  # also when an env is dropped without close()
        self._checks: OrderedDict[str, CheckOutcome] = OrderedDict()
        self._episode: _Episode | None = None
        self._log: dict[str, Any] = {}

    # -- episode ------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        start = options.get("start", "empty")
        if start not in STARTS:
            raise ValueError(f"options['start']: expected one of {', '.join(STARTS)}, got {start!r}")
        shutil.rmtree(self.root, ignore_errors=True)
        if start == "empty":
            self.root.mkdir()
        else:
            shutil.copytree(FIXTURES / start, self.root)
        self._episode = _Episode(start, int(self.np_random.integers(2**31)))
        what = "is empty" if start == "empty" else f"holds a copy of the {start} fixture"
        self._episode.feedback = f"New episode: the design folder {what}. Edit, check, then submit."
        self._log = {"config": self.config, "seed": seed, "options": {"start": start}, "steps": []}
        return self._observation(), self._info()

    def step(self, action: str):
        episode = self._require_episode()
        start = time.perf_counter()
        episode.steps += 1
        reward, terminated, extra = 0.0, False, {}
        try:
            if episode.done:
                raise ActionError("the episode has ended; call reset()")
            reward, terminated, extra = self._apply(rtl_actions.parse(action), episode)
        except ActionError as error:
            episode.feedback = f"Action rejected: {error}"
            extra = {"action_error": str(error)}
        truncated = not terminated and episode.steps >= self.max_steps
        if truncated and not episode.done:
            episode.feedback += f"\nThe step budget of {self.max_steps} is spent; the episode ends."
            reward -= episode.potential if self.reward_mode == "shaped" else 0.0
        episode.done = episode.done or terminated or truncated
        info = {**self._info(), **extra}
        seconds = info.pop("seconds", {})
        if self.timings:
            info["seconds"] = {**seconds, "step": time.perf_counter() - start}
        self._log["steps"].append(
            {"action": logged_action(action, rtl_actions.MAX_ACTION), "reward": reward, "terminated": terminated,
             "truncated": truncated})
        return self._observation(), reward, terminated, truncated, info

    def _apply(self, action: Action, episode: _Episode) -> tuple[float, bool, dict]:
        if action.op == "write":
            self._write(action.path, action.text)
            episode.feedback = f"Wrote {action.path} ({len(action.text.splitlines())} lines)."
        elif action.op == "patch":
            text = self._read(action.path)
            count = text.count(action.search)
            if count != 1:
                raise ActionError(f"search: occurs {count} times in {action.path}; it must occur exactly once")
            patched = text.replace(action.search, action.replace)
            if len(patched) > rtl_actions.MAX_FILE:
                raise ActionError(f"replace: {action.path} would be longer than {rtl_actions.MAX_FILE} characters")
            self._write(action.path, patched)
            episode.feedback = f"Patched {action.path}."
        elif action.op == "delete":
            self._existing(action.path).unlink()
            episode.feedback = f"Deleted {action.path}."
        elif action.op == "set_clock":
            self._set_clock(action.period_ps)
            episode.feedback = f"clock_period_ps = {action.period_ps} in design.toml."
        elif action.op == "check":
            return self._check(episode, action.estimate)
        elif action.op == "submit":
            return self._submit(episode)
        return 0.0, False, {}

    # -- files ------------------------------------------------------------------------------------------------
    def _file(self, path: str) -> Path:
        """The design folder's file ``path``; refuses folders and anything that resolves outside the folder."""
        target = self.root / path
        if not target.resolve().is_relative_to(self.root) or target.is_symlink():
            raise ActionError(f"path: {path} leads outside the design folder")
        if target.is_dir():
            raise ActionError(f"path: {path} is a folder")
        return target

    def _existing(self, path: str) -> Path:
        target = self._file(path)
        if not target.is_file():
            raise ActionError(f"path: no file {path} in the design folder")
        return target

    def _read(self, path: str) -> str:
        return self._existing(path).read_text(encoding="utf-8", errors="replace")

    def _write(self, path: str, text: str) -> None:
        target = self._file(path)
        if len(text) > rtl_actions.MAX_FILE:
            raise ActionError(f"replace: {path} would be longer than {rtl_actions.MAX_FILE} characters")
        if not target.exists() and len(self._files()) >= MAX_FILES:
            raise ActionError(f"path: the design folder already holds {MAX_FILES} files")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise ActionError(f"path: a file stands where {path} needs a folder") from None
        target.write_text(text, encoding="utf-8")

    def _set_clock(self, period_ps: int) -> None:
        toml = self._file("design.toml")
        line = f"clock_period_ps = {period_ps}"
        if not toml.is_file():
            self._write("design.toml", f'top = "{_top()}"\n{line}\n')
            return
        text = toml.read_text(encoding="utf-8", errors="replace")
        text, count = re.subn(r"(?m)^clock_period_ps\s*=.*$", line, text)
        self._write("design.toml", text if count else text.rstrip("\n") + f"\n{line}\n")

    def _files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() and not p.is_symlink())

    # -- check and submit ---------------------------------------------------------------------------------
    def _check(self, episode: _Episode, estimate: bool) -> tuple[float, bool, dict]:
        outcome, seconds = self._checked(estimate)
        total = len(_public_programs())
        lines = [_verdict(outcome, total)]
        lines += [f"{check}: {detail}" for check, detail in outcome.failures[:MAX_FAILURES]]
        if len(outcome.failures) > MAX_FAILURES:
            lines.append(f"... and {len(outcome.failures) - MAX_FAILURES} more failures")
        if outcome.cycles:
            lines.append("Cycles: " + ", ".join(f"{name} {n}" for name, n in outcome.cycles.items()))
        if outcome.estimate is not None:
            lines.append("Estimate: " + ", ".join(f"{k} {v}" for k, v in outcome.estimate.items()))
        episode.feedback = "\n".join(lines)
        reward = 0.0
        if self.reward_mode == "shaped" and outcome.status != "unavailable":
            potential = SHAPED_WEIGHT * outcome.programs_passed / total
            reward, episode.potential = potential - episode.potential, potential
        info = {
            "status": outcome.status,
            "check": {
                "failed_checks": sorted({check for check, _ in outcome.failures}),
                "failures": [list(f) for f in outcome.failures[:MAX_FAILURES]],
                "programs_passed": outcome.programs_passed, "programs": total, "cycles": dict(outcome.cycles),
                **({"estimate": dict(outcome.estimate)} if outcome.estimate is not None else {}),
            },
            "seconds": seconds,
        }
        if outcome.reason:
            info["reason"] = outcome.reason
        return reward, False, info

    def _checked(self, estimate: bool) -> tuple[CheckOutcome, dict[str, float]]:
        """The public check of the design as it is now, memoized by content and options, and the seconds
        each check took (none when the result was remembered)."""
        try:
            design = load_design(self.root, self.profile)
            model = design.timing_model.read_bytes().hex() if design.timing_model.is_file() else ""
            key = design.digest(model, json.dumps([self.formal, self.profile, estimate]))
        except DesignError:
            key = ""
        if key in self._checks:
            self._checks.move_to_end(key)
            return self._checks[key], {}
        outcome, seconds = self._run_check(estimate)
        if key and "unavailable" not in (outcome.status, *(outcome.estimate or {})):
            self._checks[key] = outcome
            if len(self._checks) > CHECK_CACHE:
                self._checks.popitem(last=False)
        return outcome, seconds

    def _run_check(self, estimate: bool) -> tuple[CheckOutcome, dict[str, float]]:
        try:
            report = check_design(self.root, task=self.task, profile=self.profile, programs=list(_public_programs()),
                                  formal=self.formal, heldout=False)
        except UNAVAILABLE as error:
            return CheckOutcome("unavailable", reason=self._public(f"{type(error).__name__}: {error}")), {}
        failures = tuple((check, self._public(detail)) for check, detail in report.failures)
        cycles = {name: stats["cycles"] for name, stats in report.stats.items()}
        built = not {"design", "ports", "build"} & set(report.failed_checks())
        outcome = CheckOutcome("ok" if report.passed else "failed", failures, _programs_passed(report), cycles,
                               self._estimate() if estimate and built else None)
        return outcome, dict(report.timings)

    def _estimate(self) -> dict[str, Any]:
        try:
            return estimate(self.root, profile=self.profile).to_dict()
        except SynthesisError as error:
            return {"error": self._public(str(error))}
        except InfrastructureError as error:
            return {"unavailable": self._public(str(error))}

    def _submit(self, episode: _Episode) -> tuple[float, bool, dict]:
        seed, graded_with = self._seed(episode)
        try:
            score = score_design(self.root, task=self.task, profile=self.profile, grading_seed=seed)
        except UNAVAILABLE as error:
            reason = self._public(f"{type(error).__name__}: {error}")
            episode.feedback = f"Submitted, but grading is unavailable: {reason}"
            return 0.0, True, {"status": "unavailable", "reason": reason, "graded_with": graded_with}
        details = score.to_dict()
        info: dict[str, Any] = {"status": score.status, "graded_with": graded_with,
                                "seconds": {"submit": details.pop("seconds", {})}, "score": _public_score(details)}
        if score.status == "failed":
            info["failures"] = [[check, self._public(detail)] for check, detail in score.failures[:MAX_FAILURES]]
            check, detail = info["failures"][0]
            episode.feedback = f"Submitted: rejected, reward 0. {check}: {detail}"
        elif score.status == "unavailable":
            info["reason"] = self._public(score.reason)
            episode.feedback = f"Submitted, but grading is unavailable: {info['reason']}"
        else:
            episode.feedback = f"Submitted: accepted, {score.summary()}"
        reward = score.reward
        if self.reward_mode == "shaped" and score.status != "unavailable":
            reward -= episode.potential
        return reward, True, info

    def _seed(self, episode: _Episode) -> tuple[int, str]:
        if self._grading_seed is not None or SEED_ENV in os.environ:
            return grading_seed(self._grading_seed), "grading seed"
        return episode.public_seed, PUBLIC_SEED

    def _public(self, text: str) -> str:
        """Tool messages with the private design folder's path cut to paths relative to it."""
        return text.replace(f"{self.root}/", "").replace(str(self.root), ".")

    # -- observations ---------------------------------------------------------------------------------------
    def _observation(self) -> dict[str, str]:
        episode = self._require_episode()
        obs = {
            "files": self._files_text(),
            "feedback": episode.feedback,
            "budget": f"{self.max_steps - episode.steps} of {self.max_steps} steps left",
        }
        return {**_static_observation(), **{name: observation_text(text) for name, text in obs.items()}}

    def _files_text(self) -> str:
        files = self._files()
        if not files:
            return "The design folder is empty."
        listing = [f"{p.relative_to(self.root)} ({p.stat().st_size} bytes)" for p in files]
        parts = ["Design folder:\n" + "\n".join(listing)]
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            cut = f"\n... ({len(text) - MAX_FILE_SHOWN} more characters)" if len(text) > MAX_FILE_SHOWN else ""
            parts.append(f"== {path.relative_to(self.root)} ==\n{text[:MAX_FILE_SHOWN]}{cut}")
        return "\n\n".join(parts)

    def _info(self) -> dict[str, Any]:
        episode = self._require_episode()
        return {"start": episode.start, "step": episode.steps, "budget": self.max_steps - episode.steps}

    def _require_episode(self) -> _Episode:
        if self._episode is None:
            raise gym.error.ResetNeeded("call reset() before step() or render()")
        return self._episode

    # -- render, replay, close --------------------------------------------------------------------------------
    def render(self):
        episode = self._require_episode()
        if self.render_mode == "ansi":
            listing = self._files_text().split("\n\n")[0]
            return f"[{episode.start} step {episode.steps}]\n{listing}\n---\n{episode.feedback}\n"
        return None

    def save_episode(self, path: str | os.PathLike) -> None:
        """Writes the episode so far (config, seed, start, actions, rewards; never the grading seed) as JSON."""
        Path(path).write_text(json.dumps(self._log, indent=1))

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)
        super().close()


def replay(path: str | os.PathLike, grading_seed: int | None = None) -> list[float]:
    """Replays a saved episode in a fresh env; raises ValueError if a reward differs from the saved one."""
    log = json.loads(Path(path).read_text())
    return replay_log(RtlDesignEnv(**log["config"], grading_seed=grading_seed), log, path)


def _verdict(outcome: CheckOutcome, total: int) -> str:
    if outcome.status == "unavailable":
        return f"Check unavailable (not the design's fault): {outcome.reason}"
    if outcome.status == "ok":
        return f"Check: PASS. All {total} public programs pass."
    failed = ", ".join(sorted({check for check, _ in outcome.failures}))
    return f"Check: FAIL in {failed}. {outcome.programs_passed} of {total} public programs pass."


def _public_score(details: dict[str, Any]) -> dict[str, Any]:
    """The score without what would tell about the held-out kernels beyond T, E, A and the reward: the cache
    key (a hash of the seed among public things), the cycle and retirement totals (they include the held-out
    kernels) and the figures of each held-out kernel. Failures and the reason are given apart, with the
    design folder's path cut."""
    workloads = {name: figures for name, figures in details.get("workloads", {}).items() if name in KERNELS}
    kept = {k: v for k, v in details.items() if k not in ("key", "failures", "reason", "cycles", "retired")}
    return {**kept, "workloads": workloads}


def _programs_passed(report: CheckReport) -> int:
    """Programs that passed functional (they have stats) and have no lockstep failure."""
    lockstep = {detail.partition(":")[0] for check, detail in report.failures if check == "lockstep"}
    if "timing model" in lockstep:
        return 0
    return sum(name not in lockstep for name in report.stats)


@cache
def _top() -> str:
    return load_ports(DV / "ports.xml").top


@cache
def _public_programs() -> tuple:
    return tuple(workloads.programs())


@cache
def _static_observation() -> dict[str, str]:
    names = ("arch.xml", "isa.xml", "dv/formal.sv")
    contracts = "\n\n".join(f"== {name} ==\n{(CPU / name).read_text()}" for name in names)
    texts = {
        "task": (CPU / "TASK.md").read_text() + ACTIONS_HELP,
        "contracts": contracts,
        "ports": (DV / "ports.xml").read_text(),
        "workloads": _workloads_text(),
    }
    return {name: observation_text(text) for name, text in texts.items()}


def _doc(function) -> str:
    return " ".join((function.__doc__ or "").replace("``", "").split())


def _workloads_text() -> str:
    lines = [
        "The public check runs these programs, each with exact memories and, when that passes, with "
        f"{STALL_PERMILLE / 10:g}% random memory stalls and stall bursts of tens to hundreds of cycles. "
        + _doc(workloads.programs),
        "Random programs: " + _doc(workloads.random_program),
        "Grading adds held-out kernels: the same kernels resized, with other data and renamed registers.",
        "",
    ]
    for program in _public_programs():
        run = execute(program)
        ops = sorted({disassemble(r.insn).split()[0] for r in run.retirements})
        end = "halts" if run.final.halted else f"faults (fault {run.final.fault})"
        lines.append(f"{program.name}: {len(program.imem)} words, {len(run.retirements)} retirements, {end}; "
                     f"executes {' '.join(ops)}")
        if program.name in KERNELS:
            lines += [f"    {disassemble(word)}" for word in program.imem]
    return "\n".join(lines)
