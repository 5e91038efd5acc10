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

Two regimes, on two disjoint pools of each task's layouts (``docs/datasets.md``):

- ``regime="training"`` (the default): every submit is graded on a draw of the task's *training* layouts
  (``TRAINING_DRAW`` of them, with a passing and a failing one of every category among them), never on an
  evaluation layout, and feedback is a learning signal (``info["grade"]``: F1 and the fraction of layouts
  matched in eighths, which error classes occurred, whether the deck made up a category). A built-in dataset's
  training layouts are redraws of the task's scenes, none congruent to an evaluation layout; a published
  Rule2DRC folder has none, so its tasks take ``regime="evaluation"``.
- ``regime="evaluation"``: one submit per task for the life of the env, graded on the evaluation layouts,
  each in a fresh KLayout fork (nothing the deck computed on one layout is there on the next, so no verdict
  can depend on the order); the agent learns only whether it succeeded.

Which training layouts are drawn, and the order in which a deck meets its layouts, come from the grading
secret (``grading_secret``, else ``$CHIPGYM_GRADING_SEED``, else this machine's own:
:func:`chipgym.tasks.grading_seed.drc_grading_secret`; it is not saved with an episode): the evaluation order
from the secret alone, the training draw from the secret and the reset seed (the same seed and secret give the
same draw, and the agent cannot tell which layouts a seed draws).

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
- ``grading_secret``: the integer the grading draws come from (above); left out of saved episodes.
- ``evaluation_set``: ``"public"`` (the default: the suite's published evaluation layouts, for figures
  comparable with others') or ``"private"``: a suite's evaluation layouts drawn anew from the grading secret
  (:func:`chipgym.tasks.drc.suite.build_private`, built once per secret; ``chipgym drc build NAME
  --private``), which no agent can regenerate from chipgym's code (``docs/datasets.md``, "Private evaluation").
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

import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

import numpy as np
from gymnasium import spaces

from chipgym.engines.klayout import DrcPool, DrcResult
from chipgym.envs import drc_actions, drc_keywords
from chipgym.envs.base import SKELETON_INFO, StepOutcome, TextActionEnv, chosen, observation_text, text_space
from chipgym.envs.chat import REPLY_RULES, ChatProtocol
from chipgym.envs.drc_actions import Action, ActionError
from chipgym.envs.registry import SmokeEpisode
from chipgym.results import Status
from chipgym.scoring.drc import (
    Grade,
    Metric,
    check_metric,
    compare,
    evaluation_order,
    graded_cases,
    precheck,
    training_draw,
)
from chipgym.tasks.drc.layout_text import layout_to_text, summary_gds, summary_to_text
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.rule2drc import write_rule2drc
from chipgym.tasks.drc.rule_text import layers_text, rule_text
from chipgym.tasks.drc.suite.layouts import Scene, rect, scene_gds
from chipgym.tasks.drc.task import DrcTask, DrcTaskView, Testcase
from chipgym.tasks.grading_seed import drc_grading_secret

DOCS_PATH = Path(__file__).with_name("klayout_drc_reference.md")
Regime = Literal["training", "evaluation"]
MAX_TEST_SHAPES = 20_000  # polygons of one test layout (or public example), once flattened


@dataclass(frozen=True)
class _AgentTest:
    """A test layout the agent added: run as it is; shown and drawn from what the sandbox read of it."""

    case: Testcase
    text: str
    drawing: bytes  # a flat GDS this process wrote itself


@dataclass(frozen=True)
class _Examples:
    """A task's public examples as the sandbox read them: their text and flat drawings."""

    text: str
    drawings: tuple[bytes, ...]


SMOKE_LAYER = (68, 20)  # met1
SMOKE_GOLD = 'source($input)\nreport("m1", $output)\ninput(68, 20).width(0.14).output("m1.1", "met1 below 0.14 um")\n'


def _met1_width_task() -> DrcTask:
    """The smoke episodes' task: met1 at least 0.14 um wide, on a wire of each width beside a wide one; the
    training wires are 3 um long where the others are 2 um, so none is congruent to an evaluation layout."""

    def case(name: str, width: int, length: int = 2000) -> Testcase:
        scene = Scene(name, rect("met1", 0, 0, width, length) + rect("met1", 1000, 0, 1500, length))
        return Testcase(name, scene_gds(scene, {"met1": SMOKE_LAYER}), {"m1.1": int(width < 140)})

    training = (90, 120, 135, 139, 140, 141, 150, 200, 250, 350, 400, 500)
    return DrcTask(id="met1-width", title="Metal 1 minimum width", description="Metal 1 (met1) must be at least "
                   "0.14 um wide.", layers={"met1": SMOKE_LAYER}, rules=(("Metal 1 must be at least 0.14 um wide.",
                   "m1.1"),), categories=("m1.1",), gold_deck=SMOKE_GOLD, group="sky130",
                   public_examples=(case("narrow", 100), case("wide", 140)),
                   hidden_testcases=(case("at", 140), case("under", 139)),
                   training_testcases=tuple(case(f"train{i}", width, 3000) for i, width in enumerate(training)))


@dataclass
class _Episode:
    task: DrcTask
    script: str
    tests: list[_AgentTest] = field(default_factory=list)
    last_layout: bytes | Path | None = None
    last_markers: dict = field(default_factory=dict)
    draw: int = 0  # training: which of the grading secret's draws of training layouts this episode grades on


class DrcScriptEnv(TextActionEnv):
    """Write a KLayout DRC deck that agrees with a hidden gold deck on hidden layouts (see the module doc)."""

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 1}
    env_id = "chipgym/DrcScript-v0"
    max_action = drc_actions.MAX_ACTION
    default_max_steps = 30
    secret_kwargs = ("grading_secret",)
    chat = ChatProtocol(
        "You write KLayout DRC decks (KLayout's Ruby DSL) that flag every violation of a design rule. Read the "
        "rule, write a deck, test it on the public examples (run) and on layouts of your own (add_test), then "
        "submit; a submit is graded on hidden layouts and ends the episode.\n" + REPLY_RULES,
        kept=("rule", "layers"), cuttable=("docs", "examples"), state=("feedback", "script", "tests"),
        ops=drc_actions.OPS, code=("write", "script", ("ruby", "rb", "drc", "lydrc", "klayout")))
    scripted_plan = staticmethod(drc_keywords.keyword_plan)
    info_keys = {
        **SKELETON_INFO,
        "task": "the task's id", "group": "the task's group (sky130, synthetic, syntax, rule2drc)",
        "run": "a run's figures: layouts_matched (None without public examples) and errors (error class: count)",
        "grade": "a submit's grade: success, and in the training regime f1, layouts_matched, errors, "
                 "extra_categories",
        "status": "unavailable when the grading engine failed (never the deck's doing); absent otherwise",
        "reason": "why grading was unavailable",
    }

    @classmethod
    def smoke_episodes(cls, folder: Path) -> dict[str, SmokeEpisode]:
        """A one-rule Rule2DRC folder written under ``folder`` (met1 at least 0.14 um wide), and an episode on it:
        the gold deck, a test of the agent's, a run, a malformed action, a submit."""
        problems = write_rule2drc([_met1_width_task()], folder / "drc-smoke")
        narrow = drc_actions.add_test([drc_actions.box(SMOKE_LAYER, 0, 0, 0.1, 2)], {"m1.1": 1})
        actions = [drc_actions.write(SMOKE_GOLD), narrow, drc_actions.run(), "oops", drc_actions.submit()]
        return {"met1-width": SmokeEpisode({"tasks": str(problems), "split": "all"}, {}, actions)}

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
        grading_secret: int | None = None,
        evaluation_set: Literal["public", "private"] = "public",
        timings: bool = False,
        render_mode: str | None = None,
    ):
        if grade not in ("verdicts", "markers"):
            raise ValueError(f"grade: expected 'verdicts' or 'markers', got {grade!r}")
        if regime not in ("training", "evaluation"):
            raise ValueError(f"regime: expected 'training' or 'evaluation', got {regime!r}")
        if evaluation_set not in ("public", "private"):
            raise ValueError(f"evaluation_set: expected 'public' or 'private', got {evaluation_set!r}")
        check_metric(metric, markers=grade == "markers")
        super().__init__({"tasks": tasks, "split": split, "include_docs": include_docs, "grade": grade,
                          "metric": metric, "regime": regime, "max_steps": max_steps, "max_tests": max_tests,
                          "timeout": timeout, "grading_secret": grading_secret,
                          "evaluation_set": evaluation_set, "timings": timings,
                          "render_mode": render_mode},
                         max_steps, timings, render_mode)
        self._secret = drc_grading_secret(grading_secret)
        self.tasks = load_tasks(tasks, split, private_secret=self._secret if evaluation_set == "private" else None)
        if repeated := sorted(name for name, count in Counter(t.id for t in self.tasks).items() if count > 1):
            raise ValueError(f"tasks: more than one task is called {', '.join(repeated[:3])}: ids name tasks in "
                             "options, records and grading, so give tasks of two suites distinct ids")
        if regime == "training" and (untrained := [t.id for t in self.tasks if not t.training_testcases]):
            raise ValueError(
                f"regime='training': {len(untrained)} of the {len(self.tasks)} tasks have no training layouts "
                f"({', '.join(untrained[:3])}{', ...' if len(untrained) > 3 else ''}); a published Rule2DRC "
                "folder has one labelled set, which only regime='evaluation' grades")
        self.grade_mode = grade
        self.metric = metric
        self.regime = regime
        self.max_tests = max_tests
        self.docs = DOCS_PATH.read_text() if include_docs else None
        fields = {name: text_space() for name in ("rule", "layers", "examples", "script", "tests", "feedback")}
        if include_docs:
            fields["docs"] = text_space()
        self.observation_space = spaces.Dict(fields)
        # Three pools: the agent's decks on its own tests, the agent's decks on graded layouts, and the gold
        # deck (markers mode). No deck sees both the agent's tests and a graded layout, and the gold deck
        # never runs where an agent's deck has run.
        self._pool = DrcPool(workers=1, timeout=timeout)
        self._grader = DrcPool(workers=1, timeout=timeout)
        self._gold = DrcPool(workers=1, timeout=timeout) if grade == "markers" else None
        self._submitted: set[str] = set()  # evaluation: the tasks already graded
        self._examples: dict[str, _Examples] = {}
        self._episode: _Episode | None = None

    @classmethod
    def evaluation_episodes(cls, kwargs: Mapping[str, Any], names: Sequence[str] | None = None
                            ) -> list[tuple[str, dict[str, Any], str]]:
        """One episode per task of the suite or folder and split of ``kwargs`` (those of the private evaluation
        set with ``evaluation_set="private"``), named by task id and grouped by the task's group."""
        arguments = cls.arguments(kwargs)
        secret = drc_grading_secret(arguments["grading_secret"]) if arguments["evaluation_set"] == "private" else None
        tasks = load_tasks(arguments["tasks"], arguments["split"], private_secret=secret)
        return chosen([(task.id, {"task": task.id}, task.group) for task in tasks], names, "tasks")

    @staticmethod
    def succeeded(reward: float, terminated: bool) -> bool:
        """A submit that matched the gold deck on every graded layout (reward 1; a precheck's or a wrapper's
        partial credit is not a success)."""
        return terminated and reward == 1.0

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
        self._episode = _Episode(task, script, draw=int(self.np_random.integers(2**63)))
        self.feedback = f"New task {task.id}. Write a deck, then submit."
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
        if not cases:
            self.feedback = "Nothing to run on: this task has no public examples; add a test layout (add_test) first."
            return StepOutcome(info={"run": {"layouts_matched": None, "errors": {}}})
        results = self._pool.run(episode.script, [case.gds for case in cases])
        outcome = compare(cases, episode.task.categories, results)
        if outcome.unavailable:
            self.feedback = f"The run is unavailable (not the deck's fault): {outcome.unavailable}."
            return StepOutcome(info={"status": Status.UNAVAILABLE, "reason": outcome.unavailable})
        lines = [f"Ran the deck on {len(cases)} layouts: {outcome.layouts_matched:.0%} match the expected verdicts."]
        lines += [_result_line(case, result) for case, result in zip(cases, results)]
        self.feedback = "\n".join(lines)
        drawings = [test.drawing for test in episode.tests] or list(self._examples_of(episode.task).drawings)
        episode.last_layout = drawings[-1] if drawings else None
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
            precheck_failed = {"precheck": result.precheck} if result.precheck else {}  # the task's, not the deck's
            self.feedback = f"Submitted: {verdict}." + (f" The task itself fails its precheck: {result.precheck}."
                                                        if result.precheck else "")
            return StepOutcome(float(result.success), True, {"grade": {"success": result.success, **precheck_failed}})
        info = grade_info(result)
        error = f" Error classes on some training layouts: {', '.join(info['errors'])}." if info["errors"] else ""
        if info["extra_categories"]:
            error += " The deck output categories the task does not define."
        if result.precheck:
            error = f" The task itself fails its precheck: {result.precheck}."
        self.feedback = (
            f"Submitted: {verdict}. About {info['layouts_matched']:.0%} of {result.n_cases} training layouts "
            f"matched, mean F1 about {info['f1']:.2f}.{error}"
        )
        return StepOutcome(float(result.success), True, {"grade": info})

    # -- grading ----------------------------------------------------------------------------------------------
    def _grade(self, episode: _Episode) -> Grade:
        """The deck's grade on a draw of the training layouts (training) or on the evaluation layouts (evaluation),
        in an order drawn from the grading secret."""
        task = episode.task
        if (failed := precheck(task, self.metric)) is not None:
            return failed
        if self.regime == "training":
            cases = training_draw(task, self._secret, episode.draw)
        else:
            cases = evaluation_order(task, graded_cases(task, self.metric), self._secret)
        # evaluation: each layout in a fresh fork, so that no verdict depends on the layouts met before it
        results = self._grader.run(episode.script, [case.gds for case in cases], isolated=self.regime == "evaluation")
        gold = self._gold.run(task.gold_deck, [case.gds for case in cases]) if self._gold is not None else None
        return compare(cases, task.categories, results, gold, self.metric)

    # -- observations ---------------------------------------------------------------------------------------
    def _observation(self) -> dict[str, str]:
        episode = self._episode
        task = episode.task
        obs = {
            "rule": rule_text(task),
            "layers": layers_text(task),
            "examples": self._examples_of(task).text,
            "script": episode.script,
            "tests": "\n\n".join(
                f"{test.case.name} (expected {_verdicts(test.case.labels)}):\n{test.text}" for test in episode.tests
            ),
            "feedback": self.feedback,
        }
        if self.docs is not None:
            obs["docs"] = self.docs
        return {name: observation_text(text) for name, text in obs.items()}

    def _examples_of(self, task: DrcTask) -> _Examples:
        """The public examples as text and drawings: a built dataset's read here, any other's in the sandbox
        (a folder's layout is never parsed in this process)."""
        if task.id in self._examples:
            return self._examples[task.id]
        if task.built:
            drawings = tuple(case.gds_bytes() for case in task.public_examples)
            self._examples[task.id] = _Examples(examples_text(task), drawings)
        else:
            summaries = self._pool.summarise([case.gds for case in task.public_examples], MAX_TEST_SHAPES)
            texts = [summary_to_text(s, task.layers) if s.ok else f"(unreadable: {s.error})" for s in summaries]
            self._examples[task.id] = _Examples(examples_text(task, texts),
                                                tuple(summary_gds(s) for s in summaries if s.ok))
        return self._examples[task.id]

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

            drawings = self._examples_of(episode.task).drawings
            layout = episode.last_layout or (drawings[0] if drawings else None)
            if layout is None:
                return np.full((480, 640, 3), 255, dtype=np.uint8)
            return render_layout(layout, episode.last_markers)
        return None

    def close(self):
        for pool in (getattr(self, "_pool", None), getattr(self, "_grader", None), getattr(self, "_gold", None)):
            if pool is not None:
                pool.close()
        super().close()


