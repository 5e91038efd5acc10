"""Decoding the JSON text actions of chipgym's envs, safely: whatever an agent sends, the answer is an
action or an :class:`ActionError` that names the field at fault, never another exception.

The size is checked before anything is parsed; deeply nested JSON, numbers of thousands of digits and text
that is not valid Unicode (a lone surrogate) are errors, not crashes.

An env's actions are one table of :class:`Op` (name, what it does, the JSON schema of its fields, its reader):
the parser, the chat tools' schemas and the prompt's list of actions are all derived from it.

>>> RUN = Op("run", "Run it.", fields(), lambda data: "running")
>>> parse('{"op": "run"}', (RUN,), 100)
'running'
>>> parse('{"op": ["run"]}', (RUN,), 100)
Traceback (most recent call last):
...
chipgym.envs.json_action.ActionError: op: unknown operation ['run']; expected one of run
>>> decode("[" * 100_000, 1_000_000)
Traceback (most recent call last):
...
chipgym.envs.json_action.ActionError: action: nested too deeply
>>> decode('{"op": "run"}' + " " * 200, 100)
Traceback (most recent call last):
...
chipgym.envs.json_action.ActionError: action: 213 characters, over the limit of 100
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Generic, Mapping, Sequence, TypeVar

from chipgym.errors import AgentError

Action = TypeVar("Action")


class ActionError(AgentError):
    """A malformed action; the message names the field at fault."""


@dataclass(frozen=True)
class Op(Generic[Action]):
    """One action op of an env: its ``name``; what it does (a tool's description, a line of the prompt); the JSON
    schema of its fields (:func:`fields`); and its reader, from the decoded object to the action, raising
    :class:`ActionError` naming the field at fault."""

    name: str
    description: str
    schema: dict[str, Any]
    read: Callable[[Mapping], Action]


TEXT: dict[str, Any] = {"type": "string"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}


def fields(properties: Mapping[str, Any] | None = None, required: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON schema of an op's fields: an object of ``properties``, ``required`` ones named, no others."""
    return {"type": "object", "properties": dict(properties or {}), "required": list(required),
            "additionalProperties": False}


def integer(low: int, high: int) -> dict[str, Any]:
    """The JSON schema of an integer from ``low`` to ``high``."""
    return {"type": "integer", "minimum": low, "maximum": high}


def decode(text: Any, max_length: int) -> dict:
    """The JSON object in ``text``, or ActionError."""
    if not isinstance(text, str):
        raise ActionError(f"action: expected JSON text, got {type(text).__name__}")
    if len(text) > max_length:
        raise ActionError(f"action: {len(text)} characters, over the limit of {max_length}")
    try:
        data = json.loads(text)
    except RecursionError:
        raise ActionError("action: nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, and integers of more digits than Python converts
        raise ActionError(f"action: not valid JSON ({str(error)[:200]})") from None
    if not isinstance(data, dict):
        raise ActionError('action: expected a JSON object like {"op": "..."}')
    return data


def parse(text: Any, ops: Sequence[Op[Action]], max_length: int) -> Action:
    """The action in ``text``: the JSON object decoded, its ``op`` looked up in ``ops``, and the op's reader
    applied to the object; ActionError names the field at fault."""
    data = decode(text, max_length)
    name = data.get("op")
    by_name = {op.name: op for op in ops}
    if not isinstance(name, str) or name not in by_name:
        raise ActionError(f"op: unknown operation {str(repr(name))[:64]}; expected one of {', '.join(by_name)}")
    return by_name[name].read(data)


def text_field(data: Mapping, key: str, limit: int, default: str | None = None) -> str:
    """The string ``data[key]``: at most ``limit`` characters of valid Unicode."""
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ActionError(f"{key}: expected a string")
    if len(value) > limit:
        raise ActionError(f"{key}: longer than {limit} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ActionError(f"{key}: not valid Unicode text (a lone surrogate?)") from None
    return value


def search_field(data: Mapping, limit: int) -> str:
    """The ``search`` text of a patch: as :func:`text_field`, and not empty."""
    search = text_field(data, "search", limit)
    if not search:
        raise ActionError("search: must not be empty")
    return search
