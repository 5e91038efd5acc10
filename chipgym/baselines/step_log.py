"""The JSONL step log of ``chipgym eval``: one record per line, flushed as each is written, so a crash loses at
most the step in flight; read back as the episodes it holds.

Every line is a record of :mod:`chipgym.baselines.episode_runner` (``start``, ``step``, ``end``), keyed by
``episode`` and ``attempt``: an episode run again after a crash (``--resume``) is a new attempt, and readers
keep the latest attempt that ended.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "steps.jsonl"
>>> with StepLog(path) as log:
...     log.write({"type": "start", "episode": "t#0", "attempt": 0})
...     log.write({"type": "end", "episode": "t#0", "attempt": 0, "status": "success"})
>>> [e.end["status"] for e in read_episodes(path)], StepLog(path).attempts()
(['success'], Counter({'t#0': 1}))
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from chipgym.baselines.episode_runner import VOLATILE


@dataclass
class LoggedEpisode:
    """One attempt of an episode: its start, steps and end records."""

    start: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None


def read_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """The records of a log; a last line cut by a crash is skipped."""
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def read_episodes(path: str | os.PathLike) -> list[LoggedEpisode]:
    """The episodes of a log that ended, the latest attempt of each, in the order they started."""
    attempts: dict[tuple[str, int], LoggedEpisode] = {}
    for record in read_records(path):
        key = (record["episode"], record["attempt"])
        if record["type"] == "start":
            attempts[key] = LoggedEpisode(record)
        elif key in attempts and record["type"] == "step":
            attempts[key].steps.append(record)
        elif key in attempts and record["type"] == "end":
            attempts[key].end = record
    latest: dict[str, LoggedEpisode] = {}
    for (name, _), episode in attempts.items():
        if episode.end is not None:
            latest.pop(name, None)
            latest[name] = episode
    return list(latest.values())


def without_volatile(record: Any) -> Any:
    """A record without its wall times and places (``VOLATILE`` keys), to compare two runs."""
    if isinstance(record, dict):
        return {k: without_volatile(v) for k, v in record.items() if k not in VOLATILE}
    if isinstance(record, list):
        return [without_volatile(v) for v in record]
    return record


class StepLog:
    """Appends records to ``path``, one JSON line each, flushed at once."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._file = None

    def attempts(self) -> Counter:
        """How many attempts of each episode the log holds."""
        if not self.path.exists():
            return Counter()
        return Counter(r["episode"] for r in read_records(self.path) if r["type"] == "start")

    def finished(self, rerun: tuple[str, ...] = ("unavailable",)) -> set[str]:
        """The episodes that ended with a status not in ``rerun``: those ``--resume`` skips."""
        if not self.path.exists():
            return set()
        return {e.end["episode"] for e in read_episodes(self.path) if e.end["status"] not in rerun}

    def write(self, record: dict[str, Any]) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write(json.dumps(record, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> StepLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
