"""Timing-model lockstep: a design's own timing model must predict every delivery cycle of its RTL.

A NoC timing model is ``model/timing_model.py`` with ``predict(trace, params) -> dict``: ``trace.packets[i]``
has ``src``, ``dst``, ``release`` and ``flits`` (see :mod:`chipgym.tasks.chip.noc.traffic`), ``params`` is
``{"endpoints": N, "flit_bits": W}``, and it returns ``{"deliveries": [[cycle, ...] per endpoint],
"drained": cycle}`` for a run without ejection back-pressure. It runs sandboxed
(:mod:`chipgym.engines.python`).

>>> from chipgym.tasks.chip.noc.traffic import Packet, Trace
>>> from chipgym.tasks.chip.noc.testbench import SimResult
>>> t = Trace("demo", (Packet(0, 1, 0, (0x1,)),))
>>> got = SimResult({0: [], 1: [(2, 0x1, 1)]}, 2)
>>> lockstep({"prediction": {"deliveries": [[], [2]], "drained": 2}}, t, got, 2) is None
True
>>> lockstep({"prediction": {"deliveries": [[], [1]], "drained": 1}}, t, got, 2)
'demo: endpoint 1: flit 0: model says cycle 1, RTL delivered it at 2'
"""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from chipgym.engines.python import run_timing_model
from chipgym.errors import TimingModelError
from chipgym.tasks.chip.noc.arch import load_arch
from chipgym.tasks.chip.noc.testbench import SimResult
from chipgym.tasks.chip.noc.traffic import Trace


def params() -> dict[str, int]:
    arch = load_arch()
    return {"endpoints": arch.endpoints, "flit_bits": arch.flit_bits}


def predict(model: Path, traces: list[Trace], timeout: float = 120) -> list[dict]:
    """The model's raw answer for each trace (``{"prediction": ...}`` or ``{"error": ...}``), from the sandbox."""
    if not model.is_file():
        raise TimingModelError(f"no timing model at {model}")
    runs = [{"name": t.name, "packets": [asdict(p) for p in t.packets]} for t in traces]
    return run_timing_model(model, runs, params(), timeout)


def _cycles(value) -> list[int] | None:
    ok = isinstance(value, list) and all(type(c) is int for c in value)
    return value if ok else None


def lockstep(answer: dict, trace: Trace, got: SimResult, endpoints: int) -> str | None:
    """The first disagreement between the model's answer and the RTL's run without back-pressure, or None."""
    name = trace.name
    if "error" in answer:
        return f"{name}: {answer['error']}"
    p = answer.get("prediction")
    deliveries = p.get("deliveries") if isinstance(p, dict) else None
    if not isinstance(deliveries, list) or len(deliveries) != endpoints or type(p.get("drained")) is not int:
        return f"{name}: the model must return {{'deliveries': [{endpoints} lists of cycles], 'drained': cycle}}"
    for endpoint, predicted in enumerate(deliveries):
        if (cycles := _cycles(predicted)) is None:
            return f"{name}: endpoint {endpoint}: deliveries must be a list of integer cycles"
        actual = got.cycles(endpoint)
        for i, (c, a) in enumerate(zip(cycles, actual)):
            if c != a:
                return f"{name}: endpoint {endpoint}: flit {i}: model says cycle {c}, RTL delivered it at {a}"
        if len(cycles) != len(actual):
            return f"{name}: endpoint {endpoint}: model predicts {len(cycles)} flits, RTL delivered {len(actual)}"
    if p["drained"] != got.drained:
        return f"{name}: model says drained in cycle {p['drained']}, RTL drained in {got.drained}"
    return None
