"""A random agent on chipgym/DrcScript-v0: random Text actions (as check_env sends them), now and then a submit.

It never writes a working deck, so its success rate is 0: the floor any agent should beat. It shows that
malformed actions are feedback, not crashes. Run: .venv/bin/python examples/drc_random_agent.py [--episodes 20]
"""

from __future__ import annotations

import argparse
import random

import gymnasium

import chipgym  # noqa: F401
from chipgym.envs import drc_actions as act


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--tasks", default="drc-v0")
    args = parser.parse_args()
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=args.tasks, split="test", max_steps=6)
    env.action_space.seed(0)
    rng = random.Random(0)
    successes = rejected = 0
    for episode in range(args.episodes):
        env.reset(seed=episode)
        terminated = truncated = False
        while not (terminated or truncated):
            action = act.submit() if rng.random() < 0.2 else env.action_space.sample()
            _, reward, terminated, truncated, info = env.step(action)
            rejected += "action_error" in info
        successes += reward == 1.0
    env.close()
    print(f"random agent: {successes}/{args.episodes} tasks solved ({successes / args.episodes:.0%}), "
          f"{rejected} malformed actions rejected as feedback")


if __name__ == "__main__":
    main()
