"""Candidate decks for Best-of-N selection: N samples of an LLM, or offline ones that err the way models do.

A :class:`CandidateGenerator` turns a task's public view into N decks. :class:`OfflineCandidates` never sees the
gold deck: each candidate is the heuristic policy's deck (:class:`~chipgym.baselines.drc_policies.HeuristicPolicy`,
which reads the rule text), the same deck with one or two of a model's typical errors (an off-by-one
threshold, a wrong operation, swapped layers, a wrong metric, a threshold without its unit), or a sample of
the template action space (:mod:`chipgym.wrappers.drc_template`). :class:`LlmCandidates` asks an
OpenAI-compatible endpoint N times and reads the deck from each reply.

>>> from chipgym.tasks.drc.task import DrcTaskView
>>> task = DrcTaskView(id="t", title="width", description="", layers={"met1": (68, 20)},
...                    rules=(("met1 must be at least 0.14 um wide.", "m1"),), categories=("m1",),
...                    public_examples=(), group="sky130")
>>> [c.origin for c in OfflineCandidates().generate(task, 4, seed=0)]
['heuristic', 'heuristic + wrong metric', 'heuristic + wrong metric', 'heuristic + off-by-one threshold']
>>> print(heuristic_deck(task).splitlines()[-1])
l0.width(0.14, euclidian).output('m1', 'm1')
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np

from chipgym.baselines.drc_policies import HeuristicPolicy, RandomPolicy
from chipgym.baselines.llm import LlmConfig
from chipgym.baselines.selection.prompt import ask, deck_from_reply, task_rng, task_text
from chipgym.tasks.drc.rule_text import rule_text
from chipgym.tasks.drc.task import DrcTaskView
from chipgym.wrappers.drc_template import (
    CHECK_NAMES,
    MAX_LAYERS,
    SLOT_FIELDS,
    SLOTS,
    Template,
    action_mask,
    compile_deck,
    ruby_string,
)


@dataclass(frozen=True)
class Candidate:
    deck: str
    origin: str  # how it was made: "heuristic + swapped layers", "template sample", "llm sample 3", ...


class CandidateGenerator(Protocol):
    def generate(self, task: DrcTaskView, n: int, seed: int) -> list[Candidate]:
        """``n`` candidate decks for ``task``, the same for the same seed."""


def template_of(task: DrcTaskView) -> Template:
    return Template(dict(task.layers), tuple(task.categories), rule_text(task))


def policy_inputs(task: DrcTaskView) -> tuple[dict, dict]:
    """The observation (its action mask) and the reset ``info`` DrcTemplate-v0 gives a policy for ``task``."""
    template = template_of(task)
    info = {"rule": template.rule, "categories": list(task.categories),
            "layer_names": list(task.layers)[:MAX_LAYERS], "numbers": template.numbers}
    return {"action_mask": action_mask(template)}, info


def heuristic_action(task: DrcTaskView) -> np.ndarray:
    return HeuristicPolicy()(*policy_inputs(task))


def heuristic_deck(task: DrcTaskView) -> str:
    """The heuristic policy's deck for ``task``."""
    return compile_deck(template_of(task), heuristic_action(task))


# checks a model confuses with one another
_CONFUSED = (("width", "space", "notch", "isolated"), ("separation", "enclosing", "enclosed", "overlap", "extension"),
             ("inside", "not_inside", "outside", "not_outside"),
             ("interacting", "not_interacting", "overlapping", "not_overlapping", "covering"),
             ("area", "perimeter", "holes", "square_size"))
_LITERAL = re.compile(r"(?<![\w.])(\d+)\.(\d+)(?![\w.])")


