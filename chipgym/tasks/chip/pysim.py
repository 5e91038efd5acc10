"""Stepping a design from Python (``simulate``): its pyverilator library, built once and cached by content
hash, and what a task's stepper gives the env.

The library is the entry ``pyverilator/<hash>/design.so`` of :mod:`chipgym.cache`; only a sandboxed worker
of :mod:`chipgym.engines.pyverilator` ever loads it. A task that offers ``simulate`` returns a
:class:`Stepper` from :meth:`chipgym.tasks.chip.task.ChipTask.stepper` (the cpu task's is in its
``stepping.py``).

>>> from chipgym.tasks.chip.design import load_design
>>> from chipgym.tasks.chip.registry import load_task
>>> library(load_design(load_task("cpu").fixtures["multicycle"])).name  # doctest: +SKIP
'design.so'
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Protocol, Sequence

from chipgym.cache import default_cache
from chipgym.engines import pyverilator
from chipgym.tasks.chip.design import Design
from chipgym.waveform import Waveform

MAX_SIGNALS = 32  # signals in one window
MAX_WINDOW = 10_000  # cycles traced in one window
MAX_CYCLE = 2_000_000  # the last cycle a run may reach


class Window(Protocol):
    """What one ``simulate`` saw."""

    program: str
    waveform: Waveform
    retired: int  # the task's unit of progress up to the window's end (the cpu: retirements)
    ended: str | None  # why the run ended, or None while it goes on
    divergence: str | None  # the first difference from the task's reference so far

    def text(self) -> str:
        """The feedback: the signals, the task's records beside the reference's, the first divergence."""


class Stepper(Protocol):
    """A design running one program in a sandboxed session, from cycle 0 on."""

    key: str  # the design's digest: a changed design needs a new stepper
    cycle: int  # the next cycle to run
    default_signals: tuple[str, ...]  # what a window shows when no signal is named

    def run(self, start: int, cycles: int, patterns: Sequence[str]) -> Window:
        """Runs to ``start``, then traces ``cycles`` cycles of the signals ``patterns`` name."""

    def close(self) -> None:
        """Ends the session."""


def library(design: Design) -> Path:
    """The path of ``design``'s pyverilator library, built once per content (BuildError when Verilator or the
    compiler rejects it)."""
    key = design.digest("pyverilator", pyverilator.version(), pyverilator.BUILD)
    if (folder := default_cache().get_folder("pyverilator", key)) is not None:
        return folder / pyverilator.LIBRARY
    with tempfile.TemporaryDirectory(prefix="chipgym-pysim-") as tmp:
        built = pyverilator.build(design.rtl[0], design.top, Path(tmp))
        return default_cache().put_folder("pyverilator", key, {pyverilator.LIBRARY: built}) / pyverilator.LIBRARY
