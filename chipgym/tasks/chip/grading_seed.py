"""The grading seed: the one secret that picks a chip task's held-out workloads, never committed.

It is the ``seed`` a caller passes, else ``$CHIPGYM_GRADING_SEED``; without either there are no held-out
workloads (:func:`grading_seed` gives None) or, where they are required, an error (:func:`required_grading_seed`).
Every layer (the task's checks, the scorer, the env) resolves it here.

>>> grading_seed(1234)
1234
>>> heldout_failure(2, "program")
'held-out program 2'
"""
from __future__ import annotations

import os

SEED_ENV = "CHIPGYM_GRADING_SEED"


def grading_seed(seed: int | None = None) -> int | None:
    """``seed`` if given, else ``$CHIPGYM_GRADING_SEED`` (an integer, ``0x`` prefixes allowed), else None."""
    if seed is not None:
        return seed
    if SEED_ENV not in os.environ:
        return None
    try:
        return int(os.environ[SEED_ENV], 0)
    except ValueError:  # the value is the secret: not repeated in the message
        raise ValueError(f"${SEED_ENV} is set but is not an integer") from None


def required_grading_seed(seed: int | None = None) -> int:
    """:func:`grading_seed`, raising when there is none (held-out workloads were asked for)."""
    if (resolved := grading_seed(seed)) is None:
        raise RuntimeError(f"held-out workloads need a grading seed: pass one or set {SEED_ENV}")
    return resolved


def heldout_failure(index: int | None, workload: str) -> str:
    """All a failure on held-out workload ``index`` (None: on every one) may say, beside the check's name;
    ``workload`` is the task's noun for one (:attr:`chipgym.tasks.chip.task.ChipTask.workload`)."""
    return f"held-out {workload}s" if index is None else f"held-out {workload} {index}"
