"""Random search against grid search on ``chipgym/CpuKnobs-v0`` at equal evaluations, averaged over seeds.

    .venv/bin/python benchmarks/cpu_knob_search.py [--evaluations 8] [--seeds 0 1 2] [--profile osu018]

Prints each search's best reward per seed, the mean and standard deviation over seeds, and the best reward
of the whole knob space (every distinct design scored once: slow the first time, then from the cache, as
after ``benchmarks/cpu_knob_calibration.py``). PPO's figure at the same evaluations is what ``chipgym train
chip`` reports; :func:`chipgym.baselines.knob_search.compare` gives these figures to code.
"""
from __future__ import annotations

import argparse
import time

from chipgym.baselines.knob_search import compare, grid_actions, mean_best, play
from chipgym.tasks.chip.cpu.generator import PERIODS_PS, designs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=8)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--profile", default="osu018", choices=sorted(PERIODS_PS))
    parser.add_argument("--no-optimum", action="store_true", help="skip scoring the whole space")
    args = parser.parse_args()
    start = time.monotonic()
    for name, results in compare(args.evaluations, args.seeds, args.profile).items():
        mean, std = mean_best(results)
        per_seed = ", ".join(f"seed {r.seed}: {r.best_reward:.4f} ({r.best_design or 'none'})" for r in results)
        print(f"{name} search, {args.evaluations} evaluations: mean best reward {mean:.4f} +- {std:.4f} [{per_seed}]")
    if not args.no_optimum:
        every = len(designs())
        best = play("grid", grid_actions(every, 0), 0, args.profile)
        print(f"best of all {every} designs: {best.best_reward:.4f} ({best.best_design})")
    print(f"{time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
