"""The chip tasks by name: the one place that names each task's module.

A task registers by a line in :data:`TASKS`: its name, and the module that holds its :class:`ChipTask` as
``TASK``. A task's module is imported when it is first loaded; each name gives one task object.

>>> task_names()
('cpu', 'noc')
>>> load_task("cpu").name
'cpu'
>>> load_task("gpu")
Traceback (most recent call last):
...
ValueError: unknown chip task 'gpu' (known: cpu, noc)
"""
from __future__ import annotations

import importlib

from chipgym.tasks.chip.task import ChipTask

TASKS = {
    "cpu": "chipgym.tasks.chip.cpu.task",
    "noc": "chipgym.tasks.chip.noc.task",
}


def task_names() -> tuple[str, ...]:
    return tuple(sorted(TASKS))


def load_task(name: str) -> ChipTask:
    """The task ``name`` (ValueError naming it and the known tasks when there is none)."""
    if not isinstance(name, str) or name not in TASKS:
        raise ValueError(f"unknown chip task {name!r} (known: {', '.join(task_names())})")
    return importlib.import_module(TASKS[name]).TASK
