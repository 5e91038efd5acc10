"""Design-manual wording of SKY130-style rule tables: a numbered rule name, a description, a value.

A sentence is built from a kind template (several per check kind, in the manual's own styles:
"Min width of ...", "Spacing of X to Y", "Enclosure of X by Y", "X must be enclosed by Y by at
least ..."), the rule name placed first or last in one of several numbering styles, and an
exemption clause ("Rule exempted inside areaid.ce.") where the rule has one.

>>> import random
>>> text = manual(random.Random(3), "m1.1", "width", a="met1", v=0.14)
>>> "m1.1" in text and "met1" in text and "0.14" in text
True
>>> zone_clause(random.Random(0), "not_inside", "diff", "areaid_ce")
'Periphery only: diff fully inside areaid.ce is not checked.'
"""
from __future__ import annotations

import random

from chipgym.tasks.drc.suite.phrasing import say

KINDS: dict[str, tuple[str, ...]] = {
    "width": ("Width of {a}: {v} {u}.", "Min width of {a} is {v} {u}.", "Minimum {a} width = {v} {u}.",
              "{a} must be at least {v} {u} wide."),
    "space": ("Spacing of {a} to {a}: {v} {u}.", "Min spacing between two {a} is {v} {u}.",
              "Min space {a} to {a} = {v} {u}.", "Two {a} shapes must be at least {v} {u} apart."),
    "separation": ("Spacing of {a} to {b}: {v} {u}.", "Min spacing between {a} and {b} is {v} {u}.",
                   "Min space of {a} to {b} = {v} {u}.", "{a} must be spaced from {b} by at least {v} {u}."),
    "sep_no_overlap": ("Spacing, no overlap, between {a} and {b}: {v} {u}.",
                       "Min spacing (no overlap) of {a} to {b} is {v} {u}; {a} may not overlap {b}.",
                       "{a} must not overlap {b} and must be at least {v} {u} away from it."),
    "enclosure": ("Enclosure of {a} by {b}: {v} {u}.", "Min enclosure of {a} by {b} is {v} {u}.",
                  "{a} must be enclosed by {b} by at least {v} {u}.", "{b} must enclose {a} by at least {v} {u}."),
    "adjacent": ("{a} must be enclosed by {b} on one of two adjacent sides by at least {v} {u}.",
                 "Enclosure of {a} by {b} on one of two adjacent sides: {v} {u} (on each pair of adjacent sides "
                 "at least one side meets it).",
                 "Min enclosure of {a} by {b} on one of any two adjacent sides is {v} {u}."),
    "extension": ("Extension of {a} beyond {b}: {v} {u}.", "Min extension of {a} beyond {b} is {v} {u}.",
                  "{a} must extend beyond {b} by at least {v} {u}."),
    "area": ("Min area of {a}: {v} {u}².", "Min {a} area [{u}2] = {v}.", "Each {a} polygon needs {v} {u}² of area "
             "or more."),
    "hole": ("Min area of {a} holes: {v} {u}².", "Min area of {a} holes [{u}2] = {v}.",
             "Holes in {a} must be at least {v} {u}² in area."),
    "exact": ("Min and max L and W of {a}: {v} {u}.", "Only {v} x {v} {u} square {a} shapes are allowed.",
              "{a} must be exactly {v} {u} by {v} {u}."),
    "inside": ("{a} must be enclosed by {b}.", "{a} outside {b}, even partly, is not allowed.",
               "Every {a} shape must lie completely inside {b}."),
    "interact": ("{a} must overlap {b}.", "Each {a} must touch or overlap {b}.", "{a} not interacting with {b} is "
                 "an error."),
    "no_overlap": ("{a} must not overlap {b}.", "{a} can not overlap {b}.", "Overlap of {a} and {b} is not allowed."),
    "straddle": ("{a} can not straddle {b}.", "{a} may not straddle {b} (it must lie fully inside or fully "
                 "outside).", "{a} partly inside and partly outside {b} is not allowed."),
    "contain": ("Every {a} must contain {b}.", "Each {a} shape must fully cover at least one {b}.",
                "{a} without a {b} inside it is not allowed."),
}

