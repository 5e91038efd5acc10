"""Tasks by name or by folder: ``load_tasks("drc-v0", "train")`` or ``load_tasks("path/to/problems")``.

>>> load_tasks("no-such-suite")
Traceback (most recent call last):
...
ValueError: tasks: 'no-such-suite' is neither a suite (drc-v0...) nor an existing folder
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Sequence

from chipgym.tasks.drc.rule2drc import load_rule2drc
from chipgym.tasks.drc.suite import build_private, build_suite
from chipgym.tasks.drc.suites import suite_names
from chipgym.tasks.drc.task import DrcTask


def load_tasks(
    tasks: str | os.PathLike | Sequence[DrcTask], split: str = "all", strict: bool = False,
    private_secret: int | None = None,
) -> list[DrcTask]:
    """Tasks from a suite name, a Rule2DRC folder or a list, keeping those of ``split`` (train, test or all).

    Tasks with no split (published Rule2DRC problems carry none) belong to every split. The issues of a
    folder's problems are warnings; with ``strict`` the first broken problem raises. With ``private_secret`` a
    suite's tasks have its private evaluation set under that secret (:func:`~chipgym.tasks.drc.suite.build_private`).
    """
    if split not in ("train", "test", "all"):
        raise ValueError(f"split: expected 'train', 'test' or 'all', got {split!r}")
    if private_secret is not None and not (isinstance(tasks, str) and tasks in suite_names()):
        raise ValueError(f"tasks: a private evaluation set is drawn from a built-in suite ({', '.join(suite_names())})"
                         f", not from {tasks!r}")
    if isinstance(tasks, str) and tasks in suite_names():
        loaded = build_suite(tasks) if private_secret is None else build_private(tasks, private_secret)
    elif isinstance(tasks, (str, os.PathLike)):
        if not Path(tasks).exists():
            known = ", ".join(suite_names())
            raise ValueError(f"tasks: {tasks!r} is neither a suite ({known}) nor an existing folder")
        folder = load_rule2drc(tasks, strict)
        for issue in folder.issues:
            warnings.warn(str(issue), stacklevel=2)
        loaded = list(folder.tasks)
    else:
        loaded = list(tasks)
    chosen = [t for t in loaded if split == "all" or t.split in (split, None)]
    if not chosen:
        raise ValueError(f"tasks: no {split} tasks in {tasks!r}")
    return chosen
