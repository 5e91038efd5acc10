"""The scripted agent on chipgym/DrcScript-v0 (``chipgym.envs.drc_keywords.keyword_plan``): keyword rules
turn each rule sentence into a DSL check; candidates are chosen on the public examples. ``chipgym eval --agent
scripted`` runs the same agent in parallel episodes.

Run: .venv/bin/python examples/drc_scripted_agent.py [--tasks drc-v0] [--split test] [--group sky130] [--episodes 20]
"""

from __future__ import annotations

import argparse
from collections import Counter

import gymnasium

import chipgym  # noqa: F401
from chipgym.baselines.scripted import ScriptedAgent
from chipgym.wrappers import RecordEpisodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="drc-v0")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--split", default="test", choices=("train", "test", "all"))
    parser.add_argument("--group", help="only tasks of this group (sky130, synthetic, syntax)")
    parser.add_argument("--record", metavar="DIR", help="save every episode here, for `chipgym replay DIR/*.json`")
    args = parser.parse_args()
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=args.tasks, split=args.split, max_steps=40,
                         max_episode_steps=40)
    if args.record:
        env = RecordEpisodes(env, args.record)
    ids = env.unwrapped.task_ids(args.group)
    agent = ScriptedAgent("chipgym/DrcScript-v0")
    solved, tried = Counter(), Counter()
    for episode in range(args.episodes):
        obs, info = env.reset(seed=episode, options={"task": ids[episode % len(ids)]} if args.group else None)
        agent.reset(obs, info, seed=episode)
        terminated = truncated = False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info).action)
        tried[info["group"]] += 1
        solved[info["group"]] += reward == 1.0
        print(f"{info['task']:28} {info['group']:10} {'solved' if reward == 1.0 else 'failed':6}  "
              f"F1 {info['grade']['f1']:.2f}")
    env.close()
    total = sum(solved.values())
    groups = ", ".join(f"{g} {solved[g]}/{tried[g]}" for g in sorted(tried))
    print(f"scripted agent: {total}/{args.episodes} tasks solved ({total / args.episodes:.0%}); by group: {groups}")


if __name__ == "__main__":
    main()
