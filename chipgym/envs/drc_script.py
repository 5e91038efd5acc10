"""``chipgym/DrcScript-v0``: write a KLayout DRC deck for a design rule; rewarded by agreement with the gold deck.

The agent reads a rule, writes a deck (``write``, ``patch``), may add its own test layouts (``add_test``)
and run the deck on them and on the public examples (``run``), and finally ``submit``s: the deck is graded
on hidden layouts it never sees, on a separate pool of sandboxed KLayout workers.

Two regimes, for two purposes:

- ``regime="training"`` (the default): feedback is a learning signal (F1, fraction of layouts matched, error
  classes). Every submit is graded on fresh layouts made from the hidden ones (turned, mirrored, moved, with
  a passing layout beside them; :mod:`chipgym.tasks.drc.instances`) and labelled by the gold deck then, at
  least ``instances.MIN_FRESH`` of them, so that a deck that remembers layouts or verdicts from earlier
  submits gains nothing.
- ``regime="evaluation"``: one submit per task for the life of the env, graded on the hidden layouts
  themselves, and the agent learns only whether it succeeded.

In both, the deck sees one hidden layout at a time, always under the same name, in an order drawn anew
for every submit; what it prints, raises or names on hidden layouts never reaches the agent.

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
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from chipgym.engines.klayout import DrcCache, DrcPool, DrcResult
from chipgym.envs import drc_actions
from chipgym.envs.drc_actions import Action, ActionError
from chipgym.envs.episode_log import logged_action, replay_log
from chipgym.scoring.drc import Grade, compare
from chipgym.tasks.drc import instances
from chipgym.tasks.drc.layout_text import layout_to_text, summary_gds, summary_to_text
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.task import DrcTask, Testcase

CHARSET = string.printable + "µ²³×·±≤≥°–—‘’“”"  # ASCII and the symbols design manuals use
MAX_TEXT = 500_000
DOCS_PATH = Path(__file__).with_name("klayout_drc_reference.md")
RewardMode = Literal["binary", "shaped"]
Regime = Literal["training", "evaluation"]
MAX_TEST_SHAPES = 20_000  # polygons of one test layout, once flattened
FRESH_TRIES = 3  # fresh layout sets drawn before grading on the hidden ones themselves

SHAPED_RUN_COST = 0.01  # reward_mode="shaped": each run and each malformed action costs this much
SHAPED_PARTIAL_WEIGHT = 0.5  # ... and a failed submit earns this times the fraction of layouts matched


def observation_text(text: str) -> str:
    """Text fit for the observation space: characters outside it become '?', and it is cut to MAX_TEXT."""
    if not all(c in CHARSET for c in text):
        text = "".join(c if c in CHARSET else "?" for c in text)
    return text[:MAX_TEXT]


@dataclass(frozen=True)
class _AgentTest:
    """A test layout the agent added: run as it is; shown and drawn from what the sandbox read of it."""

    case: Testcase
    text: str
    drawing: bytes  # a flat GDS this process wrote itself


@dataclass
class _Episode:
    task: DrcTask
    script: str
    tests: list[_AgentTest] = field(default_factory=list)
    feedback: str = ""
    steps: int = 0
    done: bool = False
    last_layout: bytes | Path | None = None
    last_markers: dict = field(default_factory=dict)
    fresh: Future | None = None  # training: this episode's fresh layouts and the gold deck's results on them


class DrcScriptEnv(gym.Env):
    """Write a KLayout DRC deck that agrees with a hidden gold deck on hidden layouts.

    Args:
        tasks: a suite name (``"drc-v0"``), a path to a Rule2DRC ``problems/`` folder, or a list of tasks.
        split: ``"train"``, ``"test"`` or ``"all"`` tasks of the suite.
        include_docs: add a KLayout DRC reference to the observation (``obs["docs"]``).
        grade: ``"verdicts"`` (per category: any marker or none, as Rule2DRC) or ``"markers"`` (same geometry).
        regime: ``"training"`` (fresh hidden layouts every submit, full feedback) or ``"evaluation"`` (one
            submit per task, success only); see the module docstring.
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
        regime: Regime = "training",
        reward_mode: RewardMode = "binary",
        max_steps: int = 30,
        max_tests: int = 32,
        timeout: float = 20.0,
        timings: bool = False,
        render_mode: str | None = None,
    ):
        if grade not in ("verdicts", "markers"):
            raise ValueError(f"grade: expected 'verdicts' or 'markers', got {grade!r}")
        if regime not in ("training", "evaluation"):
            raise ValueError(f"regime: expected 'training' or 'evaluation', got {regime!r}")
        if reward_mode not in ("binary", "shaped"):
            raise ValueError(f"reward_mode: expected 'binary' or 'shaped', got {reward_mode!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = {
            "tasks": str(tasks) if isinstance(tasks, (str, os.PathLike)) else None, "split": split,
            "include_docs": include_docs, "grade": grade, "regime": regime, "reward_mode": reward_mode,
            "max_steps": max_steps, "max_tests": max_tests, "timeout": timeout,
        }
        self.tasks = load_tasks(tasks, split)
        self.grade_mode = grade
        self.regime = regime
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
        self.action_space = spaces.Text(max_length=drc_actions.MAX_ACTION, min_length=0, charset=CHARSET)
        # Three pools: the agent's decks on its own tests, the agent's decks on hidden layouts, and the gold
        # deck (where it is needed). No deck sees both the agent's tests and a hidden layout, and the
        # gold deck never runs where an agent's deck has run. Fresh layouts are never seen twice: no cache.
        self._pool = DrcPool(workers=1, timeout=timeout)
        self._grader = DrcPool(workers=1, timeout=timeout, cache=DrcCache(size=0) if regime == "training" else None)
        needs_gold = regime == "training" or grade == "markers"
        self._gold = DrcPool(workers=1, timeout=timeout, cache=DrcCache(size=0)) if needs_gold else None
        self._labeller = ThreadPoolExecutor(1, thread_name_prefix="chipgym-fresh")
        self._gold_hidden: dict[str, list[DrcResult]] = {}  # evaluation + markers: per task, in hidden order
        self._submitted: set[str] = set()  # evaluation: the tasks already graded
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
        if self.regime == "training":  # labelled while the agent works, so that submit waits only for its deck
            self._episode.fresh = self._labeller.submit(self._fresh_cases, task, int(self.np_random.integers(2**63)))
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
        self._log["steps"].append({"action": logged_action(action, drc_actions.MAX_ACTION), "reward": reward,
                                   "terminated": terminated, "truncated": truncated})
        return self._observation(), reward, terminated, truncated, info

    def _apply(self, action: Action, episode: _Episode) -> tuple[float, bool, dict]:
        if action.op == "write":
            episode.script = action.script
            episode.feedback = f"Deck replaced ({len(action.script.splitlines())} lines)."
        elif action.op == "patch":
            if action.search not in episode.script:
                raise ActionError("search: not found in the current deck")
            patched = episode.script.replace(action.search, action.replace, 1)
            if len(patched) > drc_actions.MAX_SCRIPT:
                raise ActionError(f"replace: the deck would be longer than {drc_actions.MAX_SCRIPT} characters")
            episode.script = patched
            episode.feedback = "Deck patched."
        elif action.op == "add_test":
            if len(episode.tests) >= self.max_tests:
                raise ActionError(f"add_test: at most {self.max_tests} tests")
            test = self._agent_test(action, episode)
            episode.tests.append(test)
            episode.last_layout = test.drawing
            episode.feedback = f"Test {test.case.name} added (expected {_verdicts(test.case.labels)})."
        elif action.op == "run":
            return self._run(episode)
        elif action.op == "submit":
            return self._submit(episode)
        return 0.0, False, {}

    def _agent_test(self, action: Action, episode: _Episode) -> _AgentTest:
        """Reads the agent's layout in the sandbox, once: what cannot be read, or is too big, is refused."""
        [summary] = self._pool.summarise([action.gds], MAX_TEST_SHAPES)
        if not summary.ok:
            raise ActionError(summary.error)
        expected = {c: action.expected.get(c, 0) for c in episode.task.categories}
        name = action.name or f"test{len(episode.tests) + 1}"
        text = summary_to_text(summary, episode.task.layers)
        return _AgentTest(Testcase(name, action.gds, expected), text, summary_gds(summary))

    def _run(self, episode: _Episode) -> tuple[float, bool, dict]:
        cases = list(episode.task.public_examples) + [test.case for test in episode.tests]
        results = self._pool.run(episode.script, [case.gds for case in cases])
        outcome = compare(cases, episode.task.categories, results)
        if outcome.unavailable:
            episode.feedback = f"The run is unavailable (not the deck's fault): {outcome.unavailable}."
            return 0.0, False, {"status": "unavailable", "reason": outcome.unavailable}
        lines = [f"Ran the deck on {len(cases)} layouts: {outcome.layouts_matched:.0%} match the expected verdicts."]
        lines += [_result_line(case, result) for case, result in zip(cases, results)]
        episode.feedback = "\n".join(lines)
        episode.last_layout = episode.tests[-1].drawing if episode.tests else cases[-1].gds
        episode.last_markers = {n: c.markers for n, c in results[-1].categories.items()}
        reward = -SHAPED_RUN_COST if self.reward_mode == "shaped" else 0.0
        return reward, False, {"run": {"layouts_matched": outcome.layouts_matched, "errors": outcome.error_counts}}

    def _submit(self, episode: _Episode) -> tuple[float, bool, dict]:
        task = episode.task
        if self.regime == "evaluation" and task.id in self._submitted:
            raise ActionError(f"submit: task {task.id} was already graded; the evaluation regime grades each task once")
        result = self._grade(episode)
        if result.unavailable:
            episode.feedback = f"Submitted, but grading is unavailable (not the deck's fault): {result.unavailable}."
            return 0.0, True, {"status": "unavailable", "reason": result.unavailable}
        verdict = "accepted" if result.success else "rejected"
        if self.regime == "evaluation":
            self._submitted.add(task.id)
            episode.feedback = f"Submitted: {verdict}."
            return float(result.success), True, {"grade": {"success": result.success}}
        if result.success:
            reward = 1.0
        else:
            reward = SHAPED_PARTIAL_WEIGHT * result.layouts_matched if self.reward_mode == "shaped" else 0.0
        error = f" Error class on some hidden layouts: {result.error}." if result.error else ""
        episode.feedback = (
            f"Submitted: {verdict}. {result.layouts_matched:.0%} of the hidden layouts matched, "
            f"mean F1 {result.f1:.2f}.{error}"
        )
        return reward, True, {"grade": grade_info(result)}

    # -- grading ----------------------------------------------------------------------------------------------
    def _grade(self, episode: _Episode) -> Grade:
        """The deck's grade on fresh layouts (training) or the hidden ones in a new order (evaluation)."""
        task = episode.task
        if episode.fresh is not None and (fresh := episode.fresh.result()) is not None:
            cases, gold = fresh
            results = self._grader.run(episode.script, [case.gds for case in cases])
            return compare(cases, task.categories, results, gold if self.grade_mode == "markers" else None)
        order = [int(i) for i in self.np_random.permutation(len(task.hidden_testcases))]
        cases = [task.hidden_testcases[i] for i in order]
        gold = None
        if self.grade_mode == "markers":
            if task.id not in self._gold_hidden:
                self._gold_hidden[task.id] = self._gold.run(task.gold_deck, [c.gds for c in task.hidden_testcases])
            gold = [self._gold_hidden[task.id][i] for i in order]
        return compare(cases, task.categories, self._grader.run(episode.script, [case.gds for case in cases]), gold)

    def _fresh_cases(self, task: DrcTask, seed: int) -> tuple[list[Testcase], list[DrcResult]] | None:
        """Fresh layouts labelled by the gold deck, or None when FRESH_TRIES sets in a row did not discriminate
        every category (then the hidden layouts themselves are graded)."""
        rng = np.random.default_rng(seed)
        for _ in range(FRESH_TRIES):
            layouts = instances.fresh_layouts(task.hidden_testcases, rng, max(len(task.hidden_testcases), instances.MIN_FRESH))
            gold = self._gold.run(task.gold_deck, layouts)
            if (cases := instances.label_fresh(layouts, gold, task.categories)) is not None:
                return cases, gold
        return None

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
                f"{test.case.name} (expected {_verdicts(test.case.labels)}):\n{test.text}" for test in episode.tests
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
        if (labeller := getattr(self, "_labeller", None)) is not None:
            labeller.shutdown(wait=True, cancel_futures=True)
        for pool in (getattr(self, "_pool", None), getattr(self, "_grader", None), getattr(self, "_gold", None)):
            if pool is not None:
                pool.close()
        super().close()


def replay(path: str | os.PathLike) -> list[float]:
    """Replays a saved episode in a fresh env; raises ValueError if a reward differs from the saved one."""
    log = json.loads(Path(path).read_text())
    return replay_log(DrcScriptEnv(**log["config"]), log, path)


def grade_info(result: Grade) -> dict[str, Any]:
    """What an agent may learn from grading in the training regime: partial credit, error classes and
    counts; not the hidden layouts, nor anything its deck printed or named on them."""
    return {
        "success": result.success,
        "error": result.error,
        "error_counts": result.error_counts,
        "layouts_matched": result.layouts_matched,
        "f1": result.f1,
        "category_f1": {name: score.f1 for name, score in result.categories.items()},
        "mismatch_count": len(result.mismatches),
        "extra_categories": result.extra_categories,
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
