"""``chipgym/DrcScript-v0``: write a KLayout DRC deck for a design rule; rewarded by agreement with the gold deck.

The agent reads a rule, writes a deck (``write``, ``patch``), may add its own test layouts (``add_test``)
and run the deck on them and on the public examples (``run``), and finally ``submit``s: the deck is graded
on hidden layouts it never sees, on a separate pool of sandboxed KLayout workers.

>>> import gymnasium, chipgym
>>> from chipgym.envs import drc_actions as act
>>> env = gymnasium.make("chipgym/DrcScript-v0", tasks="drc-v0", split="train")          # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                                                          # doctest: +SKIP
>>> print(obs["rule"])                                                                     # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(act.write(my_deck))                # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(act.submit())                      # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import string
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from chipgym.engines.klayout import DrcPool, DrcResult
from chipgym.envs import drc_actions
from chipgym.envs.episode_log import replay_log
from chipgym.envs.drc_actions import Action, ActionError
from chipgym.scoring.drc import Grade, compare
from chipgym.scoring.drc import grade as grade_deck
from chipgym.tasks.drc.layout_text import layout_to_text
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.task import DrcTask, Testcase

CHARSET = string.printable + "µ²³×·±≤≥°–—‘’“”"  # ASCII and the symbols design manuals use
MAX_TEXT = 500_000
DOCS_PATH = Path(__file__).with_name("klayout_drc_reference.md")
RewardMode = Literal["binary", "shaped"]

SHAPED_RUN_COST = 0.01  # reward_mode="shaped": each run and each malformed action costs this much
SHAPED_PARTIAL_WEIGHT = 0.5  # ... and a failed submit earns this times the fraction of layouts matched


def observation_text(text: str) -> str:
    """Text fit for the observation space: characters outside it become '?', and it is cut to MAX_TEXT."""
    if not all(c in CHARSET for c in text):
        text = "".join(c if c in CHARSET else "?" for c in text)
    return text[:MAX_TEXT]


@dataclass
class _Episode:
    task: DrcTask
    script: str
    tests: list[Testcase] = field(default_factory=list)
    feedback: str = ""
    steps: int = 0
    done: bool = False
    last_layout: bytes | Path | None = None
    last_markers: dict = field(default_factory=dict)


class DrcScriptEnv(gym.Env):
    """Write a KLayout DRC deck that agrees with a hidden gold deck on hidden layouts.

    Args:
        tasks: a suite name (``"drc-v0"``), a path to a Rule2DRC ``problems/`` folder, or a list of tasks.
        split: ``"train"``, ``"test"`` or ``"all"`` tasks of the suite.
        include_docs: add a KLayout DRC reference to the observation (``obs["docs"]``).
        grade: ``"verdicts"`` (per category: any marker or none, as Rule2DRC) or ``"markers"`` (same geometry).
        reward_mode: ``"binary"`` (1 for a successful submit, else 0) or ``"shaped"`` (see module constants).
        max_steps: the step budget; the episode is truncated when it runs out.
        max_tests: how many test layouts the agent may add.
        timeout: seconds for the deck on one layout.
        timings: add wall-clock times under ``info["timing"]`` (off by default: they are not deterministic).
    """

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 1}

    def __init__(
        self,
        tasks: str | os.PathLike | Sequence[DrcTask] = "drc-v0",
        split: Literal["train", "test", "all"] = "train",
        include_docs: bool = False,
        grade: Literal["verdicts", "markers"] = "verdicts",
        reward_mode: RewardMode = "binary",
        max_steps: int = 30,
        max_tests: int = 32,
        timeout: float = 20.0,
        timings: bool = False,
        render_mode: str | None = None,
    ):
        if grade not in ("verdicts", "markers"):
            raise ValueError(f"grade: expected 'verdicts' or 'markers', got {grade!r}")
        if reward_mode not in ("binary", "shaped"):
            raise ValueError(f"reward_mode: expected 'binary' or 'shaped', got {reward_mode!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = {
            "tasks": str(tasks) if isinstance(tasks, (str, os.PathLike)) else None, "split": split,
            "include_docs": include_docs, "grade": grade, "reward_mode": reward_mode, "max_steps": max_steps,
            "max_tests": max_tests, "timeout": timeout,
        }
        self.tasks = load_tasks(tasks, split)
        self.grade_mode = grade
        self.reward_mode = reward_mode
        self.max_steps = max_steps
        self.max_tests = max_tests
        self.timings = timings
        self.render_mode = render_mode
        self.docs = DOCS_PATH.read_text() if include_docs else None
        text = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        fields = {name: text for name in ("rule", "layers", "examples", "script", "tests", "feedback")}
        if include_docs:
            fields["docs"] = text
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Text(max_length=4 * drc_actions.MAX_SCRIPT, min_length=0, charset=CHARSET)
        # The agent's tests and the hidden layouts never share a pool, so no deck ever sees both.
        self._pool = DrcPool(workers=1, timeout=timeout)
        self._grader = DrcPool(workers=1, timeout=timeout)
        self._examples_text: dict[str, str] = {}
        self._episode: _Episode | None = None
        self._log: dict[str, Any] = {}

    def task_ids(self, group: str | None = None) -> list[str]:
        """The ids of this env's tasks (of one group: sky130, synthetic, syntax, ...), for ``reset(options={"task": id})``."""
        return [task.id for task in self.tasks if group is None or task.group == group]

    # -- episode ------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        if "task" in options:
            matching = [t for t in self.tasks if t.id == options["task"]]
            if not matching:
                raise ValueError(f"options['task']: no task {options['task']!r} in this env's {len(self.tasks)} tasks")
            task = matching[0]
        else:
            task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        script = f'source($input)\nreport("{task.id}", $output)\n'
        self._episode = _Episode(task, script, feedback=f"New task {task.id}. Write a deck, then submit.")
        self._log = {"config": self.config, "seed": seed, "options": {"task": task.id}, "steps": []}
        return self._observation(), self._info()

    def step(self, action: str):
        episode = self._require_episode()
        start = time.perf_counter()
        episode.steps += 1
        reward, terminated, extra = 0.0, False, {}
        try:
            if episode.done:
                raise ActionError("the episode has ended; call reset()")
            parsed = drc_actions.parse(action, episode.task.categories)
            reward, terminated, extra = self._apply(parsed, episode)
        except ActionError as error:
            episode.feedback = f"Action rejected: {error}"
            extra = {"action_error": str(error)}
            reward = -SHAPED_RUN_COST if self.reward_mode == "shaped" else 0.0
        truncated = not terminated and episode.steps >= self.max_steps
        episode.done = episode.done or terminated or truncated
        if truncated:
            episode.feedback += f"\nThe step budget of {self.max_steps} is spent; the episode ends."
        info = {**self._info(), **extra}
        if self.timings:
            info["timing"] = {"step_seconds": time.perf_counter() - start}
        self._log["steps"].append({"action": action, "reward": reward, "terminated": terminated, "truncated": truncated})
        return self._observation(), reward, terminated, truncated, info

    def _apply(self, action: Action, episode: _Episode) -> tuple[float, bool, dict]:
        if action.op == "write":
            episode.script = action.script
            episode.feedback = f"Deck replaced ({len(action.script.splitlines())} lines)."
        elif action.op == "patch":
            if action.search not in episode.script:
                raise ActionError("search: not found in the current deck")
            episode.script = episode.script.replace(action.search, action.replace, 1)
            episode.feedback = "Deck patched."
        elif action.op == "add_test":
            if len(episode.tests) >= self.max_tests:
                raise ActionError(f"add_test: at most {self.max_tests} tests")
            expected = {c: action.expected.get(c, 0) for c in episode.task.categories}
            name = action.name or f"test{len(episode.tests) + 1}"
            episode.tests.append(Testcase(name, action.gds, expected))
            episode.last_layout = action.gds
            episode.feedback = f"Test {name} added (expected {_verdicts(expected)})."
        elif action.op == "run":
            return self._run(episode)
        elif action.op == "submit":
            return self._submit(episode)
        return 0.0, False, {}

    def _run(self, episode: _Episode) -> tuple[float, bool, dict]:
        cases = list(episode.task.public_examples) + episode.tests
        results = self._pool.run(episode.script, [case.gds for case in cases])
        outcome = compare(cases, episode.task.categories, results)
        lines = [f"Ran the deck on {len(cases)} layouts: {outcome.layouts_matched:.0%} match the expected verdicts."]
        lines += [_result_line(case, result) for case, result in zip(cases, results)]
        episode.feedback = "\n".join(lines)
        episode.last_layout = cases[-1].gds
        episode.last_markers = {n: c.markers for n, c in results[-1].categories.items()}
        reward = -SHAPED_RUN_COST if self.reward_mode == "shaped" else 0.0
        return reward, False, {"run": {"layouts_matched": outcome.layouts_matched, "errors": outcome.error_counts}}

    def _submit(self, episode: _Episode) -> tuple[float, bool, dict]:
        result = grade_deck(episode.task, episode.script, self._grader, self.grade_mode)
        if result.success:
            reward = 1.0
        else:
            reward = SHAPED_PARTIAL_WEIGHT * result.layouts_matched if self.reward_mode == "shaped" else 0.0
        verdict = "accepted" if result.success else "rejected"
        error = f" Error on some hidden layouts: {result.error}: {result.error_message}" if result.error else ""
        episode.feedback = (
            f"Submitted: {verdict}. {result.layouts_matched:.0%} of the hidden layouts matched, "
            f"mean F1 {result.f1:.2f}.{error}"
        )
        return reward, True, {"grade": grade_info(result)}

    # -- observations ---------------------------------------------------------------------------------------
    def _observation(self) -> dict[str, str]:
        episode = self._require_episode()
        task = episode.task
        obs = {
            "rule": "\n".join(
                [task.title, "", task.description, "", "Output one category per rule:"]
                + [f"- {category}: {text}" for text, category in task.rules]
            ),
            "layers": "\n".join(f"{name}: {layer}/{datatype}" for name, (layer, datatype) in task.layers.items()),
            "examples": self._examples(task),
            "script": episode.script,
            "tests": "\n\n".join(
                f"{case.name} (expected {_verdicts(case.labels)}):\n{layout_to_text(case.gds, task.layers)}"
                for case in episode.tests
            ),
            "feedback": episode.feedback,
        }
        if self.docs is not None:
            obs["docs"] = self.docs
        return {name: observation_text(text) for name, text in obs.items()}

    def _examples(self, task: DrcTask) -> str:
        if task.id not in self._examples_text:
            self._examples_text[task.id] = "\n\n".join(
                f"example {i + 1} (expected {_verdicts(case.labels)}):\n{layout_to_text(case.gds, task.layers)}"
                for i, case in enumerate(task.public_examples)
            )
        return self._examples_text[task.id]

    def _info(self) -> dict[str, Any]:
        episode = self._require_episode()
        return {"task": episode.task.id, "group": episode.task.group, "step": episode.steps}

    def _require_episode(self) -> _Episode:
        if self._episode is None:
            raise gym.error.ResetNeeded("call reset() before step() or render()")
        return self._episode

    # -- render, replay, close --------------------------------------------------------------------------------
    def render(self):
        episode = self._require_episode()
        if self.render_mode == "ansi":
            return f"[{episode.task.id} step {episode.steps}]\n{episode.script}\n---\n{episode.feedback}\n"
        if self.render_mode == "rgb_array":
            from chipgym.render import render_layout

            layout = episode.last_layout or (episode.task.public_examples[0].gds if episode.task.public_examples else None)
            if layout is None:
                return np.full((480, 640, 3), 255, dtype=np.uint8)
            return render_layout(layout, episode.last_markers)
        return None

    def save_episode(self, path: str | os.PathLike) -> None:
        """Writes the episode so far (config, seed, task, actions, rewards) as JSON, for ``replay``."""
        if self._log.get("config", {}).get("tasks") is None:
            raise ValueError("save_episode needs an env made from a suite name or a folder, not a list of tasks")
        Path(path).write_text(json.dumps(self._log, indent=1))

    def close(self):
        for pool in (getattr(self, "_pool", None), getattr(self, "_grader", None)):
            if pool is not None:
                pool.close()
        super().close()


