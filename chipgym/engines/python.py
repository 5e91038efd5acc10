"""Debian's Python 3, sandboxed, running a design's own timing model on runs of its workloads.

A timing model is a file defining ``predict(run, latency: dict[str, int]) -> dict``. In the sandbox it sees
each run as plain attributes (``run.retirements[i].mem_en``, ``run.final.halted``, ``run.pc``, ...), never
the checker's process or data, and answers ``retire_cycles`` and the final ``cycles``, ``retired`` and
``stalls`` counters, or ``{"error": ...}`` for a run it raised on.
"""
from __future__ import annotations

import json
from pathlib import Path

from chipgym.engines.tools import run_tool
from chipgym.errors import TimingModelError

PYTHON = "/usr/bin/python3"  # Debian's: the sandbox shows /usr only

_LOAD = r"""
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
"""
PREDICT = _LOAD + r"""
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
PREDICT_AS_IS = _LOAD + r"""
results = []
for run in job["runs"]:
    try:
        p = model.predict(attrs(run), dict(job["latency"]))
        json.dumps(p, allow_nan=False)
        results.append({"prediction": p})
    except Exception as e:
        results.append({"error": f"timing model raised {type(e).__name__}: {e}"})
json.dump(results, out)
"""


def run_timing_model(model: Path, runs: list[dict], latency: dict[str, int], timeout: float,
                     as_is: bool = False) -> list[dict]:
    """The model's prediction for each of ``runs`` (JSON-ready dicts), or TimingModelError when it could not
    be loaded or run at all. ``latency`` is the second argument of ``predict``. With ``as_is``, each result is
    ``{"prediction": what predict returned}`` (any JSON value, for the task to check) or ``{"error": ...}``."""
    job = json.dumps({"runs": runs, "latency": latency})
    script = PREDICT_AS_IS if as_is else PREDICT
    result = run_tool([PYTHON, "-I", "-c", script, str(model.resolve())], stdin=job, timeout=timeout,
                      readable=(model.resolve().parent,))
    if not result.ok:
        raise TimingModelError(result.tail(5))
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        raise TimingModelError("the timing model's process wrote no readable predictions") from None
