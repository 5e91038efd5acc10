"""Timing-model lockstep: replay a design's own timing model against its RTL trace.

A timing model is ``model/timing_model.py`` with
``predict(run, latency: dict[str, int]) -> dict`` (``run`` has the fields of ``reference.Run``) returning
``retire_cycles`` (the cycle of every retirement) and the final ``cycles``, ``retired``
and ``stalls`` counters, for a run without random stalls.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from chipgym.errors import TimingModelError
from chipgym.tasks.chip.cpu.reference import Run
from chipgym.tasks.chip.cpu.testbench import SimResult
from chipgym.engines.tools import run_tool

PYTHON = "/usr/bin/python3"  # Debian's: the sandbox shows /usr only


# Runs in the sandbox under Debian's python3: the design's model sees each run as plain attributes
# (run.retirements[i].mem_en, run.final.halted, run.pc, ...), never the checker's process or data.
PREDICT = r"""
import importlib.util, json, os, sys
from types import SimpleNamespace

def attrs(v):
    if isinstance(v, dict):
        items = {k: attrs(x) for k, x in v.items()}
        return SimpleNamespace(**items) if items and all(k.isidentifier() for k in items) else items
    return [attrs(x) for x in v] if isinstance(v, list) else v

out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
job = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("timing_model", sys.argv[1])
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)
if not callable(getattr(model, "predict", None)):
    sys.exit(f"{sys.argv[1]} defines no predict(run, latency)")
results = []
for run in job["runs"]:
    try:
        p = model.predict(attrs(run), dict(job["latency"]))
        results.append({"retire_cycles": [int(c) for c in p["retire_cycles"]],
                        **{k: int(p[k]) for k in ("cycles", "retired", "stalls")}})
    except Exception as e:
        results.append({"error": f"timing model raised {type(e).__name__}: {e}"})
json.dump(results, out)
"""


def predict(model: Path, runs: list[Run], latency: dict[str, int], timeout: float = 120) -> list[dict]:
    """The model's prediction for each run (or ``{"error": ...}``), computed in the sandbox."""
    if not model.is_file():
        raise TimingModelError(f"no timing model at {model}")
    job = json.dumps({"runs": [asdict(run) for run in runs], "latency": latency})
    result = run_tool([PYTHON, "-I", "-c", PREDICT, str(model.resolve())], stdin=job, timeout=timeout,
                      readable=(model.resolve().parent,))
    if not result.ok:
        raise TimingModelError(result.tail(5))
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        raise TimingModelError("the timing model's process wrote no readable predictions") from None


def lockstep(prediction: dict, run: Run, got: SimResult) -> str | None:
    """The first disagreement between the model's prediction and the RTL trace, or None."""
    name = run.program.name
    if "error" in prediction:
        return f"{name}: {prediction['error']}"
    cycles = prediction["retire_cycles"]
    final = {k: prediction[k] for k in ("cycles", "retired", "stalls")}
    for i, (p, g) in enumerate(zip(cycles, got.cycles)):
        if p != g:
            return f"{name}: retirement {i} (pc 0x{run.retirements[i].pc:x}): model says cycle {p}, RTL retired at {g}"
    if len(cycles) != len(got.cycles):
        return f"{name}: model predicts {len(cycles)} retirements, RTL retired {len(got.cycles)}"
    for k, v in final.items():
        if got.counters.get(k) != v:
            return f"{name}: final counter {k}: model says {v}, RTL has {got.counters.get(k)}"
    return None
