"""A scripted agent on chipgym/RtlDesign-v0 that submits a broken core: it patches a mutant from
``chipgym/tasks/chip/cpu/mutants`` over the multicycle fixture, checks it, submits, and prints reward 0
and the reason.

Run: .venv/bin/python examples/rtl_mutant_agent.py [--mutant zero_extended_imm]
"""

from __future__ import annotations

import argparse

import gymnasium

import chipgym  # noqa: F401
from chipgym.envs import rtl_actions as act
from chipgym.tasks.chip.registry import load_task


def main() -> None:
    mutants = {name: m for name, m in load_task("cpu").mutants.items() if m.fixture == "multicycle"}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutant", default="zero_extended_imm", choices=sorted(mutants))
    args = parser.parse_args()
    mutant = mutants[args.mutant]
    env = gymnasium.make("chipgym/RtlDesign-v0", task="cpu")
    try:
        env.reset(seed=0, options={"start": mutant.fixture})
        for file, old, new in mutant.edits:
            env.step(act.patch(file, old, new))
        obs, *_ = env.step(act.check())
        print(f"{mutant.name} ({mutant.breaks}): {obs['feedback'].splitlines()[0]}")
        obs, reward, _, _, info = env.step(act.submit())
        print(f"reward {reward:g} ({info['status']}): {obs['feedback']}")
    finally:
        env.close()


if __name__ == "__main__":
    main()
