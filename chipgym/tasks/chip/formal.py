"""Formal gate: bounded model checking of a task's properties with Yosys and ABC's ``bmc3``.

A properties file defines a wrapper module named by ``top`` that instantiates the design and
states ``assume``/``assert`` properties. The design's own assertions and assumptions are removed
first (an ``assume`` in the design could otherwise make every property hold vacuously). Yosys lowers
the model to an AIGER circuit of AND gates (assertions become bad-state outputs, assumptions
constraints); ABC merges registers and signals it proves equivalent (``scorr``), rewrites the logic
(``dc2``) and searches the result with its bit-level ``bmc3`` (:func:`chipgym.engines.yosys.bounded_model_check`).
A failing assertion is reported with its source line and cycle. On the CPU fixtures this reaches 64 cycles in
5-12 s of CPU, where yosys-smtbmc with z3 needed 45-100 s for 12 (docs/scoring.md).
"""
from __future__ import annotations

from pathlib import Path

from chipgym.cache import default_cache, folder_digest
from chipgym.engines.yosys import ABC_SCRIPT, UNCLASSIFIED, bounded_model_check
from chipgym.tasks.chip.design import Design


def formal_check(design: Design, properties: Path, depth: int, top: str = "chipgym_formal") -> list[str]:
    """Problems found within ``depth`` cycles (empty if every assertion holds), cached by content; a failure
    of the engine itself is not cached."""
    key = f"{design.digest(folder_digest(properties.parent), properties.name, str(depth), top, ABC_SCRIPT)}.json"
    if (cached := default_cache().get_json("formal", key)) is not None:
        return cached
    problems = bounded_model_check(design.rtl, properties, depth, top)
    if not any(p.startswith(UNCLASSIFIED) for p in problems):
        default_cache().put_json("formal", key, problems)
    return problems