def examples_text(task: DrcTaskView, layout_texts: Sequence[str] | None = None) -> str:
    """The ``examples`` observation of a task: each public layout as text (``layout_texts``, else read here from
    trusted bytes), with its verdicts."""
    texts = layout_texts if layout_texts is not None else [layout_to_text(c.gds, task.layers)
                                                           for c in task.public_examples]
    return "\n\n".join(f"example {i + 1} (expected {_verdicts(case.labels)}):\n{text}"
                       for i, (case, text) in enumerate(zip(task.public_examples, texts, strict=True)))


def grade_info(result: Grade) -> dict[str, Any]:
    """What a training submit tells: whether it succeeded, and coarse partial credit. Every figure the deck
    can move is coarsened to what learning needs, so that one submit carries a bounded number of bits about
    the layouts it was graded on (``docs/datasets.md``): the fractions (layouts matched, ran on, F1 overall and
    per category) in eighths, which error classes occurred (not how often), whether the deck made up a category
    (not how many). Nothing its deck printed or named gets in."""
    return {
        "success": result.success,
        "errors": sorted(result.error_counts),
        "layouts_matched": eighths(result.layouts_matched),
        "f1": eighths(result.f1),
        "category_f1": {name: eighths(score.f1) for name, score in result.categories.items()},
        "compile_rate": eighths(result.compile_rate),
        "extra_categories": result.extra_categories > 0,
        "precheck": result.precheck,
    }


def eighths(fraction: float) -> float:
    """``fraction`` rounded down to eighths (1.0 only when it is 1.0).

    >>> eighths(0.99), eighths(1.0), eighths(0.0)
    (0.875, 1.0, 0.0)
    """
    return math.floor(fraction * 8) / 8


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
