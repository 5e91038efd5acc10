"""Baseline policies for ``chipgym/DrcTemplate-v0``: random over the action mask, and a heuristic that reads the rule.

Both are called as ``policy(observation, info) -> action`` with the reset's observation and ``info`` (the
heuristic reads ``info["rule"]``, ``info["categories"]``, ``info["layer_names"]`` and ``info["numbers"]``,
which the env gives at every reset).

>>> import gymnasium, chipgym
>>> from chipgym.tasks.drc.suite import build_suite
>>> env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=build_suite(ids=["sky130-0004"]))
>>> obs, info = env.reset(seed=0)
>>> info["rule"].splitlines()[2]
'Enclosure of diff by nwell below 0.18 um is a violation.'
>>> env.step(HeuristicPolicy()(obs, info))[1]        # nwell (the layer after "by") encloses diff by 0.18 um
1.0
>>> bool(np.all(RandomPolicy(seed=0)(obs, info) < env.action_space.nvec))
True
>>> env.close()
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from chipgym.tasks.drc.rule_text import named_layers, rule_numbers, rules_in
from chipgym.wrappers.drc_template import CHECK_NAMES, NVEC, SLOT_FIELDS, SLOTS

_OFFSETS = np.concatenate([[0], np.cumsum(NVEC)[:-1]])


def allowed_values(mask: np.ndarray) -> list[np.ndarray]:
    """Per action dimension, the values the mask allows (never empty: a dimension with none allows 0)."""
    allowed = [np.flatnonzero(mask[start:start + size]) for start, size in zip(_OFFSETS, NVEC)]
    return [values if values.size else np.array([0]) for values in allowed]


class RandomPolicy:
    """Each dimension uniformly among the values the observation's ``action_mask`` allows."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> np.ndarray:
        return np.array([self.rng.choice(values) for values in allowed_values(observation["action_mask"])],
                        dtype=np.int64)


# (words any of which picks the check, the check, whether the sentence must state a length/area); first match
KEYWORDS: tuple[tuple[tuple[str, ...], str, bool], ...] = (
    (("hole",), "holes", True),
    (("perimeter",), "perimeter", True),
    (("area", "²", "um2"), "area", True),
    (("square", "min and max"), "square_size", True),
    (("notch", "same polygon", "single"), "notch", True),
    (("extend", "extension"), "extension", True),
    (("enclos",), "enclosing", True),
    (("overlap",), "overlap", True),
    (("inside", "covered", "outside of"), "not_inside", False),
    (("overlap", "touch", "interact"), "not_interacting", False),
    (("spac", "apart", "distance"), "space", True),
    (("isolat",), "isolated", True),
    (("wid", "narrow"), "width", True),
)


class HeuristicPolicy:
    """Per category: its sentence's keywords pick the check, the layers it names (in order) the primary and
    secondary layers, its first length or area the threshold ("parallel"/"facing" picks the projection
    metric; "outside"/"on field" checks only the primary's shapes outside the secondary). Enclosure checks
    the layer after "by" (or before "must enclose") as the outer one; spacing of two layers is separation.
    A value the mask forbids becomes the first one it allows."""

    def __call__(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> np.ndarray:
        action = np.zeros(len(NVEC), np.int64)
        for slot, category in enumerate(list(info["categories"])[:SLOTS]):
            sentence = next((text for name, text in rules_in(info["rule"]) if name == category), info["rule"])
            for field, value in self.slot(sentence, info["layer_names"], info["numbers"]).items():
                action[slot * len(SLOT_FIELDS) + SLOT_FIELDS.index(field)] = value
        allowed = allowed_values(observation["action_mask"])
        return np.array([value if value in ok else ok[0] for value, ok in zip(action, allowed)], dtype=np.int64)

    def slot(self, sentence: str, layer_names: list[str], numbers: list[float]) -> dict[str, int]:
        """The slot values for one rule sentence."""
        text = sentence.lower()
        stated = [numbers.index(v) for v in rule_numbers(sentence) if v in numbers]
        layers = named_layers(sentence, layer_names) or [0]
        check = next((name for words, name, number in KEYWORDS
                      if any(w in text for w in words) and (stated or not number)), "width")
        primary, secondary = layers[0], layers[1] if len(layers) > 1 else layers[0]
        values = {"check": CHECK_NAMES.index(check), "primary": primary, "secondary": secondary,
                  "number": stated[0] if stated else 0,
                  "metric": 1 if any(w in text for w in ("parallel", "facing", "projection")) else 0}
        if check == "enclosing":
            outer = _after(text, "by", layer_names) if " by " in text else None
            if outer is None and re.search(r"\b(must|shall)\s+enclose", text):
                outer = primary
            outer = secondary if outer is None else outer
            values.update(primary=outer, secondary=primary if outer != primary else secondary)
        if check == "space" and secondary != primary:
            values["check"] = CHECK_NAMES.index("separation")
            if "outside" in text or "on field" in text:
                values.update(region=2, region_layer=secondary)
        return values


def _after(text: str, word: str, layer_names: list[str]) -> int | None:
    """The index of the first layer named after ``word`` in ``text``."""
    found = named_layers(text[text.index(f" {word} ") + len(word) + 2:], layer_names)
    return found[0] if found else None
