"""``chipgym/RtlDesign-v0``: write the RTL of a chip task (a small CPU, a network-on-chip) under a fixed
contract; rewarded by its cost.

## Description
After a contract-driven chip-design benchmark. The agent reads the task, its contracts (XML; for ``cpu`` the
architecture and ISA, for ``noc`` the network's) and the public workloads, edits the files of a private
design folder (Verilog RTL, a Python timing model the design must match cycle by cycle, ``design.toml``), runs
the public check, and submits. Grading runs the checks again with held-out workloads (simulation against an
untimed reference, timing-model lockstep, a bounded formal gate), then Yosys synthesis, OpenSTA timing and
gate-level energy, and rewards ``1 / (1 + cost)`` with ``cost = (T / T0) x (E / E0) x (A / A0)`` in the
profile's units (asap7: 1 us, 1 nJ, 10,000 um^2).

## Action Space
``Text``: one JSON object per step, built by :mod:`chipgym.envs.rtl_actions`: ``write``, ``patch`` and
``delete`` a file (paths stay inside the design folder), ``set_clock`` (``clock_period_ps`` in design.toml),
``check`` (the public check; ``estimate`` adds synthesized area and timing), ``simulate`` and ``submit``.
``simulate`` (``{"op": "simulate", "program": NAME or assembly, "cycles": N, "signals": [names or glob
patterns], "start": C, "continue": true, "stalls": SEED}``) builds the design with pyverilator (sandboxed,
cached by content), steps it on a public program with the check's memory model (exact, or with the check's
random stalls of a seed) and returns the chosen signals' value changes over the window, the retirements beside
the reference's, and the first divergence (``docs/rtl-simulate.md``); ``continue`` goes on from where the
last one stopped, in the same session, while the design is unchanged. A build error is feedback with the
compiler's message; held-out kernels are never simulated. A malformed
action is feedback (``info["action_error"]``) and costs a step.

## Observation Space
``Dict`` of ``Text`` fields: ``task``, ``contracts``, ``ports``, ``workloads`` (fixed), ``files`` (the
design folder), ``feedback`` (what the last action did) and ``budget``.

## Rewards
0 on every step but ``submit``, which earns the score's reward, 0 when any check fails. For a dense
signal, wrap the env in :class:`chipgym.wrappers.RtlRewardShaping` (potential-based: the return is
unchanged). Infrastructure failures (a tool missing, the grader out of memory) set
``info["status"] = "unavailable"`` with ``info["reason"]`` and reward 0; they are never the design's 0.

The grading seed (held-out kernels) is the ``grading_seed`` argument, else ``$CHIPGYM_GRADING_SEED``; it
never appears in observations, info or saved episodes. With neither, ``submit`` grades with a seed drawn
from the reset seed and says so in ``info["graded_with"]``. ``check`` never runs held-out kernels.

## Starting State
The design folder is empty, or holds a copy of one of the task's fixtures: ``options={"start": NAME}``
(``env.unwrapped.starts``; for ``cpu``: ``"multicycle"`` or ``"pipelined"``).

## Episode End
Terminated by ``submit``; truncated when ``max_steps`` steps are spent. The default budget is also the
id's registered ``max_episode_steps``, so ``gymnasium.make``'s ``TimeLimit`` agrees with it; to change the
budget of a made env, give both: ``gymnasium.make(id, max_steps=N, max_episode_steps=N)``.

## Arguments
- ``task``: a chip task of :mod:`chipgym.tasks.chip.registry` (``"cpu"``, the default). ``profile``: the
  technology profile of scoring, one the task is calibrated on (``"osu018"``, ``"asap7"``). ``grading_seed``:
  above.
- ``max_steps`` (40). ``formal``: run the formal gate in ``check`` (slow the first time for each design,
  then cached).
- ``timings``: wall-clock times under ``info["seconds"]`` (per step, per check, of grading).
  ``render_mode``: ``"ansi"``, or ``"rgb_array"`` (the last simulated window as a waveform picture).

Each env edits a private temporary folder (``env.root``), so envs run side by side, e.g. in
``gymnasium.vector.AsyncVectorEnv(..., shared_memory=False)`` (Text observations cannot use shared memory).

## Version History
- v0: the first version.

>>> import gymnasium, chipgym
>>> from chipgym.envs import rtl_actions as act
>>> env = gymnasium.make("chipgym/RtlDesign-v0", formal=False)
>>> obs, info = env.reset(seed=0, options={"start": "multicycle"})
>>> obs, reward, terminated, truncated, info = env.step(act.set_clock(2000))
>>> obs, reward, terminated, truncated, info = env.step(act.check())
>>> print(obs["feedback"].splitlines()[0])
Check: PASS. All 21 public programs pass.
>>> env.close()
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from gymnasium import spaces

from chipgym.envs import rtl_actions
from chipgym.envs.base import SKELETON_INFO, Plan, StepOutcome, TextActionEnv, chosen, observation_text, text_space
from chipgym.envs.chat import REPLY_RULES, ChatProtocol
from chipgym.envs.registry import SmokeEpisode
from chipgym.envs.rtl_actions import Action, ActionError
from chipgym.errors import (
    UNAVAILABLE,
    AgentError,
    BuildError,
    DesignError,
    InfrastructureError,
    SimulationError,
    SynthesisError,
)
from chipgym.results import Status
from chipgym.scoring.chip import estimate, score_design
from chipgym.tasks.chip import CheckReport, check_design
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.pysim import Stepper, Window
from chipgym.tasks.chip.registry import load_task, task_names
from chipgym.tasks.chip.task import ChipTask
from chipgym.tasks.grading_seed import grading_seed as resolve_seed

MAX_FILE_SHOWN = 60_000  # characters of one file in obs["files"]
MAX_FILES = 64  # files in the design folder
MAX_FAILURES = 10  # failures listed in feedback and info
MAX_BUILD_ERROR = 2000  # characters of a build error shown by simulate
CHECK_CACHE = 64  # check results remembered per env
PUBLIC_SEED = "public-derived seed: not an evaluation"


@dataclass(frozen=True)
class CheckOutcome:
    status: Status
    failures: tuple[tuple[str, str], ...] = ()
    programs_passed: int = 0
    cycles: dict[str, int] = field(default_factory=dict)
    estimate: dict[str, Any] | None = None
    reason: str = ""


@dataclass(frozen=True)
class _Episode:
    start: str
    public_seed: int


class RtlDesignEnv(TextActionEnv):
    """Design a CPU's RTL and timing model; rewarded ``1 / (1 + cost)`` when every check passes (see the module
    doc)."""

    env_id = "chipgym/RtlDesign-v0"
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    max_action = rtl_actions.MAX_ACTION
    default_max_steps = 40
    secret_kwargs = ("grading_seed",)
    chat = ChatProtocol(
        "You design the RTL of a chip block (the task says which) under a fixed contract, with a timing model it "
        "must match. Edit the files of the design folder, run the public check (simulate steps the design to "
        "debug it, where the task offers it), then submit; a submit is graded (held-out workloads, synthesis, "
        "timing, energy) and ends the episode. Every action "
        "costs one step of your budget; a check costs one step and minutes of time, so check when a change is "
        "worth it. A reply without an action never ends the episode: it only spends the budget.\n" + REPLY_RULES,
        kept=("task", "ports"), cuttable=("workloads", "contracts", "files"), state=("feedback", "budget"),
        ops=rtl_actions.OPS)
    info_keys = {
        **SKELETON_INFO,
        "start": "the design the episode started from",
        "status": "ok, failed or unavailable: of the last check, simulate or submit",
        "reason": "why the last check or submit was unavailable",
        "check": "a check's failed_checks, failures, programs_passed, programs, cycles and estimate",
        "simulate": "a simulate's window (cycles, signals, retirements) or its error",
        "graded_with": "what the submit was graded with (public, or public and held-out workloads)",
        "score": "a submit's public score: T, E, A, cost, reward and its figures per public workload",
        "failures": "a rejected submit's failures, held-out ones redacted",
    }

    @staticmethod
    def scripted_plan(observation: dict[str, str]) -> Plan:
        """Checks the design it starts from, then submits it (start from a fixture, ``options={"start":
        "pipelined"}``, for a passing design)."""
        yield rtl_actions.check()
        yield rtl_actions.submit()

    @classmethod
    def evaluation_episodes(cls, kwargs: Mapping[str, Any], names: Sequence[str] | None = None
                            ) -> list[tuple[str, dict[str, Any], str]]:
        """One episode per starting design (``names``; by default the empty folder), named and grouped by it."""
        starts = _starts(load_task(cls.arguments(kwargs)["task"]))
        return chosen([(start, {"start": start}, start) for start in starts], ["empty"] if names is None else names,
                      "starting designs")

    @classmethod
    def smoke_episodes(cls, folder: Path) -> dict[str, SmokeEpisode]:
        """One per registered chip task, from its first fixture: a clock, a check, a malformed action, a write."""
        actions = [rtl_actions.set_clock(1500), rtl_actions.check(), "oops", rtl_actions.write("notes.txt", "x")]
        return {task: SmokeEpisode({"formal": False, "task": task}, {"start": next(iter(load_task(task).fixtures))},
                                   actions) for task in task_names()}

    def __init__(
        self,
        task: str = "cpu",
        profile: str = "osu018",
        grading_seed: int | None = None,
        max_steps: int | None = None,
        formal: bool = True,
        timings: bool = False,
        render_mode: str | None = None,
    ):
        self._task = load_task(task)
        if profile not in self._task.profiles:
            raise ValueError(f"profile: expected one of {', '.join(self._task.profiles)}, got {profile!r}")
        super().__init__({"task": task, "profile": profile, "grading_seed": grading_seed, "max_steps": max_steps,
                          "formal": formal, "timings": timings, "render_mode": render_mode},
                         max_steps, timings, render_mode)
        self.task, self.profile, self.formal = task, profile, formal
        self._grading_seed = grading_seed
        self.starts = _starts(self._task)
        fields = ("task", "contracts", "ports", "workloads", "files", "feedback", "budget")
        self.observation_space = spaces.Dict({name: text_space() for name in fields})
        self.root = Path(tempfile.mkdtemp(prefix="chipgym-rtl-")).resolve()
        weakref.finalize(self, shutil.rmtree, self.root, True)  # also when an env is dropped without close()
        self._checks: OrderedDict[str, CheckOutcome] = OrderedDict()
        self._episode: _Episode | None = None
        self._stepper: Stepper | None = None  # the simulate session, while the design is unchanged
        self._simulated: tuple[str | None, int | None] = (None, None)  # its program and stall seed
        self._window: Window | None = None  # what the last simulate saw

    # -- episode ------------------------------------------------------------------------------------------
    def parse_action(self, text: Any) -> Action:
        return rtl_actions.parse(text)

    def _begin(self, options: dict[str, Any]) -> dict[str, Any]:
        start = options.get("start", "empty")
        if start not in self.starts:
            raise ValueError(f"options['start']: expected one of {', '.join(self.starts)}, got {start!r}")
        self._end_simulation()
        shutil.rmtree(self.root, ignore_errors=True)
        if start == "empty":
            self.root.mkdir()
        else:
            shutil.copytree(self._task.fixtures[start], self.root)
        self._episode = _Episode(start, int(self.np_random.integers(2**31)))
        what = "is empty" if start == "empty" else f"holds a copy of the {start} fixture"
        self.feedback = f"New episode: the design folder {what}. Edit, check, then submit."
        return {"start": start}

    def _apply(self, action: Action) -> StepOutcome:
        match action:
            case rtl_actions.Write(path=path, text=text):
                self._write(path, text)
                self.feedback = f"Wrote {path} ({len(text.splitlines())} lines)."
            case rtl_actions.Patch(path=path, search=search, replace=replace):
                text = self._read(path)
                count = text.count(search)
                if count != 1:
                    raise ActionError(f"search: occurs {count} times in {path}; it must occur exactly once")
                patched = text.replace(search, replace)
                if len(patched) > rtl_actions.MAX_FILE:
                    raise ActionError(f"replace: {path} would be longer than {rtl_actions.MAX_FILE} characters")
                self._write(path, patched)
                self.feedback = f"Patched {path}."
            case rtl_actions.Delete(path=path):
                self._existing(path).unlink()
                self.feedback = f"Deleted {path}."
            case rtl_actions.SetClock(period_ps=period_ps):
                self._set_clock(period_ps)
                self.feedback = f"clock_period_ps = {period_ps} in design.toml."
            case rtl_actions.Check(estimate=estimate):
                return self._check(estimate)
            case rtl_actions.Simulate():
                return self._simulate(action)
            case rtl_actions.Submit():
                return self._submit()
        return StepOutcome()

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
            self._write("design.toml", f'top = "{self._task.top}"\n{line}\n')
            return
        text = toml.read_text(encoding="utf-8", errors="replace")
        text, count = re.subn(r"(?m)^clock_period_ps\s*=.*$", line, text)
        self._write("design.toml", text if count else text.rstrip("\n") + f"\n{line}\n")

    def _files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() and not p.is_symlink())

    # -- check and submit ---------------------------------------------------------------------------------
    def _check(self, estimate: bool) -> StepOutcome:
        outcome, seconds = self._checked(estimate)
        total = len(self._task.public_workloads())
        lines = [_verdict(outcome, total, self._task.workload)]
        lines += [f"{check}: {detail}" for check, detail in outcome.failures[:MAX_FAILURES]]
        if len(outcome.failures) > MAX_FAILURES:
            lines.append(f"... and {len(outcome.failures) - MAX_FAILURES} more failures")
        if outcome.cycles:
            lines.append("Cycles: " + ", ".join(f"{name} {n}" for name, n in outcome.cycles.items()))
        if outcome.estimate is not None:
            lines.append("Estimate: " + ", ".join(f"{k} {v}" for k, v in outcome.estimate.items()))
        self.feedback = "\n".join(lines)
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
        return StepOutcome(info=info)

    def _checked(self, estimate: bool) -> tuple[CheckOutcome, dict[str, float]]:
        """The public check of the design as it is now, memoized by content and options, and the seconds
        each check took (none when the result was remembered)."""
        try:
            design = load_design(self.root, self.profile)
            key = design.digest(design.model_digest(), json.dumps([self.formal, self.profile, estimate]))
        except DesignError:
            key = ""
        if key in self._checks:
            self._checks.move_to_end(key)
            return self._checks[key], {}
        outcome, seconds = self._run_check(estimate)
        if key and Status.UNAVAILABLE not in (outcome.status, *(outcome.estimate or {})):
            self._checks[key] = outcome
            if len(self._checks) > CHECK_CACHE:
                self._checks.popitem(last=False)
        return outcome, seconds

    def _run_check(self, estimate: bool) -> tuple[CheckOutcome, dict[str, float]]:
        try:
            report = check_design(self.root, task=self.task, profile=self.profile, formal=self.formal, heldout=False)
        except UNAVAILABLE as error:
            return CheckOutcome(Status.UNAVAILABLE, reason=self._public(f"{type(error).__name__}: {error}")), {}
        failures = tuple((check, self._public(detail)) for check, detail in report.failures)
        cycles = {name: stats["cycles"] for name, stats in report.stats.items()}
        built = not {"design", "ports", "build"} & set(report.failed_checks())
        outcome = CheckOutcome(Status.OK if report.passed else Status.FAILED, failures, _programs_passed(report),
                               cycles, self._estimate() if estimate and built else None)
        return outcome, dict(report.timings)

    def _estimate(self) -> dict[str, Any]:
        try:
            return estimate(self.root, task=self.task, profile=self.profile).to_dict()
        except SynthesisError as error:
            return {"error": self._public(str(error))}
        except InfrastructureError as error:
            return {"unavailable": self._public(str(error))}

    def _submit(self) -> StepOutcome:
        seed, graded_with = self._seed()
        try:
            score = score_design(self.root, task=self.task, profile=self.profile, grading_seed=seed)
        except UNAVAILABLE as error:
            reason = self._public(f"{type(error).__name__}: {error}")
            self.feedback = f"Submitted, but grading is unavailable: {reason}"
            return StepOutcome(0.0, True, {"status": Status.UNAVAILABLE, "reason": reason, "graded_with": graded_with})
        details = score.to_dict()
        info: dict[str, Any] = {"status": score.status, "graded_with": graded_with,
                                "seconds": {"submit": details.pop("seconds", {})},
                                "score": _public_score(details, self._task.public_workloads())}
        if score.status == Status.FAILED:
            info["failures"] = [[check, self._public(detail)] for check, detail in score.failures[:MAX_FAILURES]]
            check, detail = info["failures"][0]
            self.feedback = f"Submitted: rejected, reward 0. {check}: {detail}"
        elif score.status == Status.UNAVAILABLE:
            info["reason"] = self._public(score.reason)
            self.feedback = f"Submitted, but grading is unavailable: {info['reason']}"
        else:
            self.feedback = f"Submitted: accepted, {score.summary()}"
        return StepOutcome(score.reward, True, info)

    def _simulate(self, action: rtl_actions.Simulate) -> StepOutcome:
        try:
            design = load_design(self.root, self.profile)
        except DesignError as error:
            self.feedback = f"Simulate: the design does not load: {self._public(str(error))}"
            return StepOutcome(info={"status": Status.FAILED, "simulate": {"error": "design"}})
        except UNAVAILABLE as error:
            return self._simulation_unavailable(error)
        going_on = action.continue_ and self._stepper is not None and self._stepper.key == design.digest()
        if action.continue_ and not going_on:
            raise ActionError("continue: no simulation to go on with (none yet, or the design changed since)")
        program, stalls = self._simulated
        if going_on and action.program not in (None, program):
            raise ActionError("program: differs from the one being simulated; leave it out to continue")
        if going_on and action.stalls not in (None, stalls):
            raise ActionError("stalls: differs from the session's; leave it out to continue")
        if going_on and action.start is not None and action.start < self._stepper.cycle:
            raise ActionError(f"start: the simulation is at cycle {self._stepper.cycle} already; simulate "
                              "without continue to start again")
        try:
            if not going_on:
                self._end_simulation()
                try:
                    self._stepper = self._task.stepper(design, action.program, action.stalls)
                except NotImplementedError:
                    raise ActionError(f"op: the {self.task} task offers no simulate") from None
                except (BuildError, SimulationError):
                    raise
                except AgentError as error:  # a program the task cannot read or run
                    raise ActionError(f"program: {error}") from None
                self._simulated = (action.program, action.stalls)
            start = action.start if action.start is not None else self._stepper.cycle if going_on else 0
            self._window = self._stepper.run(start, action.cycles, action.signals)
        except BuildError as error:
            self._end_simulation()
            self.feedback = "Simulate: the design does not build:\n" + self._public(str(error))[:MAX_BUILD_ERROR]
            return StepOutcome(info={"status": Status.FAILED, "simulate": {"error": "build"}})
        except SimulationError as error:
            self._end_simulation()
            self.feedback = "Simulate: the simulation stopped: " + self._public(str(error))
            return StepOutcome(info={"status": Status.FAILED, "simulate": {"error": "simulation"}})
        except UNAVAILABLE as error:
            self._end_simulation()
            return self._simulation_unavailable(error)
        window = self._window
        self.feedback = self._public(window.text())
        return StepOutcome(info={"status": Status.OK, "simulate": {
            "program": window.program, "start": window.waveform.start, "end": window.waveform.end,
            "retired": window.retired, "ended": window.ended, "divergence": window.divergence}})

    def _simulation_unavailable(self, error: Exception) -> StepOutcome:
        reason = self._public(f"{type(error).__name__}: {error}")
        self.feedback = f"Simulate unavailable (not the design's fault): {reason}"
        return StepOutcome(info={"status": Status.UNAVAILABLE, "reason": reason})

    def _end_simulation(self) -> None:
        """Ends the simulate session, and forgets its window (a failed simulate draws nothing)."""
        self._window = None
        if self._stepper is not None:
            self._stepper.close()
            self._stepper = None

    def _seed(self) -> tuple[int, str]:
        if (seed := resolve_seed(self._grading_seed)) is not None:
            return seed, "grading seed"
        return self._episode.public_seed, PUBLIC_SEED

    def _public(self, text: str) -> str:
        """Tool messages with the private design folder's path cut to paths relative to it."""
        return text.replace(f"{self.root}/", "").replace(str(self.root), ".")

    # -- observations ---------------------------------------------------------------------------------------
    def _observation(self) -> dict[str, str]:
        obs = {
            "files": self._files_text(),
            "feedback": self.feedback,
            "budget": f"{self.max_steps - self.steps} of {self.max_steps} steps left",
        }
        return {**_static_observation(self.task), **{name: observation_text(text) for name, text in obs.items()}}

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

    def _episode_info(self) -> dict[str, Any]:
        return {"start": self._episode.start}

    # -- render, close ------------------------------------------------------------------------------------
    def render(self):
        self._require_reset()
        if self.render_mode == "ansi":
            listing = self._files_text().split("\n\n")[0]
            return f"[{self._episode.start} step {self.steps}]\n{listing}\n---\n{self.feedback}\n"
        if self.render_mode == "rgb_array":
            if self._window is None:
                return np.full((240, 960, 3), 255, dtype=np.uint8)
            return self._window.waveform.render()
        return None

    def close(self):
        self._end_simulation()
        shutil.rmtree(self.root, ignore_errors=True)
        super().close()


