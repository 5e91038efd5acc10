"""Env steps per second of PPO training with 1 and 2 RLlib env runners, side by side, on the DRC template env
(and the CPU knob env with ``--knobs``).

    .venv/bin/python benchmarks/rllib_rollouts.py [--iterations 4] [--batch 64] [--runners 1 2] [--knobs]

Each configuration trains ``--iterations`` PPO iterations of ``--batch`` env steps on one fresh local Ray of
two CPUs; the first iteration (env runners building their envs and KLayout pools) is left out. Steps per
second are env steps over the wall time of the iterations, sampling and learning together. The DRC env
samples drc-v0's train split (each step compiles a deck, runs it on the public examples and grades it on
fresh layouts). The knob env runs the real flow for each design not in ``$CHIPGYM_CACHE``: its figure is
only meaningful on a warm cache.

Measured here, 2 cores otherwise idle (``--iterations 4 --batch 64 --knobs``, the knob designs cached):
DrcTemplate-v0 9.3 env steps/s with 1 env runner, 10.7 with 2; CpuKnobs-v0 19.1 and 34.8. Under a load average
of about 14, DrcTemplate-v0 gave 0.99 and 1.89.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import ray

from chipgym.baselines.ppo import PpoRun, train

ENVS = {"drc": ("chipgym/DrcTemplate-v0", {"tasks": "drc-v0", "split": "train"}),
        "knobs": ("chipgym/CpuKnobs-v0", {"profile": "osu018", "evaluations": 8})}


def measure(env: str, runners: int, iterations: int, batch: int) -> dict:
    env_id, kwargs = ENVS[env]
    with tempfile.TemporaryDirectory() as out:
        run = PpoRun(env_id, kwargs, out=out, iterations=iterations, num_env_runners=runners,
                     train_batch_size=batch, checkpoint_every=iterations)
        start = time.monotonic()
        metrics = train(run, progress=lambda line: print(f"  [{env}, {runners} runner(s)] {line}", flush=True))
        total = time.monotonic() - start
    timed = metrics[1:]
    steps, seconds = sum(m.env_steps for m in timed), sum(m.seconds for m in timed)
    return {"env": env, "runners": runners, "steps": steps, "seconds": seconds, "steps_per_s": steps / seconds,
            "wall_s": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--knobs", action="store_true", help="also the CPU knob env (warm cache only)")
    args = parser.parse_args()
    if args.iterations < 2:
        parser.error("--iterations must be at least 2 (the first is warm-up)")
    rows = []
    for env in ["drc", "knobs"] if args.knobs else ["drc"]:
        for runners in args.runners:
            ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR",
                     log_to_driver=False)
            try:
                rows.append(measure(env, runners, args.iterations, args.batch))
            finally:
                ray.shutdown()
    print(f"\nPPO, {args.batch} env steps per iteration, iterations 2-{args.iterations} timed, 2 CPUs for Ray")
    print("| env | env runners | env steps | seconds | env steps/s | wall s (with warm-up) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {ENVS[r['env']][0]} | {r['runners']} | {r['steps']} | {r['seconds']:.1f} | {r['steps_per_s']:.2f} "
              f"| {r['wall_s']:.0f} |")


if __name__ == "__main__":
    main()