class OfflineCandidates:
    """Candidates drawn from the rule text alone (see the module doc): with probability ``as_is`` the
    heuristic deck, with ``sampled`` a template sample, else the heuristic deck with one error (two with
    probability ``two_errors``)."""

    ERRORS = ("off-by-one threshold", "wrong operation", "swapped layers", "wrong metric", "missing units")

    def __init__(self, as_is: float = 0.35, sampled: float = 0.15, two_errors: float = 0.3):
        self.as_is, self.sampled, self.two_errors = as_is, sampled, two_errors

    def generate(self, task: DrcTaskView, n: int, seed: int) -> list[Candidate]:
        rng = task_rng(seed, task.id, "candidates")
        template = template_of(task)
        observation, _ = policy_inputs(task)
        base = heuristic_action(task)
        candidates = []
        for _ in range(n):
            draw = rng.random()
            if draw < self.as_is:
                candidates.append(Candidate(compile_deck(template, base), "heuristic"))
            elif draw < self.as_is + self.sampled:
                action = RandomPolicy(int(rng.integers(2**32)))(observation)
                candidates.append(Candidate(compile_deck(template, action), "template sample"))
            else:
                count = 2 if rng.random() < self.two_errors else 1
                errors = [self.ERRORS[i] for i in rng.choice(len(self.ERRORS), count, replace=False)]
                candidates.append(Candidate(self._with_errors(task, base, errors, rng), " + ".join(["heuristic",
                                                                                                      *errors])))
        return candidates

    def _with_errors(self, task: DrcTaskView, base: np.ndarray, errors: Sequence[str], rng) -> str:
        action = base.copy()
        slot = int(rng.integers(min(len(task.categories), SLOTS)))
        field = {name: slot * len(SLOT_FIELDS) + i for i, name in enumerate(SLOT_FIELDS)}
        if "wrong operation" in errors:
            check = CHECK_NAMES[action[field["check"]]]
            group = next((g for g in _CONFUSED if check in g), CHECK_NAMES[1:])
            action[field["check"]] = CHECK_NAMES.index(rng.choice([c for c in group if c != check]))
        if "swapped layers" in errors:
            action[field["primary"]], action[field["secondary"]] = action[field["secondary"]], action[field["primary"]]
        if "wrong metric" in errors:
            action[field["metric"]] = (action[field["metric"]] + 1 + int(rng.integers(2))) % 3
        deck = compile_deck(template_of(task), action)
        for error in ("off-by-one threshold", "missing units"):
            if error in errors:
                deck = _rewrite_threshold(deck, task.categories[slot], error, rng)
        return deck


def _rewrite_threshold(deck: str, category: str, error: str, rng) -> str:
    """The deck with the threshold of ``category``'s line off by one in its last digit, or without its unit:
    an integer the DSL reads as database units (0.14 -> 14, i.e. 0.014 um) or um where nm were meant."""
    lines = deck.splitlines()
    for i, line in enumerate(lines):
        if not line.endswith(f".output({ruby_string(category)}, {ruby_string(category)})"):
            continue
        match = _LITERAL.search(line)
        if match is None:
            return deck
        whole, decimals = match.groups()
        if error == "off-by-one threshold":
            step = int(rng.choice([-1, 1]))
            units = max(int(whole + decimals) + step, 1)
            text = f"{units / 10 ** len(decimals):.{len(decimals)}f}"
        else:
            value = float(match.group(0))
            text = str(int(whole + decimals)) if rng.random() < 0.5 else f"{value * 1000:.1f}"
        lines[i] = line[:match.start()] + text + line[match.end():]
        return "\n".join(lines) + "\n"
    return deck


SYSTEM = ("You write KLayout DRC decks (KLayout's Ruby DSL) that flag every violation of a design rule. Read the "
          "rule, the layers and the examples, and reply with the whole deck in one fenced ```ruby block. The deck "
          "reads the layout with source($input), writes its report with report(TITLE, $output), and outputs one "
          "category per rule under the category's name.")


class LlmCandidates:
    """N samples of the model of ``config`` (sample i with seed ``seed * 1000 + i``); a reply without a deck
    is a candidate with an empty deck, which fails like any broken deck."""

    def __init__(self, config: LlmConfig):
        self.config = config

    def generate(self, task: DrcTaskView, n: int, seed: int) -> list[Candidate]:
        candidates = []
        for i in range(n):
            deck = deck_from_reply(ask(dataclasses.replace(self.config, seed=seed * 1000 + i), SYSTEM, task_text(task)))
            candidates.append(Candidate(deck or "", f"llm sample {i}" + ("" if deck else " (no deck in the reply)")))
        return candidates
