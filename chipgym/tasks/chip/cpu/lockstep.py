"""Timing-model lockstep: replay a design's own timing model against its RTL trace.

A timing model is ``model/timing_model.py`` with
``predict(run, latency: dict[str, int]) -> dict`` (``run`` has the fields of ``reference.Run``) returning
``retire_cycles`` (the cycle of every retirement) and the final ``cycles``, ``retired``
and ``stalls`` counters, for a run without random stalls.
"""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from chipgym.engines.python import run_timing_model
from chipgym.errors import TimingModelError
from chipgym.tasks.chip.cpu.reference import Run
from chipgym.tasks.chip.cpu.testbench import SimResult

COUNTERS = ("cycles", "retired", "stalls")
SCHEMA = "{'retire_cycles': [cycle of each retirement], 'cycles': N, 'retired': N, 'stalls': N}"


def predict(model: Path, runs: list[Run], latency: dict[str, int], timeout: float = 120) -> list[dict]:
    """The model's answer for each run (``{"prediction": ...}`` or ``{"error": ...}``), computed in the sandbox
    (:mod:`chipgym.engines.python`)."""
    if not model.is_file():
        raise TimingModelError(f"no timing model at {model}")
    return run_timing_model(model, [asdict(run) for run in runs], latency, timeout)


def lockstep(prediction: dict, run: Run, got: SimResult) -> str | None:
    """The first disagreement between the model's prediction and the RTL trace, or None."""
    name = run.program.name
    if "error" in prediction:
        return f"{name}: {prediction['error']}"
    answer = prediction["prediction"]
    if not isinstance(answer, dict) or not _integers(answer.get("retire_cycles")) \
            or any(type(answer.get(k)) is not int for k in COUNTERS):
        return f"{name}: the model must return {SCHEMA}"
    cycles = answer["retire_cycles"]
    final = {k: answer[k] for k in COUNTERS}
    for i, (p, g) in enumerate(zip(cycles, got.cycles)):
        if p != g:
            return f"{name}: retirement {i} (pc 0x{run.retirements[i].pc:x}): model says cycle {p}, RTL retired at {g}"
    if len(cycles) != len(got.cycles):
        return f"{name}: model predicts {len(cycles)} retirements, RTL retired {len(got.cycles)}"
    for k, v in final.items():
        if got.counters.get(k) != v:
            return f"{name}: final counter {k}: model says {v}, RTL has {got.counters.get(k)}"
    return None


def _integers(value) -> bool:
    return isinstance(value, list) and all(type(c) is int for c in value)