def replay(path: str | os.PathLike) -> list[float]:
    """Replays a saved episode in a fresh env; raises ValueError if a reward differs from the saved one."""
    log = json.loads(Path(path).read_text())
    return replay_log(DrcScriptEnv(**log["config"]), log, path)


def grade_info(result: Grade) -> dict[str, Any]:
    """What an agent may learn from grading: partial credit and error counts, not the hidden layouts."""
    return {
        "success": result.success,
        "error": result.error,
        "error_counts": result.error_counts,
        "layouts_matched": result.layouts_matched,
        "f1": result.f1,
        "category_f1": {name: score.f1 for name, score in result.categories.items()},
        "mismatch_count": len(result.mismatches),
        "extra_categories": list(result.extra_categories),
    }


def _verdicts(labels) -> str:
    return ", ".join(f"{category}={verdict}" for category, verdict in labels.items())


def _result_line(case: Testcase, result: DrcResult) -> str:
    if not result.ok:
        return f"- {case.name}: {result.status.value}: {result.error}"
    got = {c: int(result.counts.get(c, 0) > 0) for c in case.labels}
    marks = ", ".join(
        f"{c} expected {e} got {got[c]}" + ("" if got[c] == e else " MISMATCH") for c, e in case.labels.items()
    )
    extra = sorted(set(result.counts) - set(case.labels))
    return f"- {case.name}: {marks}" + (f"; categories not in the task: {extra}" if extra else "")