def _verdict(outcome: CheckOutcome, total: int, workload: str) -> str:
    if outcome.status == Status.UNAVAILABLE:
        return f"Check unavailable (not the design's fault): {outcome.reason}"
    if outcome.status == Status.OK:
        return f"Check: PASS. All {total} public {workload}s pass."
    failed = ", ".join(sorted({check for check, _ in outcome.failures}))
    return f"Check: FAIL in {failed}. {outcome.programs_passed} of {total} public {workload}s pass."


def _public_score(details: dict[str, Any], public: tuple[str, ...]) -> dict[str, Any]:
    """The score without what would tell about the held-out workloads beyond T, E, A and the reward: the cache
    key (a hash of the seed among public things), the cycle and retirement totals (they include the held-out
    workloads) and the figures of each workload not ``public``. Failures and the reason are given apart, with
    the design folder's path cut."""
    workloads = {name: figures for name, figures in details.get("workloads", {}).items() if name in public}
    kept = {k: v for k, v in details.items() if k not in ("key", "failures", "reason", "cycles", "retired")}
    return {**kept, "workloads": workloads}


def _programs_passed(report: CheckReport) -> int:
    """Programs that passed functional (they have stats) and have no lockstep failure."""
    lockstep = {detail.partition(":")[0] for check, detail in report.failures if check == "lockstep"}
    if "timing model" in lockstep:
        return 0
    return sum(name not in lockstep for name in report.stats)


@cache
def _static_observation(task: str) -> dict[str, str]:
    chip_task = load_task(task)
    texts = chip_task.agent_text()
    texts["task"] += actions_help(chip_task)
    return {name: observation_text(text) for name, text in texts.items()}


def actions_help(task: ChipTask) -> str:
    """The actions an agent may take on ``task``'s designs: its own top module's file, and ``simulate`` only
    where the task offers it."""
    write = f'{{"op": "write", "path": "rtl/{task.top}.v", "text": "..."}}'
    return f"""
## Actions (one JSON object per step; chipgym.envs.rtl_actions builds them)

{write:<65} create or replace a file
{{"op": "patch", "path": P, "search": A, "replace": B}}              A must occur exactly once in P
{{"op": "delete", "path": P}}
{{"op": "set_clock", "period_ps": N}}                                every clock_period_ps in design.toml
{{"op": "check"}} or {{"op": "check", "estimate": true}}               public check (+ area and timing)
{task.simulate_help or ""}{{"op": "submit"}}                                                   grade and end the episode
"""


def _starts(task: ChipTask) -> tuple[str, ...]:
    """The designs an episode may start from: the empty folder, or a copy of one of the task's fixtures."""
    return ("empty", *task.fixtures)
