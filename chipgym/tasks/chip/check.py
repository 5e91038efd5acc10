"""Entry point: check a design folder against a chip task.

>>> from chipgym.tasks.chip.registry import load_task
>>> report = check_design(load_task("cpu").fixtures["multicycle"], formal=False)
>>> report.passed
True
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from chipgym.errors import DesignError
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.chip.report import CheckReport


def check_design(
    design_dir: str | Path, task: str = "cpu", on_check: Callable[[str], None] | None = None,
    profile: str | None = None, **options
) -> CheckReport:
    """Run every check of ``task`` on the design in ``design_dir``, at its clock period for ``profile``.

    ``on_check`` is called with each check's name as it starts. ``options`` go to the task's
    :meth:`~chipgym.tasks.chip.task.ChipTask.check` (``grading_seed``, ``formal``, ``heldout``,
    ``workloads`` and ``stall_seeds``).
    """
    chip_task = load_task(task)
    report = CheckReport(task, str(design_dir), on_check=on_check)
    try:
        design = load_design(design_dir, profile)
    except DesignError as e:
        report.fail("design", str(e))
        return report
    chip_task.check(design, report, **options)
    return report
