"""The scripted agent on chipgym/RtlDesign-v0 (its env's ``scripted_plan``): start from each
fixture, check it, submit it.

It prints, per fixture, the check's verdict and the graded reward with delay (T), energy (E) and area (A),
so the pipelined and the multicycle core can be compared. Without a grading seed (``--grading-seed`` or
``$CHIPGYM_GRADING_SEED``) the held-out kernels come from a public-derived seed: not an evaluation.

Run: .venv/bin/python examples/rtl_fixture_agent.py [--profile osu018] [--grading-seed N]
"""

from __future__ import annotations

import argparse

import gymnasium

import chipgym  # noqa: F401
from chipgym.baselines.scripted import ScriptedAgent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="osu018")
    parser.add_argument("--grading-seed", type=int, default=None)
    args = parser.parse_args()
    env = gymnasium.make("chipgym/RtlDesign-v0", task="cpu", profile=args.profile, grading_seed=args.grading_seed)
    try:
        agent = ScriptedAgent("chipgym/RtlDesign-v0")
        for start in ("multicycle", "pipelined"):
            obs, info = env.reset(seed=0, options={"start": start})
            agent.reset(obs, info, seed=0)
            obs, _, _, _, info = env.step(agent.act(obs, info).action)
            print(f"{start}: {obs['feedback'].splitlines()[0]}")
            _, reward, _, _, info = env.step(agent.act(obs, info).action)
            score = info.get("score", {})
            tea = ", ".join(f"{k} {score[k]:.4g}" for k in ("T_us", "E_nJ", "A_um2") if k in score)
            print(f"{start}: reward {reward:.4g} ({info['status']}; {tea}; graded with {info['graded_with']})")
            if info["status"] != "ok":
                print(f"  {info.get('reason') or info.get('failures')}")
    finally:
        env.close()


if __name__ == "__main__":
    main()
