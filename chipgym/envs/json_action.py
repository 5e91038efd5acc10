"""Decoding the JSON text actions of chipgym's envs, safely: whatever an agent sends, the answer is an
action or an :class:`ActionError` that names the field at fault, never another exception.

The size is checked before anything is parsed; deeply nested JSON, numbers of thousands of digits and text
that is not valid Unicode (a lone surrogate) are errors, not crashes.

>>> parse('{"op": "run"}', {"run": lambda data: "running"}, 100)
'running'
>>> parse('{"op": ["run"]}', {"run": lambda data: "running"}, 100)
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
from typing import Any, Callable, Mapping, TypeVar

from chipgym.errors import AgentError

Action = TypeVar("Action")


class ActionError(AgentError):
    """A malformed action; the message names the field at fault."""


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


def parse(text: Any, ops: Mapping[str, Callable[[Mapping], Action]], max_length: int) -> Action:
    """The action in ``text``: the JSON object decoded, its ``op`` looked up in ``ops``, and the op's reader
    applied to the object; ActionError names the field at fault."""
    data = decode(text, max_length)
    op = data.get("op")
    if not isinstance(op, str) or op not in ops:
        raise ActionError(f"op: unknown operation {str(repr(op))[:64]}; expected one of {', '.join(ops)}")
    return ops[op](data)


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
