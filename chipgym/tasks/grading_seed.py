"""The grading seed: the one secret that picks a chip task's held-out workloads and a DRC deck's grading draws.

It is the ``seed`` a caller passes, else ``$CHIPGYM_GRADING_SEED``; without either there are no held-out
workloads (:func:`grading_seed` gives None) or, where they are required, an error (:func:`required_grading_seed`).
DRC grading always has one (:func:`drc_grading_secret`): without a seed, this machine's own secret. Every layer
(the task's checks, the scorer, the envs) resolves it here; it is never committed, never recorded in an
episode and never visible in a sandbox.

>>> grading_seed(1234)
1234
>>> heldout_failure("program")
'held-out programs'
"""
from __future__ import annotations

import os
import secrets

from chipgym import settings
from chipgym.cache import default_cache
from chipgym.errors import ConfigurationError

SEED_ENV = settings.GRADING_SEED.name


def grading_seed(seed: int | None = None) -> int | None:
    """``seed`` if given, else ``$CHIPGYM_GRADING_SEED`` (an integer, ``0x`` prefixes allowed), else None."""
    if seed is not None:
        return seed
    if (text := settings.GRADING_SEED.value()) is None:
        return None
    try:
        return int(text, 0)
    except ValueError:  # the value is the secret: not repeated in the message
        raise ValueError(f"${SEED_ENV} is set but is not an integer") from None


def required_grading_seed(seed: int | None = None) -> int:
    """:func:`grading_seed`, raising when there is none (held-out workloads were asked for)."""
    if (resolved := grading_seed(seed)) is None:
        raise ConfigurationError(f"held-out workloads need a grading seed: pass one or set {SEED_ENV}")
    return resolved


def drc_grading_secret(seed: int | None = None) -> int:
    """:func:`grading_seed`, else this machine's secret: 128 random bits made on first use, kept readable by
    its owner only in chipgym's cache folder (``secrets/drc-grading``), so that grading draws are the same from
    run to run on one machine and no agent can choose or know them."""
    if (resolved := grading_seed(seed)) is not None:
        return resolved
    path = default_cache().folder("secrets") / "drc-grading"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_name(f".drc-grading.{os.getpid()}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(f"{secrets.randbits(128)}\n")
        os.replace(temporary, path)  # two processes making it at once: one of theirs wins, both read it
    try:
        return int(path.read_text())
    except ValueError:
        raise ValueError(f"{path}: not a grading secret (an integer); delete it to make a new one") from None


def heldout_failure(workload: str) -> str:
    """All a failure on held-out workloads may say beside the check's name: that the held-out set failed, never
    which of them, how many or in what order. A check reports it at most once, however many held-out workloads
    it failed on. ``workload`` is the task's noun for one (:attr:`chipgym.tasks.chip.task.ChipTask.workload`)."""
    return f"held-out {workload}s"
