"""Design-manual wording: several phrasings per rule kind, picked by a seeded RNG.

>>> import random
>>> text = phrase(random.Random(1), "width", a="met1", v=0.14)
>>> "met1" in text and "0.14" in text
True
"""
from __future__ import annotations

import random
from typing import Mapping

TEMPLATES: dict[str, tuple[str, ...]] = {
    "width": (
        "Minimum width of {a} is {v} {u}.",
        "{a} shapes must be at least {v} {u} wide.",
        "Width of {a} features below {v} {u} is not allowed.",
        "Every {a} feature shall have a width of no less than {v} {u}.",
    ),
    "space": (
        "Minimum spacing between two {a} shapes is {v} {u}.",
        "{a} to {a} spacing must be at least {v} {u}.",
        "Spacing of {a} to {a} shall not be less than {v} {u}.",
        "Keep any two {a} features at least {v} {u} apart.",
    ),
    "separation": (
        "Minimum spacing of {a} to {b} is {v} {u}.",
        "{a} must be spaced at least {v} {u} from {b}.",
        "Spacing between {a} and {b} shall be no less than {v} {u}.",
        "Keep {a} at a distance of {v} {u} or more from {b}.",
    ),
    "enclosure": (
        "{b} must enclose {a} by at least {v} {u}.",
        "Minimum enclosure of {a} by {b} is {v} {u}.",
        "{a} shall be enclosed by {b} with a margin of no less than {v} {u} on every side.",
        "Enclosure of {a} by {b} below {v} {u} is a violation.",
    ),
    "overlap": (
        "Minimum overlap of {a} and {b} is {v} {u}.",
        "Where {a} overlaps {b}, the overlap must be at least {v} {u} deep.",
        "{a} and {b} shall overlap by no less than {v} {u}.",
    ),
    "extension": (
        "Minimum extension of {a} beyond {b} is {v} {u}.",
        "{a} must extend past {b} by at least {v} {u}.",
        "Extension of {a} beyond {b} shall be no less than {v} {u}.",
    ),
    "area": (
        "Minimum area of {a} is {v} {u}².",
        "Each {a} polygon must have an area of at least {v} {u}².",
        "{a} shapes smaller than {v} {u}² are not allowed.",
    ),
    "hole": (
        "Minimum area of {a} holes is {v} {u}².",
        "Any hole enclosed by {a} must be at least {v} {u}² in area.",
        "Holes in {a} with an area below {v} {u}² are forbidden.",
    ),
    "notch": (
        "Minimum notch width of {a} (spacing between two edges of the same polygon) is {v} {u}.",
        "Notches in {a} must be at least {v} {u} wide.",
        "Spacing between edges of a single {a} polygon shall not be less than {v} {u}.",
    ),
    "inside": (
        "{a} must be fully inside {b}.",
        "Every {a} shape shall be completely covered by {b}.",
        "{a} outside of {b}, even partially, is not allowed.",
    ),
    "interact": (
        "Every {a} shape must overlap {b}.",
        "{a} that does not touch or overlap {b} is not allowed.",
        "Each {a} shall interact with at least one {b} shape.",
    ),
    "exact": (
        "{a} must be a square of exactly {v} x {v} {u}.",
        "Only {v} {u} x {v} {u} square {a} shapes are allowed.",
        "Min and max length and width of {a} is {v} {u}.",
    ),
}

UNITS = ("um", "µm")


def value(um: float) -> str:
    """A threshold as written in rule text and decks: ``0.14``, ``1.6``, ``4.0``."""
    text = f"{um:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def say(rng: random.Random, templates: tuple[str, ...], **fields: object) -> str:
    """One of ``templates`` filled in (floats via :func:`value`, ``{u}`` a random unit spelling).

    The first letter is capitalised unless the sentence starts with a layer name.
    """
    params = {k: value(v) if isinstance(v, float) else v for k, v in fields.items()}
    params.setdefault("u", rng.choice(UNITS))
    return _filled(rng.choice(templates), params)


def reword(text: str, rewordings: Mapping[str, str], **fields: object) -> str:
    """``text`` with each sentence that :func:`say` filled from a template of ``rewordings`` (with ``fields``)
    replaced by that template's rewording, filled alike."""
    for template, rewording in rewordings.items():
        text = text.replace(_filled(template, fields), _filled(rewording, fields))
    return text


def _filled(template: str, params: Mapping[str, object]) -> str:
    text = template.format(**params)
    return text if template.startswith("{") else text[0].upper() + text[1:]


def phrase(rng: random.Random, kind: str, **fields: object) -> str:
    """A randomly worded sentence for a classic rule kind (see :data:`TEMPLATES`)."""
    return say(rng, TEMPLATES[kind], **fields)