NAMES = ("({n}) {s}", "{n}: {s}", "Rule {n}. {s}", "{s} ({n})", "{n} - {s}")
"""Where and how the rule's number is written."""

UNITS = ("um", "µm", "microns")

ZONES: dict[str, tuple[str, ...]] = {
    "not_inside": ("Rule exempted for {a} entirely inside {z}.", "{a} lying entirely inside {z} is exempt.",
                   "Not checked for {a} completely within {z} ({a} straddling {z} is checked).",
                   "Periphery only: {a} fully inside {z} is not checked."),
    "inside": ("Checked only for {a} entirely inside {z}.", "Applies to {a} lying completely within {z}.",
               "Only {a} fully inside {z} is checked."),
    "outside": ("Checked only for {a} entirely outside {z}.", "Applies to {a} not touching {z}.",
                "{a} touching or overlapping {z} is not checked."),
}

TOUCHING_CHECKED = {
    ZONES["outside"][0]: "Checked only for {a} entirely outside {z}; {a} that touches {z} is outside it, so checked.",
    ZONES["outside"][1]: "Applies to {a} not overlapping {z}; {a} that touches {z} is checked.",
    ZONES["outside"][2]: "{a} overlapping {z} is not checked; {a} that only touches {z} is.",
}
"""The ``outside`` clauses reworded as KLayout's ``outside`` reads: a shape that touches the zone is outside it."""

FIELD_PART_CHECKED = {template: "The part of {a} outside {z} is checked, also where the poly crosses {z} (its "
                      "edges on {z} are not measured); {a} that touches {z} fails."
                      for template in ZONES["outside"]}
"""The ``outside`` clauses of a spacing to tap reworded for the table's reading: every poly's field part."""

FET_EXEMPT = {template: "Not checked against a gate ({b}) completely within {z}: all FETs inside {z} are exempt."
              for template in ZONES["not_inside"]}
"""The ``not_inside`` clauses of a licon-to-gate spacing reworded for the table's reading: keyed on the FET."""

PRECISION_RESISTOR = {template: "Rule exempted for {a} entirely inside a precision resistor (rpm AND (poly "
                      "overlapping polyres) AND psdm); {a} inside rpm alone is checked."
                      for template in ZONES["not_inside"]}
"""The ``not_inside`` clauses of ``licon.1``'s rpm exemption reworded for the table's: a precision resistor."""

MUST_OVERLAP = {
    KINDS["interact"][0]: "{a} must overlap {b}; touching it is not enough.",
    KINDS["interact"][1]: "Each {a} must overlap {b}; touching it is not enough.",
    KINDS["interact"][2]: "{a} not overlapping {b} is an error, even where it touches {b}.",
}
"""The ``interact`` sentences reworded for a rule whose table asks for an overlap (a contact and its layers)."""


def zone_name(layer: str) -> str:
    """How a manual writes an area-id layer: ``areaid_ce`` -> ``areaid.ce``."""
    return layer.replace("areaid_", "areaid.")


def zone_clause(rng: random.Random, mode: str, a: str, zone: str) -> str:
    """The exemption sentence of a rule checked ``mode`` (``not_inside``/``inside``/``outside``) ``zone``."""
    return say(rng, ZONES[mode], a=a, z=zone_name(zone))


def manual(rng: random.Random, name: str, kind: str, extra: str = "", **fields: object) -> str:
    """One manual line: rule ``name``, a ``kind`` sentence (or ``fields["desc"]`` templates), then ``extra``."""
    fields.setdefault("u", rng.choice(UNITS))
    templates = fields.pop("desc", None) or KINDS[kind]
    sentence = say(rng, templates, **fields)  # type: ignore[arg-type]
    if extra:
        sentence = f"{sentence} {extra}"
    return rng.choice(NAMES).format(n=name, s=sentence)
