"""The vocabulary of results: a status, a failure, and results that go to JSON and come back.

>>> Status.UNAVAILABLE == "unavailable", f"{Status.OK}"
(True, 'ok')
>>> Failure("timing", "worst slack -3 ps").check
'timing'
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T", bound="JsonResult")


class Status(enum.StrEnum):
    """How a check or a score ended; the value is what JSON and ``info["status"]`` hold."""

    OK = "ok"
    FAILED = "failed"
    """the work was judged and failed (see its failures)"""
    UNAVAILABLE = "unavailable"
    """no verdict: the infrastructure failed (see the reason)"""


class Failure(NamedTuple):
    """One check that failed and what it found (a pair in JSON)."""

    check: str
    detail: str


NOT_JSON = {"json": False}
"""the metadata of a dataclass field that stays out of ``to_dict`` (a callback, say)"""


class JsonResult:
    """A dataclass result that goes to JSON: ``to_dict`` gives its fields as plain data and ``from_dict``
    takes them back (a class whose fields need typed values converts them in ``__post_init__``)."""

    def to_dict(self) -> dict[str, Any]:
        skipped = {f.name: None for f in dataclasses.fields(self) if f.metadata.get("json", True) is False}
        data = dataclasses.asdict(dataclasses.replace(self, **skipped) if skipped else self)
        return {name: value for name, value in data.items() if name not in skipped}

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any]) -> T:
        return cls(**data)
