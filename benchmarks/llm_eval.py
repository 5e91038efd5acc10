"""The scripted and random agents of ``chipgym eval`` on drc-v0's test split, with 1 and 2 Ray workers: their
success rate, and steps per second end to end (Ray's start and each actor's env, suite loading included) and
per episode-second (the steps over the time the episodes themselves took, summed over the workers).

Run: CHIPGYM_CACHE=... .venv/bin/python benchmarks/llm_eval.py [--limit K] [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from chipgym.baselines.evaluation import EvalRun, episode_specs, evaluate

ENV = "chipgym/DrcScript-v0"
KWARGS = {"tasks": "drc-v0", "split": "test", "regime": "evaluation"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first K test tasks (default: all 83)")
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="chipgym-llm-eval-"))
    args = parser.parse_args()
    specs = episode_specs(ENV, KWARGS, args.limit)
    print(f"{'agent':9} {'workers':>7} {'episodes':>8} {'success':>8} {'errors':>7} {'steps':>6} {'wall s':>7} "
          f"{'steps/s':>8} {'steps/ep-s':>10}")
    for agent in ("scripted", "random"):
        for workers in (1, 2):
            out = Path(args.out) / f"{agent}-{workers}"
            figures = evaluate(EvalRun(ENV, KWARGS, agent, specs, out, workers, progress=False))["all"]
            per_episode_second = figures["steps"] / figures["episode_seconds"] if figures["episode_seconds"] else 0
            print(f"{agent:9} {workers:>7} {figures['episodes']:>8} {figures['success_rate']:>8.1%} "
                  f"{figures['error_rate']:>7.1%} {figures['steps']:>6} {figures['wall_seconds']:>7.1f} "
                  f"{figures['steps_per_second']:>8.2f} {per_episode_second:>10.2f}", flush=True)
    print(f"logs under {args.out}")


if __name__ == "__main__":
    main()
