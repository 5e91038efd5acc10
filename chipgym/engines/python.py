"""Debian's Python 3, sandboxed, running a design's own timing model on runs of its workloads.

A timing model is a file defining ``predict(run, latency: dict[str, int]) -> dict``. In the sandbox it sees
each run as plain attributes (``run.retirements[i].mem_en``, ``run.final.halted``, ``run.pc``, ...), never
the checker's process or data, and answers ``retire_cycles`` and the final ``cycles``, ``retired`` and
``stalls`` counters, or ``{"error": ...}`` for a run it raised on.

The model runs in the process that writes the answers, so it can write any answer at all: what comes back is
read against the protocol's schema (:func:`read_predictions`), and anything else is the model's
:class:`~chipgym.errors.TimingModelError` naming what was wrong.

>>> read_predictions('[{"retire_cycles": [3, 5], "cycles": 7, "retired": 2, "stalls": 5}]', 1, as_is=False)
[{'retire_cycles': [3, 5], 'cycles': 7, 'retired': 2, 'stalls': 5}]
>>> read_predictions('[{"retire_cycles": 5, "cycles": 7, "retired": 2, "stalls": 5}]', 1, as_is=False)
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
chipgym.errors.TimingModelError: ... answer 0: retire_cycles is not a list of integers
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chipgym.engines.process import untrusted_json
from chipgym.engines.tools import run_tool
from chipgym.errors import TimingModelError

PYTHON = "/usr/bin/python3"  # Debian's: the sandbox shows /usr only
MEMORY = 2 << 30  # bytes of address space per process; a fixture's model on the cpu's public runs takes ~40 MiB
TOTAL_MEMORY = 2 << 30  # bytes of memory of a model's whole sandbox
PROCESSES = 16  # processes and threads of a model's sandbox (a model needs one)
MAX_ERROR = 2000  # characters of one error message kept
COUNTERS = ("cycles", "retired", "stalls")

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
                      readable=(model.resolve().parent,), memory=MEMORY, total_memory=TOTAL_MEMORY,
                      processes=PROCESSES)
    if not result.ok:
        raise TimingModelError(result.tail(5)[-MAX_ERROR:])
    return read_predictions(result.stdout, len(runs), as_is)


def read_predictions(text: str, runs: int, as_is: bool) -> list[dict]:
    """The answers in ``text`` for ``runs`` runs, each ``{"error": text}`` or, as the protocol says, the counters
    and ``retire_cycles`` (``{"prediction": any JSON}`` with ``as_is``); TimingModelError otherwise."""
    try:
        answers = untrusted_json(text)
        if not isinstance(answers, list) or len(answers) != runs:
            raise ValueError(f"not a list of {runs} answers")
        return [_answer(answer, as_is, index) for index, answer in enumerate(answers)]
    except ValueError as error:
        raise TimingModelError(f"the timing model's process wrote answers that break the protocol: {error}") from None


def _answer(answer: Any, as_is: bool, index: int) -> dict:
    """One run's answer, checked against the protocol (ValueError naming the run and the field at fault)."""
    if isinstance(answer, dict) and answer.keys() == {"error"} and isinstance(answer["error"], str):
        return {"error": answer["error"][:MAX_ERROR]}
    fields = {"prediction"} if as_is else {"retire_cycles", *COUNTERS}
    if not isinstance(answer, dict) or answer.keys() != fields:
        raise ValueError(f"answer {index}: not an object of {', '.join(sorted(fields))} or of error")
    if as_is:
        return answer
    cycles = answer["retire_cycles"]
    if not isinstance(cycles, list) or not all(type(c) is int for c in cycles):
        raise ValueError(f"answer {index}: retire_cycles is not a list of integers")
    if (wrong := next((k for k in COUNTERS if type(answer[k]) is not int), None)) is not None:
        raise ValueError(f"answer {index}: {wrong} is not an integer")
    return answer
