"""Actions of ``chipgym/RtlDesign-v0``: JSON text, built with these helpers and checked by ``parse``.

>>> from chipgym.envs import rtl_actions as act
>>> act.write("rtl/cpu.v", "module chipgym_cpu; endmodule")
'{"op": "write", "path": "rtl/cpu.v", "text": "module chipgym_cpu; endmodule"}'
>>> act.parse(act.set_clock(2000))
SetClock(period_ps=2000)
>>> act.parse(act.check(estimate=True))
Check(estimate=True)
>>> act.parse(act.simulate("memcpy", cycles=50, signals=["pc", "regs[*]"]))
Simulate(program='memcpy', cycles=50, signals=('pc', 'regs[*]'), start=None, continue_=False, stalls=None)
>>> act.parse(act.delete("../outside.v"))
Traceback (most recent call last):
...
chipgym.envs.json_action.ActionError: path: '..' is not allowed; paths stay inside the design folder
>>> act.parse('{"op": "fly"}')  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
chipgym.envs.json_action.ActionError: op: unknown operation 'fly'; expected one of write, patch, delete, set_clock,
check, simulate, submit
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Mapping

from chipgym.envs import json_action
from chipgym.envs.json_action import BOOLEAN, TEXT, ActionError, Op, fields, integer, search_field, text_field
from chipgym.tasks.chip.design import MAX_PERIOD_PS
from chipgym.tasks.chip.pysim import MAX_CYCLE, MAX_SIGNALS, MAX_WINDOW

MAX_FILE = 200_000  # characters of one file
MAX_PATH = 120  # characters of a path
MAX_ACTION = 4 * MAX_FILE  # characters of one action (a patch of a whole file fits)
PATH_CHARS = re.compile(r"[A-Za-z0-9_.\-/]+")
SIGNAL_CHARS = re.compile(r"[A-Za-z0-9_.\[\]*?$]{1,120}")
DEFAULT_CYCLES = 100


@dataclass(frozen=True)
class FileAction:
    path: str  # relative to the design folder


@dataclass(frozen=True)
class Write(FileAction):
    text: str


@dataclass(frozen=True)
class Patch(FileAction):
    search: str  # must occur exactly once in the file
    replace: str


@dataclass(frozen=True)
class Delete(FileAction):
    pass


@dataclass(frozen=True)
class SetClock:
    period_ps: int


@dataclass(frozen=True)
class Check:
    estimate: bool = False  # add a synthesis estimate of area and timing


@dataclass(frozen=True)
class Simulate:
    program: str | None  # a public workload's name or assembly text; None goes on with the last one
    cycles: int = DEFAULT_CYCLES  # cycles traced
    signals: tuple[str, ...] = ()  # names or glob patterns inside the top module; () for the defaults
    start: int | None = None  # first cycle traced (None: 0, or where the last one stopped with continue_)
    continue_: bool = False  # go on from where the last simulate stopped, without a rebuild or a reset
    stalls: int | None = None  # the seed of the check's random memory stalls; None: exact memories


@dataclass(frozen=True)
class Submit:
    pass


Action = Write | Patch | Delete | SetClock | Check | Simulate | Submit


def write(path: str, text: str) -> str:
    """Create or replace the file ``path`` (relative to the design folder) with ``text``."""
    return json.dumps({"op": "write", "path": path, "text": text})


def patch(path: str, search: str, replace: str) -> str:
    """Replace ``search``, which must occur exactly once in ``path``, with ``replace``."""
    return json.dumps({"op": "patch", "path": path, "search": search, "replace": replace})


def delete(path: str) -> str:
    """Delete the file ``path``."""
    return json.dumps({"op": "delete", "path": path})


def set_clock(period_ps: int) -> str:
    """Set ``clock_period_ps`` in design.toml (created with the contract's top module if absent)."""
    return json.dumps({"op": "set_clock", "period_ps": period_ps})


def check(estimate: bool = False) -> str:
    """Run the public check (feedback only); ``estimate`` adds a synthesis estimate of area and timing."""
    return json.dumps({"op": "check", "estimate": True} if estimate else {"op": "check"})


def simulate(program: str | None = None, cycles: int = DEFAULT_CYCLES, signals: list[str] | tuple[str, ...] = (),
             start: int | None = None, continue_: bool = False, stalls: int | None = None) -> str:
    """Step the design on ``program`` (a public workload's name, or assembly text) and show ``signals`` over
    ``cycles`` cycles from ``start``, with the retirements beside the reference's; ``continue_`` goes on from
    where the last ``simulate`` stopped; ``stalls`` adds the check's random memory stalls of that seed."""
    data: dict = {"op": "simulate", "cycles": cycles}
    if program is not None:
        data["program"] = program
    if signals:
        data["signals"] = list(signals)
    if start is not None:
        data["start"] = start
    if continue_:
        data["continue"] = True
    if stalls is not None:
        data["stalls"] = stalls
    return json.dumps(data)


def submit() -> str:
    """Grade the design (held-out kernels, synthesis, timing, energy) and end the episode."""
    return json.dumps({"op": "submit"})


def parse(text: str) -> Action:
    """The action in ``text``, checked; raises ActionError naming the field at fault."""
    return json_action.parse(text, OPS, MAX_ACTION)


def _check(data: Mapping) -> Check:
    estimate = data.get("estimate", False)
    if not isinstance(estimate, bool):
        raise ActionError("estimate: expected true or false")
    return Check(estimate)


def _simulate(data: Mapping) -> Simulate:
    going_on = data.get("continue", False)
    if not isinstance(going_on, bool):
        raise ActionError("continue: expected true or false")
    program = text_field(data, "program", MAX_FILE) if "program" in data or not going_on else None
    if program is not None and not program.strip():
        raise ActionError("program: expected a public workload's name or assembly text")
    cycles = _integer(data, "cycles", 1, MAX_WINDOW, DEFAULT_CYCLES)
    start = _integer(data, "start", 0, MAX_CYCLE - 1, None)
    stalls = _integer(data, "stalls", 0, 2**31 - 1, None)
    signals = data.get("signals", [])
    if not isinstance(signals, list) or len(signals) > MAX_SIGNALS:
        raise ActionError(f"signals: expected a list of at most {MAX_SIGNALS} names or glob patterns")
    for signal in signals:
        if not isinstance(signal, str) or not SIGNAL_CHARS.fullmatch(signal):
            raise ActionError(f"signals: {str(signal)[:40]!r} is not a signal name or glob pattern (letters, digits, "
                              "'_', '.', '[', ']', '*', '?'; at most 120 characters)")
    return Simulate(program, cycles, tuple(signals), start, going_on, stalls)


def _integer(data: Mapping, key: str, low: int, high: int, default: int | None) -> int | None:
    value = data.get(key, default)
    if value is default:
        return value
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ActionError(f"{key}: expected an integer from {low} to {high}")
    return value


OPS: tuple[Op[Action], ...] = (
    Op("write", "Create or replace a file of the design folder.",
       fields({"path": TEXT, "text": TEXT}, ["path", "text"]),
       lambda data: Write(_path(data), text_field(data, "text", MAX_FILE))),
    Op("patch", "Replace search, which must occur exactly once in the file, with replace.",
       fields({"path": TEXT, "search": TEXT, "replace": TEXT}, ["path", "search", "replace"]),
       lambda data: Patch(_path(data), search_field(data, MAX_FILE), text_field(data, "replace", MAX_FILE))),
    Op("delete", "Delete a file of the design folder.", fields({"path": TEXT}, ["path"]),
       lambda data: Delete(_path(data))),
    Op("set_clock", "Set the clock period in design.toml.", fields({"period_ps": integer(1, MAX_PERIOD_PS)},
                                                                     ["period_ps"]),
       lambda data: SetClock(_period(data))),
    Op("check", "Run the public check (feedback only; one step and minutes); estimate adds synthesized area and "
                "timing.", fields({"estimate": BOOLEAN}), _check),
    Op("simulate", "Step the design on a public program (its name) or assembly text, cycle by cycle: the signals' "
                   "value changes over the window and the retirements beside the reference's, the first divergence "
                   "marked. continue goes on from where the last one stopped; stalls replays the check's random "
                   "memory stalls of that seed.",
       fields({"program": TEXT, "cycles": integer(1, MAX_WINDOW),
               "signals": {"type": "array", "items": TEXT, "maxItems": MAX_SIGNALS,
                           "description": "names or glob patterns: pc, regs[*], e_*"},
               "start": integer(0, MAX_CYCLE - 1), "continue": BOOLEAN, "stalls": integer(0, 2**31 - 1)}),
       _simulate),
    Op("submit", "Grade the design and end the episode.", fields(), lambda data: Submit()),
)
"""The env's actions: what ``parse`` reads, and the chat tools and prompt lines (:mod:`chipgym.envs.chat`)."""


def _path(data: Mapping) -> str:
    """A relative path inside the design folder (symlinks are checked where the file is opened)."""
    path = data.get("path")
    if not isinstance(path, str) or not path:
        raise ActionError('path: expected a relative path such as "rtl/chipgym_cpu.v"')
    if len(path) > MAX_PATH:
        raise ActionError(f"path: longer than {MAX_PATH} characters")
    if not PATH_CHARS.fullmatch(path):
        raise ActionError("path: only letters, digits, '_', '-', '.' and '/' are allowed")
    parts = PurePosixPath(path).parts
    if path.startswith("/"):
        raise ActionError("path: absolute paths are not allowed; give one relative to the design folder")
    if ".." in parts:
        raise ActionError("path: '..' is not allowed; paths stay inside the design folder")
    clean = "/".join(part for part in parts if part != ".")
    if not clean:
        raise ActionError("path: names no file")
    return clean


def _period(data: Mapping) -> int:
    period = data.get("period_ps")
    if not isinstance(period, int) or isinstance(period, bool) or not 0 < period <= MAX_PERIOD_PS:
        raise ActionError(f"period_ps: expected an integer from 1 to {MAX_PERIOD_PS}")
    return period
