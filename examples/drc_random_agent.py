"""The random agent on chipgym/DrcScript-v0 (``chipgym.baselines.random_text.RandomTextAgent``): random Text
actions, now and then a submit. Its success rate is 0: the floor any agent should beat. It shows that malformed
actions are feedback, not crashes. Run: .venv/bin/python examples/drc_random_agent.py [--episodes 20]
"""

from __future__ import annotations

import argparse

import gymnasium

import chipgym  # noqa: F401
from chipgym.baselines.random_text import RandomTextAgent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--tasks", default="drc-v0")
    args = parser.parse_args()
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=args.tasks, split="test", max_steps=6)
    agent = RandomTextAgent()
    successes = rejected = 0
    for episode in range(args.episodes):
        obs, info = env.reset(seed=episode)
        agent.reset(obs, info, seed=episode)
        terminated = truncated = False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info).action)
            rejected += "action_error" in info
        successes += reward == 1.0
    env.close()
    print(f"random agent: {successes}/{args.episodes} tasks solved ({successes / args.episodes:.0%}), "
          f"{rejected} malformed actions rejected as feedback")


if __name__ == "__main__":
    main()
