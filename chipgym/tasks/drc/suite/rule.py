"""Building blocks of suite tasks: a :class:`Rule` (one output category) and a :class:`TaskDraft`.

A draft is a task before labelling: its gold deck and candidate scenes are known,
labels come later from running the deck (:mod:`chipgym.tasks.drc.suite.labelling`).

>>> r = Rule("m1_1", "Minimum width of met1 is 0.14 um.", 'met1.width(0.14).output("m1_1", "m1.1")',
...          ("met1",), {"m1_1": 0.14}, ())
>>> d = TaskDraft("sky130-0000", "m1.1", "sky130", "train", {"met1": (68, 20)}, (r,))
>>> print(d.deck())
# sky130-0000: m1.1
source($input)
report("m1.1", $output)
met1 = input(68, 20)
met1.width(0.14).output("m1_1", "m1.1")
<BLANKLINE>
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from chipgym.tasks.drc.suite.layouts import Scene


@dataclass(frozen=True)
class Enclosure:
    """What a rule's enclosure check encloses: ``inner`` must lie inside ``outer`` (deck expressions; their words
    in the text ``inner_words``, ``outer_words``). ``whole``: an inner shape wholly outside violates too (a via
    without its metal); otherwise one that overlaps ``outer`` in part does (a licon off a diff may be on poly).
    ``butting``: the layer whose butting edges the rule table exempts (a diff's edge on a tap), with ``drawn``,
    the layer the inner shape is drawn on. ``isolated_from``: the outer shape counts only where it touches no
    shape of this layer (an isolated tap: one that butts no diff)."""

    inner: str
    outer: str
    inner_words: str
    outer_words: str
    whole: bool = False
    butting: str | None = None
    drawn: str | None = None
    isolated_from: str | None = None


@dataclass(frozen=True)
class Spacing:
    """What a spacing rule measures, where the rule table exempts butting edges ("for non-abutting diff/tap
    edges"): from ``subject`` (a deck expression, drawn on ``subject_layer``) to ``to`` (its words ``to_words``),
    drawn on ``drawn`` with ``under`` beneath it (an implant), leaving out ``to``'s edges that butt ``butting``."""

    subject: str
    subject_layer: str
    to: str
    to_words: str
    drawn: str
    under: tuple[str, ...]
    butting: str


@dataclass(frozen=True)
class Rule:
    """One design rule: manual text, deck lines (ending in ``.output``), layers and scenes."""

    category: str
    text: str
    deck: str
    layers: tuple[str, ...]
    thresholds: Mapping[str, float]
    scenes: tuple[Scene, ...]
    enclosure: Enclosure | None = None
    """Set on an enclosure rule, for a later suite's gold revision (:mod:`~chipgym.tasks.drc.suite.gold`)."""
    spacing: Spacing | None = None
    """Set on a spacing rule whose table exempts butting edges, for the same."""
    words: Mapping[str, str] = field(default_factory=dict)
    """The words its text was filled with (``a`` the subject, ``b`` the other layer, ``z`` the zone), for a
    revision that rewords a sentence (:func:`~chipgym.tasks.drc.suite.phrasing.reword`)."""


@dataclass(frozen=True)
class TaskDraft:
    """A task whose testcases are not labelled yet."""

    id: str
    title: str
    group: str
    split: str
    layers: Mapping[str, tuple[int, int]]
    rules: tuple[Rule, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def deck(self) -> str:
        """The gold deck: Rule2DRC conventions, one ``input`` per layer, rules in order."""
        used = [name for name in self.layers if any(name in r.layers for r in self.rules)]
        lines = [f"# {self.id}: {self.title}", "source($input)", f'report("{self.title}", $output)']
        lines += [f"{name} = input({self.layers[name][0]}, {self.layers[name][1]})" for name in used]
        lines += [r.deck for r in self.rules]
        return "\n".join(lines) + "\n"

    def rule_layers(self) -> dict[str, tuple[int, int]]:
        """The layers its rules use, by name (sorted), with their GDS layer and datatype."""
        return {n: self.layers[n] for n in sorted({layer for r in self.rules for layer in r.layers})}

    def description(self) -> str:
        """The rule texts as one paragraph."""
        return " ".join(r.text for r in self.rules)

    def scenes(self) -> list[Scene]:
        """All candidate layouts, names unique (prefixed by rule index)."""
        return [s for r in self.rules for s in r.scenes]

    def thresholds(self) -> dict[str, float]:
        """Every numeric threshold of the rules, by name (um, um², or a ratio/count)."""
        return {k: v for r in self.rules for k, v in r.thresholds.items()}

    def categories(self) -> tuple[str, ...]:
        """The output categories, one per rule, in deck order."""
        return tuple(r.category for r in self.rules)
