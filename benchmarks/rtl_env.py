"""Speed of chipgym/RtlDesign-v0: median step times of reset, write, check and submit.

Checks and submits run on the multicycle fixture with a numbered comment appended to its RTL, so the
cold figures are for a design no cache has seen (a Verilator build, the simulations, formal unless
``--no-formal``); the cached figures repeat the same content. Each cold check builds a core (~5-20 s).

Run: .venv/bin/python benchmarks/rtl_env.py [--repeats 3] [--no-formal] [--no-submit]
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid

from chipgym.envs import rtl_actions as act
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.tasks.chip.registry import load_task

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

RTL = "rtl/chipgym_cpu.v"
RUN = uuid.uuid4().hex[:8]  # keeps this run's designs out of every cache, also across runs


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def submit_seconds(env: RtlDesignEnv, statuses: list[str]) -> float:
    """Times a submit and notes its status (an unavailable score is not cached)."""
    start = time.perf_counter()
    *_, info = env.step(act.submit())
    statuses.append(info["status"])
    return time.perf_counter() - start


def report(name: str, samples: list[float]) -> None:
    print(f"{name:<16} median {1000 * statistics.median(samples):9.1f} ms  ({len(samples)} runs)")


def start(env: RtlDesignEnv, variant: int) -> None:
    """Starts an episode from the multicycle fixture with its RTL's ``variant``: new to every cache the first time."""
    env.reset(seed=0, options={"start": "multicycle"})
    text = (FIXTURES / "multicycle" / RTL).read_text()
    env.step(act.write(RTL, f"{text}// benchmark {RUN} {variant}\n"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-formal", action="store_true")
    parser.add_argument("--no-submit", action="store_true")
    args = parser.parse_args()
    env = RtlDesignEnv(formal=not args.no_formal, max_steps=1000)
    try:
        report("reset", [timed(lambda: env.reset(seed=0, options={"start": "pipelined"})) for _ in range(20)])
        text = (env.root / RTL).read_text()
        report("write", [timed(lambda: env.step(act.write(RTL, text))) for _ in range(20)])
        cold, cached = [], []
        for variant in range(args.repeats):
            start(env, variant)
            cold.append(timed(lambda: env.step(act.check())))
            cached.append(timed(lambda: env.step(act.check())))
        report("check (cold)", cold)
        report("check (cached)", cached)
        if args.no_submit:
            return
        cold, cached, statuses = [], [], []
        for variant in range(args.repeats, 2 * args.repeats):
            start(env, variant)
            cold.append(submit_seconds(env, statuses))
            start(env, variant)
            cached.append(submit_seconds(env, statuses))
        report("submit (cold)", cold)
        report("submit (cached)", cached)
        print(f"submit statuses: {', '.join(statuses)}")
    finally:
        env.close()


if __name__ == "__main__":
    main()
