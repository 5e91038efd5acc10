"""Debian's Python 3, sandboxed, running a design's own timing model on runs of its workloads.

A timing model is a file defining ``predict(run, params: dict[str, int])``. In the sandbox it sees each run
of a workload as the task gives it, as plain attributes (the cpu's ``run.retirements[i].mem_en``,
``run.final.halted``, ...), never the checker's process or data, and its answer per run is whatever JSON
``predict`` returns, ``{"prediction": answer}``, or ``{"error": ...}`` for a run it raised on: the task reads
the answer against its own schema (what a prediction holds is the task's contract, not the engine's).

The model runs in the process that writes the answers, so it can write any answer at all: what comes back is
read against the loader's protocol (:func:`read_predictions`), and anything else is the model's
:class:`~chipgym.errors.TimingModelError` naming what was wrong.

>>> read_predictions('[{"prediction": {"cycles": 7}}, {"error": "timing model raised KeyError"}]', 2)
[{'prediction': {'cycles': 7}}, {'error': 'timing model raised KeyError'}]
>>> read_predictions('[{"cycles": 7}]', 1)
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
chipgym.errors.TimingModelError: ... answer 0: not an object of prediction or of error
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
    sys.exit(f"{sys.argv[1]} defines no predict(run, params)")
"""
PREDICT = _LOAD + r"""
results = []
for run in job["runs"]:
    try:
        p = model.predict(attrs(run), dict(job["params"]))
        json.dumps(p, allow_nan=False)
        results.append({"prediction": p})
    except Exception as e:
        results.append({"error": f"timing model raised {type(e).__name__}: {e}"})
json.dump(results, out)
"""


def run_timing_model(model: Path, runs: list[dict], params: dict[str, int], timeout: float) -> list[dict]:
    """The model's answer for each of ``runs`` (JSON-ready dicts): ``{"prediction": what predict returned}``
    (any JSON value, for the task to check) or ``{"error": ...}``; TimingModelError when it could not be loaded
    or run at all. ``params`` is the second argument of ``predict``."""
    job = json.dumps({"runs": runs, "params": params})
    result = run_tool([PYTHON, "-I", "-c", PREDICT, str(model.resolve())], stdin=job, timeout=timeout,
                      readable=(model.resolve().parent,), memory=MEMORY, total_memory=TOTAL_MEMORY,
                      processes=PROCESSES)
    if not result.ok:
        raise TimingModelError(result.tail(5)[-MAX_ERROR:])
    return read_predictions(result.stdout, len(runs))


def read_predictions(text: str, runs: int) -> list[dict]:
    """The answers in ``text`` for ``runs`` runs, each ``{"prediction": any JSON}`` or ``{"error": text}``;
    TimingModelError otherwise."""
    try:
        answers = untrusted_json(text)
        if not isinstance(answers, list) or len(answers) != runs:
            raise ValueError(f"not a list of {runs} answers")
        return [_answer(answer, index) for index, answer in enumerate(answers)]
    except ValueError as error:
        raise TimingModelError(f"the timing model's process wrote answers that break the protocol: {error}") from None


def _answer(answer: Any, index: int) -> dict:
    """One run's answer, checked against the protocol (ValueError naming the run at fault)."""
    if isinstance(answer, dict) and answer.keys() == {"error"} and isinstance(answer["error"], str):
        return {"error": answer["error"][:MAX_ERROR]}
    if not isinstance(answer, dict) or answer.keys() != {"prediction"}:
        raise ValueError(f"answer {index}: not an object of prediction or of error")
    return answer
