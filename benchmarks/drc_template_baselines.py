"""Baselines on ``chipgym/DrcTemplate-v0``: the success rate of the random policy (over the mask, a few seeds) and
the heuristic policy on drc-v0's test and train splits, and of the scripted agent of ``examples/drc_scripted_agent.py``
(``chipgym.envs.drc_keywords.keyword_plan``, which writes decks on ``chipgym/DrcScript-v0`` and may run them on
the public examples) on the test split.

Every task of a split is played once per policy, in the evaluation regime (one submit per task, graded on
the hidden layouts themselves, as the template ceiling is). Prints one row per policy and split, by group.

Run: CHIPGYM_CACHE=... .venv/bin/python benchmarks/drc_template_baselines.py [--splits test train] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import time

import gymnasium

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.baselines.agent import Agent
from chipgym.baselines.drc_policies import HeuristicPolicy, RandomPolicy
from chipgym.baselines.policy_evaluation import Policy, TaskSuccess, success_on_every_task
from chipgym.baselines.scripted import ScriptedAgent

GROUPS = ("sky130", "synthetic", "syntax")
TEMPLATE_ENV = "chipgym/DrcTemplate-v0"


def success(env_id: str, policy: Policy, split: str, **kwargs) -> TaskSuccess:
    """``policy`` played once on every task of drc-v0's ``split``, in the evaluation regime."""
    env = gymnasium.make(env_id, tasks="drc-v0", split=split, regime="evaluation", **kwargs)
    try:
        return success_on_every_task(env, policy)
    finally:
        env.close()


def agent_policy(agent: Agent) -> Policy:
    """A chat-style agent as a policy: it starts a new episode whenever the env's info says step 0."""
    def policy(observation, info):
        if info["step"] == 0:
            agent.reset(observation, info, seed=0)
        return agent.act(observation, info).action
    return policy


def row(name: str, split: str, result: TaskSuccess, seconds: float) -> str:
    solved = {g: sum(result.rewards[t] >= 1.0 for t, tg in result.groups.items() if tg == g) for g in GROUPS}
    played = {g: sum(tg == g for tg in result.groups.values()) for g in GROUPS}
    groups = "  ".join(f"{solved[g]:>3}/{played[g]:<3}" for g in GROUPS)
    total_solved, total = sum(solved.values()), len(result.rewards)
    return (f"{name:<18} {split:<5} {total_solved:>4}/{total:<4} {total_solved / max(total, 1):>6.1%}  {groups}  "
            f"{seconds:>5.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", nargs="+", default=["test", "train"], choices=("test", "train"))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--no-scripted", action="store_true", help="skip the scripted agent")
    args = parser.parse_args()
    print(f"{'policy':<18} {'split':<5} {'solved':>9} {'rate':>6}  " + "  ".join(f"{g:<7}" for g in GROUPS)
          + "   time", flush=True)
    for split in args.splits:
        runs = [("heuristic", lambda: success(TEMPLATE_ENV, HeuristicPolicy(), split))]
        runs += [(f"random seed {seed}", lambda seed=seed: success(TEMPLATE_ENV, RandomPolicy(seed), split))
                 for seed in args.seeds]
        if split == "test" and not args.no_scripted:
            scripted = agent_policy(ScriptedAgent("chipgym/DrcScript-v0"))
            runs.append(("scripted (example)", lambda: success(
                "chipgym/DrcScript-v0", scripted, split, max_steps=40, max_episode_steps=40)))
        for name, run in runs:
            start = time.perf_counter()
            result = run()
            print(row(name, split, result, time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
