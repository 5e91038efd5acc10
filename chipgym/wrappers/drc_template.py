"""``chipgym/DrcTemplate-v0``: a DRC deck chosen from a template as a ``MultiDiscrete`` action, in one step.

The action has :data:`SLOTS` slots of :data:`SLOT_FIELDS` each. Slot ``i`` writes the task's ``i``-th output
category (a fixed slot-to-category mapping: the grader scores each category on its own, so letting a
policy pick the category would only add ways to write one category twice and leave another empty):

- ``check``: one of :data:`CHECKS` (``off`` writes nothing);
- ``primary``, ``secondary``: the layers, indices into the task's layers in their listed order;
- ``number``: the threshold, an index into the lengths and areas of the rule text (:func:`rule_numbers`);
- ``metric``: euclidian, projection or square (for the distance checks);
- ``region``, ``region_layer``: the primary layer whole, or only its shapes inside / outside another layer.

One step writes the compiled deck (:func:`compile_deck`), runs it on the public examples (a task without
any, as every published Rule2DRC problem, skips the run and ``info`` has no ``run``), submits it, and
returns the submit's reward (0 or 1) with ``terminated=True``; ``info`` keeps the env's ``grade`` and
``run`` and adds ``deck``; ``info`` of reset and step has the task's text for policies that read it:
``rule`` and ``layers`` (the env's text observations), ``categories``, ``layer_names`` and ``numbers``
(the values a slot's ``number`` indexes).

The observation is a Dict of ``observations`` (:class:`~chipgym.wrappers.TextFeatures` of the rule and the
layers) and ``action_mask`` (one 0/1 vector per action dimension, concatenated, 1 = allowed;
:meth:`DrcTemplateActions.mask`). Every action compiles to a defined deck, masked or not: a value is
rounded down and clipped into its dimension (any real number, ``10**400`` too: :func:`clipped_action`); a
layer index beyond the task's layers is its last layer; a number index beyond the rule's numbers is its last
number, and a threshold check on a rule with no numbers writes nothing; slots beyond the task's categories
write nothing. An action of another shape than ``(len(NVEC),)``, or with a value that is not a finite real
number, is refused (``info["action_error"]``, reward 0, the episode ends).

>>> import gymnasium, chipgym
>>> from chipgym.tasks.drc.suite import build_suite
>>> env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=build_suite(ids=["sky130-0000"]))  # or tasks="drc-v0"
>>> obs, info = env.reset(seed=0)
>>> sorted(obs), info["rule"].splitlines()[2], info["numbers"]
(['action_mask', 'observations'], 'diff shapes must be at least 0.15 um wide.', [0.15])
>>> width = np.zeros(len(NVEC), np.int64)
>>> width[SLOT_FIELDS.index("check")] = CHECK_NAMES.index("width")   # slot 0: width of layer 0, number 0
>>> env.step(width)[1:3]
(1.0, True)
>>> env.close()
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from chipgym.envs import drc_actions
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.envs.registry import SmokeEpisode
from chipgym.tasks.drc.rule_text import named_layers, rule_numbers
from chipgym.wrappers.text_features import TextFeatures

SLOTS = 3
"""Output categories one action can write (drc-v0's tasks have at most 3)."""
MAX_LAYERS = 16
"""Layers a task may list (drc-v0's SKY130 tasks list 16); later ones cannot be chosen."""
MAX_NUMBERS = 6
"""Lengths and areas of a rule text a threshold may be (drc-v0's rules have at most 4)."""
METRICS = ("euclidian", "projection", "square")
REGIONS = ("all", "inside", "outside")
SLOT_FIELDS = ("check", "primary", "secondary", "number", "metric", "region", "region_layer")


@dataclass(frozen=True)
class Check:
    """One check of the template: ``expression(a, b, t, m)`` is a DSL expression of layers ``a`` and ``b``,
    threshold ``t`` (um or um2, as a float literal) and metric ``m``."""

    name: str
    layers: int  # 1 or 2
    threshold: bool
    expression: Callable[[str, str, str, str], str]


CHECKS: tuple[Check, ...] = (
    Check("off", 1, False, lambda a, b, t, m: ""),
    Check("width", 1, True, lambda a, b, t, m: f"{a}.width({t}, {m})"),
    Check("space", 1, True, lambda a, b, t, m: f"{a}.space({t}, {m})"),
    Check("notch", 1, True, lambda a, b, t, m: f"{a}.notch({t}, {m})"),
    Check("isolated", 1, True, lambda a, b, t, m: f"{a}.isolated({t}, {m})"),
    Check("separation", 2, True, lambda a, b, t, m: f"{a}.separation({b}, {t}, {m})"),
    Check("enclosing", 2, True, lambda a, b, t, m: f"{a}.enclosing({b}, {t}, {m})"),
    Check("enclosed", 2, True, lambda a, b, t, m: f"{a}.enclosed({b}, {t}, {m})"),
    Check("overlap", 2, True, lambda a, b, t, m: f"{a}.overlap({b}, {t}, {m})"),
    Check("extension", 2, True,
          lambda a, b, t, m: f"{a}.edges.enclosing({a}.and({b}).edges.not({a}.edges), {t}, projection)"),
    Check("area", 1, True, lambda a, b, t, m: f"{a}.with_area(nil, {t})"),
    Check("holes", 1, True, lambda a, b, t, m: f"{a}.holes.with_area(nil, {t})"),
    Check("perimeter", 1, True, lambda a, b, t, m: f"{a}.with_perimeter(nil, {t})"),
    Check("square_size", 1, True, lambda a, b, t, m: f"{a}.non_squares.or({a}.squares.without_bbox_width({t}))"),
    Check("short_edges", 1, True, lambda a, b, t, m: f"{a}.edges.with_length(nil, {t})"),
    Check("not_inside", 2, False, lambda a, b, t, m: f"{a}.not_inside({b})"),
    Check("inside", 2, False, lambda a, b, t, m: f"{a}.inside({b})"),
    Check("outside", 2, False, lambda a, b, t, m: f"{a}.outside({b})"),
    Check("not_outside", 2, False, lambda a, b, t, m: f"{a}.not_outside({b})"),
    Check("interacting", 2, False, lambda a, b, t, m: f"{a}.interacting({b})"),
    Check("not_interacting", 2, False, lambda a, b, t, m: f"{a}.not_interacting({b})"),
    Check("overlapping", 2, False, lambda a, b, t, m: f"{a}.overlapping({b})"),
    Check("not_overlapping", 2, False, lambda a, b, t, m: f"{a}.not_overlapping({b})"),
    Check("covering", 2, False, lambda a, b, t, m: f"{a}.covering({b})"),
    Check("not_covering", 2, False, lambda a, b, t, m: f"{a}.not_covering({b})"),
    Check("and", 2, False, lambda a, b, t, m: f"{a}.and({b})"),
    Check("not", 2, False, lambda a, b, t, m: f"{a}.not({b})"),
    Check("xor", 2, False, lambda a, b, t, m: f"{a}.xor({b})"),
    Check("odd_polygons", 1, False, lambda a, b, t, m: f"{a}.odd_polygons"),
    Check("non_rectangles", 1, False, lambda a, b, t, m: f"{a}.non_rectangles"),
    Check("non_squares", 1, False, lambda a, b, t, m: f"{a}.non_squares"),
    Check("non_rectilinear", 1, False, lambda a, b, t, m: f"{a}.non_rectilinear"),
)
CHECK_NAMES = tuple(check.name for check in CHECKS)
SLOT_NVEC = (len(CHECKS), MAX_LAYERS, MAX_LAYERS, MAX_NUMBERS, len(METRICS), len(REGIONS), MAX_LAYERS)
NVEC = SLOT_NVEC * SLOTS

@dataclass(frozen=True)
class Template:
    """What an action is compiled against: the task's layers (name: (layer, datatype)), its categories in
    order, and its rule text."""

    layers: Mapping[str, tuple[int, int]]
    categories: Sequence[str]
    rule: str

    @property
    def numbers(self) -> list[float]:
        return rule_numbers(self.rule)[:MAX_NUMBERS]

    def mentioned_layers(self) -> list[int]:
        """Indices of the layers the rule text names (all of them when it names none)."""
        names = list(self.layers)[:MAX_LAYERS]
        return sorted(named_layers(self.rule, names)) or list(range(len(names)))


def slot_values(action: np.ndarray, slot: int) -> dict[str, int]:
    """The named values of one slot of a (clipped) action."""
    start = slot * len(SLOT_FIELDS)
    return dict(zip(SLOT_FIELDS, (int(v) for v in action[start:start + len(SLOT_FIELDS)])))


def slot_expression(template: Template, values: Mapping[str, int]) -> tuple[str, set[int]] | None:
    """The DSL expression of one slot's in-range values (layers ``l0``, ``l1``, ... by index) and the layer
    indices it reads, or None when it writes nothing (see the module doc for how masked choices compile)."""
    n_layers, numbers = min(len(template.layers), MAX_LAYERS), template.numbers
    check = CHECKS[values["check"]]
    if check.name == "off" or (check.threshold and not numbers) or not n_layers:
        return None
    a, b, c = (min(values[f], n_layers - 1) for f in ("primary", "secondary", "region_layer"))
    threshold = _float_literal(numbers[min(values["number"], len(numbers) - 1)]) if numbers else ""
    region = REGIONS[values["region"]]
    primary = f"l{a}" if region == "all" else f"l{a}.{region}(l{c})"
    used = {a} | ({b} if check.layers == 2 else set()) | ({c} if region != "all" else set())
    return check.expression(primary, f"l{b}", threshold, METRICS[values["metric"]]), used


def deck(template: Template, outputs: Sequence[tuple[str, str, set[int]]], title: str = "template") -> str:
    """A deck reading the layers ``outputs`` use and writing each (category, expression, layers) of them."""
    names = list(template.layers)
    used = sorted(set().union(*(layers for _, _, layers in outputs)))
    lines = ["source($input)", f"report({ruby_string(title)}, $output)"]
    lines += [f"l{i} = input({template.layers[names[i]][0]}, {template.layers[names[i]][1]})" for i in used]
    lines += [f"{expression}.output({ruby_string(category)}, {ruby_string(category)})"
              for category, expression, _ in outputs]
    return "\n".join(lines) + "\n"


def compile_deck(template: Template, action: np.ndarray) -> str:
    """The KLayout deck of an in-range action: slot ``i`` writes the task's ``i``-th category."""
    outputs = []
    for slot, category in enumerate(list(template.categories)[:SLOTS]):
        if (compiled := slot_expression(template, slot_values(action, slot))) is not None:
            outputs.append((category, *compiled))
    return deck(template, outputs)


def action_mask(template: Template, layers_from_text: bool = True) -> np.ndarray:
    """The 0/1 mask of a task's actions, one vector per dimension concatenated (see :meth:`DrcTemplateActions.mask`)."""
    n_layers = min(len(template.layers), MAX_LAYERS)
    n_numbers = len(template.numbers)
    layers = template.mentioned_layers() if layers_from_text else list(range(n_layers))
    checks = [i for i, c in enumerate(CHECKS)
              if (not c.threshold or n_numbers) and (c.layers == 1 or n_layers > 1)]
    allowed = {
        "check": checks,
        "primary": layers,
        "secondary": layers if n_layers > 1 else [0],
        "number": list(range(max(n_numbers, 1))),
        "metric": list(range(len(METRICS))),
        "region": list(range(len(REGIONS))) if n_layers > 1 else [0],
        "region_layer": layers,
    }
    vectors = []
    for slot in range(SLOTS):
        active = slot < len(template.categories)
        for name, size in zip(SLOT_FIELDS, SLOT_NVEC):
            vector = np.zeros(size, np.float32)
            vector[allowed[name] if active else [0]] = 1.0
            vectors.append(vector)
    return np.concatenate(vectors)


class DrcTemplateActions(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """``chipgym/DrcScript-v0`` with a :data:`NVEC` ``MultiDiscrete`` action compiled into a deck and submitted
    in one step, and a Dict observation of text features and an action mask (see the module doc).

    Args:
        env: a DrcScript env (``env.unwrapped`` a :class:`~chipgym.envs.drc_script.DrcScriptEnv`).
        features_dim: TextFeatures per field (rule, layers).
        layers_from_text: the mask allows only layers named in the rule text (all the task's layers when it
            names none); other layers of the task still compile as chosen.
    """

    def __init__(self, env: gymnasium.Env, features_dim: int = 256, layers_from_text: bool = True):
        gymnasium.utils.RecordConstructorArgs.__init__(self, features_dim=features_dim,
                                                       layers_from_text=layers_from_text)
        gymnasium.Wrapper.__init__(self, env)
        self.features = TextFeatures(env, fields=("rule", "layers"), dim=features_dim)
        self.layers_from_text = layers_from_text
        self.action_space = spaces.MultiDiscrete(np.array(NVEC, dtype=np.int64))
        self.observation_space = spaces.Dict({
            "observations": self.features.observation_space,
            "action_mask": spaces.Box(0.0, 1.0, (int(sum(NVEC)),), np.float32),
        })
        self._template: Template | None = None
        self._has_examples = False  # the task has public examples to run the deck on
        self._texts: dict[str, str] = {}
        self._task_keys: dict[str, str] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        texts, info = self.env.reset(seed=seed, options=options)
        task = next(t for t in self.env.unwrapped.tasks if t.id == info["task"]).agent_view()
        self._template = Template(dict(task.layers), tuple(task.categories), texts["rule"])
        self._has_examples = bool(task.public_examples)
        self._texts = texts
        self._task_keys = {key: info[key] for key in ("task", "group") if key in info}
        return self._observation(), {**info, **self._task_info()}

    def mask(self) -> np.ndarray:
        """The current task's mask: check ``off`` only for slots beyond its categories; no threshold check when
        the rule has no lengths or areas; no two-layer check, region or other secondary layer for a one-layer
        task; layers among the task's (named in the rule text, with ``layers_from_text``); numbers among the
        rule's."""
        return action_mask(self._template, self.layers_from_text)

    def step(self, action: Any):
        if self._template is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        try:
            values = clipped_action(action)
        except ValueError as error:
            return self._observation(), 0.0, True, False, {**self._task_info(), "action_error": str(error)}
        deck = compile_deck(self._template, values)
        _, _, _, _, written = self.env.step(drc_actions.write(deck))
        ran = self.env.step(drc_actions.run())[4] if self._has_examples else {}
        texts, reward, terminated, truncated, info = self.env.step(drc_actions.submit())
        self._texts = texts
        extra = {key: value for key, value in (("run", ran.get("run")), ("write_error", written.get("action_error")))
                 if value is not None}
        return self._observation(), float(reward), True, False, {**info, **extra, **self._task_info(), "deck": deck}

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observations": self.features.observation(self._texts), "action_mask": self.mask()}

    def _task_info(self) -> dict[str, Any]:
        template = self._template
        return {**self._task_keys, "rule": template.rule, "layers": self._texts.get("layers", ""),
                "categories": list(template.categories), "layer_names": list(template.layers)[:MAX_LAYERS],
                "numbers": template.numbers}


def clipped_action(action: Any) -> np.ndarray:
    """An action as in-range integers, one per dimension of :data:`NVEC`; ValueError names what is wrong.

    Any real number is accepted for a value (a Python int of any size, a float, a numpy scalar, a bool): it is
    rounded down and clipped into its dimension. Anything else is refused: a shape other than
    ``(len(NVEC),)``, a value that is not a real number (a string, a complex number, None) or not finite.

    >>> clipped_action([10**400, -3, 2.9] + [0] * (len(NVEC) - 3))[:3].tolist()
    [31, 0, 2]
    >>> clipped_action([float("nan")] * len(NVEC))
    Traceback (most recent call last):
    ...
    ValueError: action[0]: nan is not a finite number
    """
    expected = f"action: expected shape ({len(NVEC)},)"
    try:
        values = np.asarray(action)
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise ValueError(f"{expected}, got a {type(action).__name__} that is not an array") from None
    if values.shape != (len(NVEC),):
        raise ValueError(f"{expected}, got {type(action).__name__} of shape {values.shape}")
    return np.array([dimension_value(value, size, f"action[{i}]")
                     for i, (value, size) in enumerate(zip(values.tolist(), NVEC))], np.int64)


def dimension_value(value: Any, size: int, name: str = "value") -> int:
    """A real number rounded down and clipped into ``range(size)``, exactly for numbers of any size; ValueError
    for anything that is not a finite real number.

    >>> dimension_value(10**400, 16), dimension_value(-1e308, 16), dimension_value(3.7, 16), dimension_value(True, 16)
    (15, 0, 3, 1)
    """
    if not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected an integer, got {type(value).__name__}")
    if value != value or abs(value) == math.inf:
        raise ValueError(f"{name}: {value} is not a finite number")
    if value <= 0:
        return 0
    return size - 1 if value >= size - 1 else math.floor(value)


class DrcTemplateEnv(DrcTemplateActions):
    """The env of ``chipgym/DrcTemplate-v0``: kwargs go to DrcScript-v0 (``tasks``, ``split``, ``regime``, ...)."""

    metadata = DrcScriptEnv.metadata  # what gymnasium.make reads from the class, before there is an inner env
    info_keys = {
        **DrcScriptEnv.info_keys,
        "write_error": "why DrcScript refused the compiled deck", "deck": "the deck the action compiled to",
        "rule": "the rule text", "layers": "the layers text", "categories": "the task's output categories",
        "layer_names": "the layers the slots index", "numbers": "the lengths and areas the slots index",
    }

    def __init__(self, features_dim: int = 256, layers_from_text: bool = True, **kwargs: Any):
        super().__init__(DrcScriptEnv(**kwargs), features_dim, layers_from_text)

    @classmethod
    def smoke_episodes(cls, folder: Path) -> dict[str, SmokeEpisode]:
        """DrcScript-v0's one-rule task in one step: met1 width at least the rule's first number."""
        width = np.array([CHECK_NAMES.index("width")] + [0] * (len(NVEC) - 1))
        return {name: SmokeEpisode(episode.kwargs, episode.options, [width])
                for name, episode in DrcScriptEnv.smoke_episodes(folder).items()}


def _float_literal(value: float) -> str:
    """A float the DSL reads as um (an integer literal would be database units)."""
    text = f"{value:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def ruby_string(text: str) -> str:
    """A single-quoted Ruby literal: no interpolation."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
