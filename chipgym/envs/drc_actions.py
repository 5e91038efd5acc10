"""Actions of ``chipgym/DrcScript-v0``: JSON text, built with these helpers and checked by ``parse``.

>>> from chipgym.envs import drc_actions as act
>>> act.write('source($input)\\nreport("r", $output)')
'{"op": "write", "script": "source($input)\\\\nreport(\\\\"r\\\\", $output)"}'
>>> act.parse(act.add_test([act.box((68, 20), 0, 0, 0.1, 2)], {"m1.1": 1})).expected
{'m1.1': 1}
>>> act.parse('{"op": "fly"}')
Traceback (most recent call last):
...
chipgym.envs.json_action.ActionError: op: unknown operation 'fly'; expected one of write, patch, add_test, run, submit
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from chipgym.envs import json_action
from chipgym.envs.json_action import TEXT, ActionError, Op, fields, search_field, text_field
from chipgym.tasks.drc.layout_text import shapes_to_gds

MAX_SCRIPT = 100_000  # characters
MAX_GDS = 1 << 20  # bytes
MAX_ACTION = 4 * MAX_SCRIPT  # characters of one action (a base64 GDS of MAX_GDS bytes fits)


@dataclass(frozen=True)
class Write:
    script: str


@dataclass(frozen=True)
class Patch:
    search: str
    replace: str


@dataclass(frozen=True)
class AddTest:
    gds: bytes
    expected: Mapping[str, int]  # category: 1 (a violation) or 0
    name: str  # "" for the env to name it


@dataclass(frozen=True)
class Run:
    pass


@dataclass(frozen=True)
class Submit:
    pass


Action = Write | Patch | AddTest | Run | Submit


def write(script: str) -> str:
    """Replace the whole deck."""
    return json.dumps({"op": "write", "script": script})


def patch(search: str, replace: str) -> str:
    """Replace the first occurrence of ``search`` in the deck with ``replace``."""
    return json.dumps({"op": "patch", "search": search, "replace": replace})


def box(layer: Sequence[int], x0: float, y0: float, x1: float, y1: float) -> dict:
    """A rectangle in um for ``add_test``."""
    return {"layer": list(layer), "box": [x0, y0, x1, y1]}


def polygon(layer: Sequence[int], points: Sequence[Sequence[float]]) -> dict:
    """A polygon in um for ``add_test``."""
    return {"layer": list(layer), "polygon": [list(p) for p in points]}


def add_test(shapes: Sequence[Mapping] | bytes, expected: Mapping[str, int], name: str = "") -> str:
    """Add a test layout (shapes, or GDS bytes) with the verdict expected per category (1 = violation)."""
    action: dict[str, Any] = {"op": "add_test", "expected": dict(expected)}
    if isinstance(shapes, bytes):
        action["gds"] = base64.b64encode(shapes).decode()
    else:
        action["shapes"] = list(shapes)
    if name:
        action["name"] = name
    return json.dumps(action)


def run() -> str:
    """Run the deck on the public examples and the agent's tests (feedback only)."""
    return json.dumps({"op": "run"})


def submit() -> str:
    """Grade the deck on the hidden layouts and end the episode."""
    return json.dumps({"op": "submit"})


def parse(text: str) -> Action:
    """The action in ``text``, checked; raises ActionError naming the field at fault."""
    return json_action.parse(text, OPS, MAX_ACTION)


_LAYER = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 65535}, "minItems": 2, "maxItems": 2,
          "description": "[layer, datatype]"}
_SHAPE = {"type": "object", "properties": {
    "layer": _LAYER,
    "box": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4,
            "description": "[x0, y0, x1, y1] in um"},
    "polygon": {"type": "array", "items": {"type": "array", "items": {"type": "number"}, "minItems": 2,
                                           "maxItems": 2}, "description": "[[x, y], ...] in um"}},
    "required": ["layer"]}
_EXPECTED = {"type": "object", "additionalProperties": {"type": "integer", "enum": [0, 1]},
             "description": "{CATEGORY: 0 or 1, ...}"}

OPS: tuple[Op[Action], ...] = (
    Op("write", "Replace the whole deck.", fields({"script": TEXT}, ["script"]),
       lambda data: Write(text_field(data, "script", MAX_SCRIPT))),
    Op("patch", "Replace the first occurrence of search in the deck with replace.",
       fields({"search": TEXT, "replace": TEXT}, ["search", "replace"]),
       lambda data: Patch(search_field(data, MAX_SCRIPT), text_field(data, "replace", MAX_SCRIPT))),
    Op("add_test", "Add a test layout (shapes in um, or a GDS in base64) with the verdict expected per category "
                   "(1: a violation, 0: none).",
       fields({"shapes": {"type": "array", "items": _SHAPE}, "gds": TEXT, "expected": _EXPECTED, "name": TEXT},
              ["expected"]),
       lambda data: AddTest(_test_gds(data), _expected(data), _name(data))),
    Op("run", "Run the deck on the public examples and your tests (feedback only).", fields(), lambda data: Run()),
    Op("submit", "Grade the deck on the hidden layouts and end the episode.", fields(), lambda data: Submit()),
)
"""The env's actions: what ``parse`` reads, and the chat tools and prompt lines (:mod:`chipgym.envs.chat`)."""


def _name(data: Mapping) -> str:
    name = text_field(data, "name", 64, "")
    if not all(c.isalnum() or c in "_-." for c in name):
        raise ActionError("name: only letters, digits, '_', '-' and '.'")
    return name


def _test_gds(data: Mapping) -> bytes:
    if ("shapes" in data) == ("gds" in data):
        raise ActionError("add_test: give either 'shapes' or 'gds' (base64)")
    if "gds" in data:
        try:
            gds = base64.b64decode(text_field(data, "gds", 2 * MAX_GDS), validate=True)
        except binascii.Error:
            raise ActionError("gds: not valid base64") from None
        if not gds:
            raise ActionError("gds: empty")
        return gds
    try:
        return shapes_to_gds(data["shapes"])
    except ValueError as error:
        raise ActionError(str(error)) from None


def _expected(data: Mapping) -> dict[str, int]:
    expected = data.get("expected")
    if not isinstance(expected, dict) or not expected:
        raise ActionError('expected: an object {CATEGORY: 0 or 1}, e.g. {"m1.1": 1}')
    for category, verdict in expected.items():
        if verdict not in (0, 1) or isinstance(verdict, bool):
            raise ActionError(f"expected.{category[:64]}: must be 0 or 1")
    return dict(expected)
