"""Baselines on ``chipgym/DrcTemplate-v0``: the success rate of the random policy (over the mask, a few seeds) and
the heuristic policy on drc-v0's test and train splits, and of ``examples/drc_scripted_agent.py`` (which
writes decks on ``chipgym/DrcScript-v0`` and may run them on the public examples) on the test split.

Every task of a split is played once per policy, in the evaluation regime (one submit per task, graded on
the hidden layouts themselves, as the template ceiling is). Prints one row per policy and split, by group.

Run: CHIPGYM_CACHE=... .venv/bin/python benchmarks/drc_template_baselines.py [--splits test train] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections import Counter
from pathlib import Path
from typing import Callable

import gymnasium

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.baselines.drc_policies import HeuristicPolicy, RandomPolicy

GROUPS = ("sky130", "synthetic", "syntax")
SCRIPTED = Path(__file__).resolve().parents[1] / "examples" / "drc_scripted_agent.py"


def template_success(policy: Callable, split: str) -> Counter:
    """Tasks solved and played, by group, of ``policy`` on every task of ``split``."""
    env = gymnasium.make("chipgym/DrcTemplate-v0", tasks="drc-v0", split=split, regime="evaluation")
    tally: Counter = Counter()
    for task_id in env.unwrapped.task_ids():
        obs, info = env.reset(seed=0, options={"task": task_id})
        _, reward, _, _, info = env.step(policy(obs, info))
        tally[info["group"], "played"] += 1
        tally[info["group"], "solved"] += reward == 1.0
    env.close()
    return tally


def scripted_success(split: str) -> Counter:
    spec = importlib.util.spec_from_file_location("drc_scripted_agent", SCRIPTED)
    agent = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agent)
    env = gymnasium.make("chipgym/DrcScript-v0", tasks="drc-v0", split=split, regime="evaluation", max_steps=40,
                         max_episode_steps=40)
    tally: Counter = Counter()
    for task_id in env.unwrapped.task_ids():
        obs, _ = env.reset(seed=0, options={"task": task_id})
        reward, info = agent.play_episode(env, obs)
        tally[info["group"], "played"] += 1
        tally[info["group"], "solved"] += reward == 1.0
    env.close()
    return tally


def row(name: str, split: str, tally: Counter, seconds: float) -> str:
    solved, played = (sum(tally[g, k] for g in GROUPS) for k in ("solved", "played"))
    groups = "  ".join(f"{tally[g, 'solved']:>3}/{tally[g, 'played']:<3}" for g in GROUPS)
    return f"{name:<18} {split:<5} {solved:>4}/{played:<4} {solved / max(played, 1):>6.1%}  {groups}  {seconds:>5.0f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", nargs="+", default=["test", "train"], choices=("test", "train"))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--no-scripted", action="store_true", help="skip the scripted agent")
    args = parser.parse_args()
    print(f"{'policy':<18} {'split':<5} {'solved':>9} {'rate':>6}  " + "  ".join(f"{g:<7}" for g in GROUPS)
          + "   time", flush=True)
    for split in args.splits:
        runs = [("heuristic", lambda: template_success(HeuristicPolicy(), split))]
        runs += [(f"random seed {seed}", lambda seed=seed: template_success(RandomPolicy(seed), split))
                 for seed in args.seeds]
        if split == "test" and not args.no_scripted:
            runs.append(("scripted (example)", lambda: scripted_success(split)))
        for name, run in runs:
            start = time.perf_counter()
            tally = run()
            print(row(name, split, tally, time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
