"""The result of checking a design.

>>> r = CheckReport("cpu", "fixtures/multicycle")
>>> r.fail("functional", "random-3: retirement 4: field rd_wdata expected 0x1 got 0x2")
>>> r.passed, r.failed_checks()
(False, ['functional'])
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

from chipgym.results import NOT_JSON, Failure, JsonResult


@dataclass
class CheckReport(JsonResult):
    task: str
    design: str
    failures: list[Failure] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    """seconds spent in each check"""
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    """per program: measured cycles and retirements"""
    on_check: Callable[[str], None] | None = field(default=None, repr=False, compare=False, metadata=NOT_JSON)
    """called with the check's name each time a check starts (for progress displays)"""

    def __post_init__(self) -> None:
        self.failures = [Failure(*f) for f in self.failures]

    @property
    def passed(self) -> bool:
        return not self.failures

    def fail(self, check: str, detail: str) -> None:
        self.failures.append(Failure(check, detail))

    def failed_checks(self) -> list[str]:
        return sorted({c for c, _ in self.failures})

    @contextmanager
    def timed(self, check: str):
        if self.on_check is not None:
            self.on_check(check)
        start = time.monotonic()
        try:
            yield
        finally:
            self.timings[check] = self.timings.get(check, 0.0) + time.monotonic() - start

    def summary(self) -> str:
        lines = [f"{self.task} {self.design}: {'PASS' if self.passed else 'FAIL'}"]
        lines += [f"  {c}: {d}" for c, d in self.failures]
        lines += [f"  {c} took {s:.2f} s" for c, s in self.timings.items()]
        return "\n".join(lines)
