"""``chipgym/DrcScript-v0``: write a KLayout DRC deck for a design rule; rewarded by agreement with the gold deck.

## Description
After the Rule2DRC benchmark. The agent reads a design rule in words ("met1 width must be at least
0.14 um"), writes a KLayout DRC deck in KLayout's Ruby DSL, may draw test layouts of its own and run the deck
on them and on the task's public examples, and submits. The deck is graded on hidden layouts it never sees,
on a separate pool of sandboxed KLayout workers; what it prints, raises or names on them never reaches the
agent. Tasks come from a suite (``"drc-v0"``, 331 tasks) or a Rule2DRC ``problems/`` folder.

## Action Space
``Text``: one JSON object per step, built by :mod:`chipgym.envs.drc_actions`: ``write`` (the whole deck),
``patch`` (search and replace in it), ``add_test`` (a layout, as shapes in um or GDS bytes, with the verdict
expected per category), ``run`` (the deck on the examples and tests) and ``submit``. A malformed action is
feedback (``info["action_error"]`` names the field at fault) and costs a step.

## Observation Space
``Dict`` of ``Text`` fields: ``rule`` (the rule and its output categories), ``layers`` (name: layer/datatype),
``examples`` (the public layouts as text, with their verdicts), ``script`` (the deck), ``tests`` (the agent's
layouts as the sandbox read them), ``feedback`` (what the last action did), and ``docs`` (a KLayout DRC
reference) with ``include_docs=True``.

## Rewards
1.0 for a submit whose verdict (any marker, or none) matches the gold deck's in every category on every
hidden layout (with ``grade="markers"``: the same marker geometry), else 0.0. A task that fails the
published Rule2DRC precheck (a GDS file of its data folder has no label row) scores 0.0 whatever the deck.
For partial credit, wrap the env in :class:`chipgym.wrappers.DrcRewardShaping`.

Two regimes:

- ``regime="training"`` (the default): feedback is a learning signal (``info["grade"]``: F1, fraction of
  layouts matched, error classes). Every submit is graded on fresh layouts made from the hidden ones (turned,
  mirrored, moved, with a passing layout beside them; :mod:`chipgym.tasks.drc.instances`), labelled by the
  gold deck then, at least ``instances.MIN_FRESH`` of them, so a deck that remembers earlier verdicts gains
  nothing.
- ``regime="evaluation"``: one submit per task for the life of the env, graded on the hidden layouts
  themselves in an order drawn anew; the agent learns only whether it succeeded.

An unavailable engine (a worker lost from outside) sets ``info["status"] = "unavailable"`` with reward 0;
it is never the deck's 0.

## Starting State
A task drawn with the reset seed (or ``options={"task": id}``; ``env.task_ids()`` lists them) and a deck
that only reads the input and opens the report.

## Episode End
Terminated by ``submit``; truncated when ``max_steps`` steps are spent. The default budget is also the
id's registered ``max_episode_steps``, so ``gymnasium.make``'s ``TimeLimit`` agrees with it; to change the
budget of a made env, give both: ``gymnasium.make(id, max_steps=N, max_episode_steps=N)``.

## Arguments
- ``tasks``: a suite name (``"drc-v0"``), a path to a Rule2DRC ``problems/`` folder, or a list of tasks
  (episodes of an env made from task objects cannot be saved).
- ``split``: ``"train"`` (the default), ``"test"`` or ``"all"`` tasks. A task with no split is served for
  every split: published Rule2DRC problems carry none, so a folder of them serves all its problems with the
  default arguments. A folder's broken problems are skipped with a warning each (see
  :func:`chipgym.tasks.drc.rule2drc.load_rule2drc`).
- ``include_docs``: add the KLayout DRC reference (``obs["docs"]``).
- ``grade``: ``"verdicts"`` (per category: any marker or none, as Rule2DRC) or ``"markers"``.
- ``metric``: ``"chipgym"`` (the default) or ``"rule2drc"``, the published evaluator's decisions (per-category
  F1 of 1.0, undefined F1 counted as 0, undefined categories only when they fire, KLayout's quoting of names;
  ``docs/rule2drc.md``) on the regime's layouts; ``"rule2drc"`` takes ``grade="verdicts"`` only.
- ``regime``: ``"training"`` or ``"evaluation"`` (above).
- ``max_steps`` (30), ``max_tests`` (32 test layouts), ``timeout`` (seconds of the deck on one layout, 20 by
  default; the published evaluator allows 120).
- ``timings``: wall-clock times under ``info["seconds"]``. ``render_mode``: ``"rgb_array"`` (the last layout
  with its markers) or ``"ansi"``.

## Version History
- v0: the first version.

>>> import gymnasium, chipgym
>>> from chipgym.envs import drc_actions as act
>>> from chipgym.tasks.drc.suite import build_suite
>>> [task] = build_suite(ids=["sky130-0000"])                  # one task of drc-v0, labelled once and cached
>>> env = gymnasium.make("chipgym/DrcScript-v0", tasks=[task])
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(act.write(task.gold_deck))
>>> obs, reward, terminated, truncated, info = env.step(act.submit())
>>> reward, terminated
(1.0, True)
>>> env.close()
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
from gymnasium import spaces

from chipgym.engines.klayout import DrcCache, DrcPool, DrcResult
from chipgym.envs import drc_actions
from chipgym.envs.base import StepOutcome, TextActionEnv, observation_text, text_space
from chipgym.envs.drc_actions import Action, ActionError
from chipgym.results import Status
from chipgym.scoring.drc import Grade, Metric, check_metric, compare, precheck
from chipgym.tasks.drc import instances
from chipgym.tasks.drc.layout_text import layout_to_text, summary_gds, summary_to_text
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.task import DrcTask, DrcTaskView, Testcase

DOCS_PATH = Path(__file__).with_name("klayout_drc_reference.md")
Regime = Literal["training", "evaluation"]
MAX_TEST_SHAPES = 20_000  # polygons of one test layout, once flattened
FRESH_TRIES = 3  # fresh layout sets drawn before grading on the hidden ones themselves


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
    last_layout: bytes | Path | None = None
    last_markers: dict = field(default_factory=dict)
    fresh: Future | None = None  # training: this episode's fresh layouts and the gold deck's results on them


class DrcScriptEnv(TextActionEnv):
    """Write a KLayout DRC deck that agrees with a hidden gold deck on hidden layouts (see the module doc)."""

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 1}
    env_id = "chipgym/DrcScript-v0"
    max_action = drc_actions.MAX_ACTION
    default_max_steps = 30

    def __init__(
        self,
        tasks: str | os.PathLike | Sequence[DrcTask] = "drc-v0",
        split: Literal["train", "test", "all"] = "train",
        include_docs: bool = False,
        grade: Literal["verdicts", "markers"] = "verdicts",
        metric: Metric = "chipgym",
        regime: Regime = "training",
        max_steps: int | None = None,
        max_tests: int = 32,
        timeout: float = 20.0,
        timings: bool = False,
        render_mode: str | None = None,
    ):
        if grade not in ("verdicts", "markers"):
            raise ValueError(f"grade: expected 'verdicts' or 'markers', got {grade!r}")
        if regime not in ("training", "evaluation"):
            raise ValueError(f"regime: expected 'training' or 'evaluation', got {regime!r}")
        check_metric(metric, markers=grade == "markers")
        super().__init__({"tasks": tasks, "split": split, "include_docs": include_docs, "grade": grade,
                          "metric": metric, "regime": regime, "max_steps": max_steps, "max_tests": max_tests,
                          "timeout": timeout, "timings": timings, "render_mode": render_mode},
                         max_steps, timings, render_mode)
        self.tasks = load_tasks(tasks, split)
        self.grade_mode = grade
        self.metric = metric
        self.regime = regime
        self.max_tests = max_tests
        self.docs = DOCS_PATH.read_text() if include_docs else None
        fields = {name: text_space() for name in ("rule", "layers", "examples", "script", "tests", "feedback")}
        if include_docs:
            fields["docs"] = text_space()
        self.observation_space = spaces.Dict(fields)
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

    def task_ids(self, group: str | None = None) -> list[str]:
        """The ids of this env's tasks (of one group: sky130, synthetic, syntax, ...), for
        ``reset(options={"task": id})``."""
        return [task.id for task in self.tasks if group is None or task.group == group]

    # -- episode ------------------------------------------------------------------------------------------
    def parse_action(self, text: Any) -> Action:
        return drc_actions.parse(text)

    def _begin(self, options: dict[str, Any]) -> dict[str, Any]:
        if "task" in options:
            matching = [t for t in self.tasks if t.id == options["task"]]
            if not matching:
                raise ValueError(f"options['task']: no task {options['task']!r} in this env's {len(self.tasks)} tasks")
            task = matching[0]
        else:
            task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        script = f'source($input)\nreport("{task.id}", $output)\n'
        self._episode = _Episode(task, script)
        self.feedback = f"New task {task.id}. Write a deck, then submit."
        if self.regime == "training":  # labelled while the agent works, so that submit waits only for its deck
            self._episode.fresh = self._labeller.submit(self._fresh_cases, task, int(self.np_random.integers(2**63)))
        return {"task": task.id}

    def _apply(self, action: Action) -> StepOutcome:
        episode = self._episode
        match action:
            case drc_actions.Write(script=script):
                episode.script = script
                self.feedback = f"Deck replaced ({len(script.splitlines())} lines)."
            case drc_actions.Patch(search=search, replace=replace):
                if search not in episode.script:
                    raise ActionError("search: not found in the current deck")
                patched = episode.script.replace(search, replace, 1)
                if len(patched) > drc_actions.MAX_SCRIPT:
                    raise ActionError(f"replace: the deck would be longer than {drc_actions.MAX_SCRIPT} characters")
                episode.script = patched
                self.feedback = "Deck patched."
            case drc_actions.AddTest():
                if len(episode.tests) >= self.max_tests:
                    raise ActionError(f"add_test: at most {self.max_tests} tests")
                test = self._agent_test(action, episode)
                episode.tests.append(test)
                episode.last_layout = test.drawing
                self.feedback = f"Test {test.case.name} added (expected {_verdicts(test.case.labels)})."
            case drc_actions.Run():
                return self._run(episode)
            case drc_actions.Submit():
                return self._submit(episode)
        return StepOutcome()

    def _agent_test(self, action: drc_actions.AddTest, episode: _Episode) -> _AgentTest:
        """Reads the agent's layout in the sandbox, once: what cannot be read, or is too big, is refused."""
        categories = episode.task.categories
        if unknown := [c for c in action.expected if c not in categories]:
            raise ActionError(f"expected.{unknown[0][:64]}: not a category of this task ({', '.join(categories)})")
        [summary] = self._pool.summarise([action.gds], MAX_TEST_SHAPES)
        if not summary.ok:
            raise ActionError(summary.error)
        expected = {c: action.expected.get(c, 0) for c in categories}
        name = action.name or f"test{len(episode.tests) + 1}"
        text = summary_to_text(summary, episode.task.layers)
        return _AgentTest(Testcase(name, action.gds, expected), text, summary_gds(summary))

    def _run(self, episode: _Episode) -> StepOutcome:
        cases = list(episode.task.public_examples) + [test.case for test in episode.tests]
        results = self._pool.run(episode.script, [case.gds for case in cases])
        outcome = compare(cases, episode.task.categories, results)
        if outcome.unavailable:
            self.feedback = f"The run is unavailable (not the deck's fault): {outcome.unavailable}."
            return StepOutcome(info={"status": Status.UNAVAILABLE, "reason": outcome.unavailable})
        lines = [f"Ran the deck on {len(cases)} layouts: {outcome.layouts_matched:.0%} match the expected verdicts."]
        lines += [_result_line(case, result) for case, result in zip(cases, results)]
        self.feedback = "\n".join(lines)
        episode.last_layout = episode.tests[-1].drawing if episode.tests else cases[-1].gds
        episode.last_markers = {n: c.markers for n, c in results[-1].categories.items()}
        return StepOutcome(info={"run": {"layouts_matched": outcome.layouts_matched, "errors": outcome.error_counts}})

    def _submit(self, episode: _Episode) -> StepOutcome:
        task = episode.task
        if self.regime == "evaluation" and task.id in self._submitted:
            raise ActionError(f"submit: task {task.id} was already graded; the evaluation regime grades each task once")
        result = self._grade(episode)
        if result.unavailable:
            self.feedback = f"Submitted, but grading is unavailable (not the deck's fault): {result.unavailable}."
            return StepOutcome(0.0, True, {"status": Status.UNAVAILABLE, "reason": result.unavailable})
        verdict = "accepted" if result.success else "rejected"
        if self.regime == "evaluation":
            self._submitted.add(task.id)
            self.feedback = f"Submitted: {verdict}."
            return StepOutcome(float(result.success), True, {"grade": {"success": result.success}})
        error = f" Error class on some hidden layouts: {result.error}." if result.error else ""
        if result.extra_categories:
            count = result.extra_categories
            error += f" The deck output {count} categor{'y' if count == 1 else 'ies'} the task does not define."
        if result.precheck:
            error = f" The task itself fails its precheck: {result.precheck}."
        self.feedback = (
            f"Submitted: {verdict}. {result.layouts_matched:.0%} of the hidden layouts matched, "
            f"mean F1 {result.f1:.2f}.{error}"
        )
        return StepOutcome(float(result.success), True, {"grade": grade_info(result)})

    # -- grading ----------------------------------------------------------------------------------------------
    def _grade(self, episode: _Episode) -> Grade:
        """The deck's grade on fresh layouts (training) or the hidden ones in a new order (evaluation)."""
        task = episode.task
        if (failed := precheck(task, self.metric)) is not None:
            return failed
        if episode.fresh is not None and (fresh := episode.fresh.result()) is not None:
            cases, gold = fresh
            results = self._grader.run(episode.script, [case.gds for case in cases])
            return compare(cases, task.categories, results, gold if self.grade_mode == "markers" else None,
                           self.metric)
        order = [int(i) for i in self.np_random.permutation(len(task.hidden_testcases))]
        cases = [task.hidden_testcases[i] for i in order]
        gold = None
        if self.grade_mode == "markers":
            if task.id not in self._gold_hidden:
                self._gold_hidden[task.id] = self._gold.run(task.gold_deck, [c.gds for c in task.hidden_testcases])
            gold = [self._gold_hidden[task.id][i] for i in order]
        results = self._grader.run(episode.script, [case.gds for case in cases])
        return compare(cases, task.categories, results, gold, self.metric)

    def _fresh_cases(self, task: DrcTask, seed: int) -> tuple[list[Testcase], list[DrcResult]] | None:
        """Fresh layouts labelled by the gold deck, or None when FRESH_TRIES sets in a row did not discriminate
        every category (then the hidden layouts themselves are graded)."""
        rng = np.random.default_rng(seed)
        for _ in range(FRESH_TRIES):
            layouts = instances.fresh_layouts(task.hidden_testcases, rng,
                                              max(len(task.hidden_testcases), instances.MIN_FRESH))
            gold = self._gold.run(task.gold_deck, layouts)
            if (cases := instances.label_fresh(layouts, gold, task.categories)) is not None:
                return cases, gold
        return None

    # -- observations ---------------------------------------------------------------------------------------
    def _observation(self) -> dict[str, str]:
        episode = self._episode
        task = episode.task
        obs = {
            "rule": rule_text(task),
            "layers": layers_text(task),
            "examples": self._examples(task),
            "script": episode.script,
            "tests": "\n\n".join(
                f"{test.case.name} (expected {_verdicts(test.case.labels)}):\n{test.text}" for test in episode.tests
            ),
            "feedback": self.feedback,
        }
        if self.docs is not None:
            obs["docs"] = self.docs
        return {name: observation_text(text) for name, text in obs.items()}

    def _examples(self, task: DrcTask) -> str:
        if task.id not in self._examples_text:
            self._examples_text[task.id] = examples_text(task)
        return self._examples_text[task.id]

    def _episode_info(self) -> dict[str, Any]:
        return {"task": self._episode.task.id, "group": self._episode.task.group}

    # -- render, close --------------------------------------------------------------------------------------
    def render(self):
        self._require_reset()
        episode = self._episode
        if self.render_mode == "ansi":
            return f"[{episode.task.id} step {self.steps}]\n{episode.script}\n---\n{self.feedback}\n"
        if self.render_mode == "rgb_array":
            from chipgym.render import render_layout

            layout = episode.last_layout or (episode.task.public_examples[0].gds
                                             if episode.task.public_examples else None)
            if layout is None:
                return np.full((480, 640, 3), 255, dtype=np.uint8)
            return render_layout(layout, episode.last_markers)
        return None

    def close(self):
        if (labeller := getattr(self, "_labeller", None)) is not None:
            labeller.shutdown(wait=True, cancel_futures=True)
        for pool in (getattr(self, "_pool", None), getattr(self, "_grader", None), getattr(self, "_gold", None)):
            if pool is not None:
                pool.close()
        super().close()


def rule_text(task: DrcTaskView) -> str:
    """The ``rule`` observation of a task: its title, description and output categories."""
    return "\n".join([task.title, "", task.description, "", "Output one category per rule:"]
                     + [f"- {category}: {text}" for text, category in task.rules])


def layers_text(task: DrcTaskView) -> str:
    """The ``layers`` observation of a task: one ``name: layer/datatype`` line per layer."""
    return "\n".join(f"{name}: {layer}/{datatype}" for name, (layer, datatype) in task.layers.items())


def examples_text(task: DrcTaskView) -> str:
    """The ``examples`` observation of a task: each public layout as text, with its verdicts."""
    return "\n\n".join(
        f"example {i + 1} (expected {_verdicts(case.labels)}):\n{layout_to_text(case.gds, task.layers)}"
        for i, case in enumerate(task.public_examples)
    )


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
        "compile_rate": result.compile_rate,
        "extra_categories": result.extra_categories,
        "precheck": result.precheck,
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
