"""A scripted agent that finds a broken core's bug through ``simulate`` alone, on chipgym/RtlDesign-v0.

It patches a mutant from ``chipgym/tasks/chip/cpu/mutants`` over its fixture (the broken design it is given),
then debugs it as an engineer would, reading only the observations' text: it steps each public program in
windows of 5,000 cycles (``continue``) until the retirements part from the reference's, reads the first
divergence (retirement, cycle, field), steps that program again to a few cycles before it and looks at the
signals there, and names the instruction whose result it used: the source register that was stale.

Run: .venv/bin/python examples/debug_with_simulate.py [--mutant no_mem_forwarding] [--png window.png]
"""

from __future__ import annotations

import argparse
import re

import gymnasium

import chipgym  # noqa: F401
from chipgym.envs import rtl_actions as act
from chipgym.tasks.chip.registry import load_task

DIVERGENCE = re.compile(r"(?P<program>\S+): retirement (?P<index>\d+) \(pc (?P<pc>0x[0-9a-f]+): (?P<insn>[^,]+(?:, "
                        r"[^,)]+)*), cycle (?P<cycle>\d+)\): field (?P<field>\w+) expected (?P<expected>\S+) got "
                        r"(?P<got>\S+)")
ROW = re.compile(r"#(?P<index>\d+) cycle (?P<cycle>\d+): pc (?P<pc>0x[0-9a-f]+) (?P<insn>.*?)"
                 r"(?: -> r(?P<rd>\d+)=(?P<value>0x[0-9a-f]+))?(?: \[.*?\])? \|")
WINDOW = 5000
BEFORE = 8  # cycles shown before the divergence


def first_divergence(env, program: str) -> re.Match | None:
    """Steps ``program`` window by window until the design parts from the reference or the run ends."""
    obs, *_, info = env.step(act.simulate(program, cycles=WINDOW, signals=["ret_valid"]))
    while info["status"] == "ok" and info["simulate"]["divergence"] is None and info["simulate"]["ended"] is None:
        obs, *_, info = env.step(act.simulate(continue_=True, cycles=WINDOW, signals=["ret_valid"]))
    if info["status"] != "ok":
        raise SystemExit(f"simulate failed: {obs['feedback']}")
    found = info["simulate"]["divergence"]
    return DIVERGENCE.match(found) if found else None


def main() -> None:
    mutants = load_task("cpu").mutants
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutant", default="no_mem_forwarding", choices=sorted(mutants))
    parser.add_argument("--png", help="draw the window around the divergence into this file")
    args = parser.parse_args()
    mutant = mutants[args.mutant]
    env = gymnasium.make("chipgym/RtlDesign-v0", formal=False, render_mode="rgb_array", max_steps=200,
                         max_episode_steps=200)
    try:
        obs, _ = env.reset(seed=0, options={"start": mutant.fixture})
        for file, old, new in mutant.edits:
            env.step(act.patch(file, old, new))
        names = re.findall(r"^(\S+): \d+ words", obs["workloads"], re.M)  # the public programs
        for program in names:
            divergence = first_divergence(env, program)
            print(f"{program}: {'diverges' if divergence else 'matches the reference'}")
            if divergence:
                break
        else:
            print("every public program matches the reference: simulate found no bug")
            return
        d = divergence.groupdict()
        cycle = int(d["cycle"])
        print(f"\nFirst divergence: {divergence.group(0)}")
        signals = ["ret_pc", "ret_rd", "ret_rd_wdata", "*_rd", "*_rs*", "regs[*]"]
        obs, *_, info = env.step(act.simulate(d["program"], start=max(0, cycle - BEFORE), cycles=BEFORE + 2,
                                              signals=signals))
        print(f"\nThe window around it ({len(obs['feedback'].splitlines())} lines):\n{obs['feedback']}")
        if args.png:
            import matplotlib.pyplot as plt

            plt.imsave(args.png, env.render())
            print(f"\nwrote {args.png}")
        rows = [m.groupdict() for m in map(ROW.match, obs["feedback"].splitlines()) if m]
        print("\nDiagnosis: " + diagnose(d, rows))
    finally:
        env.close()


def diagnose(divergence: dict, rows: list[dict]) -> str:
    """Which earlier instruction wrote a source register of the diverging one, and how far behind it was."""
    index = int(divergence["index"])
    sources = re.findall(r"r(\d+)", divergence["insn"].partition(" ")[2])[1:]  # the operands after rd
    what = (f"{divergence['insn']} at pc {divergence['pc']} (retirement {index}, cycle {divergence['cycle']}) "
            f"got {divergence['field']} {divergence['got']}, expected {divergence['expected']}")
    for row in reversed([r for r in rows if int(r["index"]) < index]):
        if row["rd"] is not None and row["rd"] in sources:
            distance = index - int(row["index"])
            return (f"{what}. It reads r{row['rd']}, which {row['insn']} (pc {row['pc']}) wrote {distance} "
                    f"instruction(s) before it, {int(divergence['cycle']) - int(row['cycle'])} cycle(s) earlier: "
                    f"the core used a stale r{row['rd']}; look at the forwarding or the stall for an instruction "
                    f"{distance} behind its producer.")
    return f"{what}. No instruction in the window wrote its sources: look at how it computes its result."


if __name__ == "__main__":
    main()
