"""The calibration table of ``chipgym/CpuKnobs-v0``: every distinct design of the knob space, once, by the real flow.

    .venv/bin/python benchmarks/cpu_knob_calibration.py [--profile osu018 [asap7]] [--out /tmp/cpu-knobs.json]
        [--fastest-first] [--periods 0 1 2]

Each design is evaluated by one step of the env (the generator, then the check with formal, synthesis,
timing at the declared period and gate-level energy, through the disk cache: a design scored before costs
nothing). Designs are taken slowest period first, so a partial run already covers every design at the
period where most meet timing. ``--fastest-first`` walks the other way, so a second run beside a first one
shares the work through the cache; ``--periods`` keeps the designs at some period indices only. Prints a
row per design as it is scored (knobs, outcome, T, E, A, cost, reward, seconds) and a Markdown table at the
end; ``--out`` keeps the rows as JSON, rewritten after each. A profile whose cell library is missing (asap7
without ``chipgym pdk install asap7``) is skipped.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.errors import ProfileMissingError
from chipgym.scoring.profile import load_profile
from chipgym.tasks.chip.cpu.generator import PERIODS_PS, designs

COLUMNS = ("design", "period_ps", "slack_ps", "status", "T_us", "E_nJ", "A_um2", "cost", "reward", "seconds")


def calibrate(profile: str, rows: list[dict], out: Path | None, fastest_first: bool = False,
              periods: list[int] | None = None) -> None:
    """Score every design under ``profile`` (at the ``periods`` indices), appending a row per design to ``rows``."""
    order = sorted((k for k in designs() if periods is None or k.period in periods), key=lambda k: -k.period)
    order = order[::-1] if fastest_first else order
    env = gymnasium.make("chipgym/CpuKnobs-v0", profile=profile, evaluations=len(order)).unwrapped
    env.reset(seed=0)
    try:
        for knobs in order:
            start = time.monotonic()
            _, reward, _, _, info = env.step(knobs.to_action())
            failure = info["failures"][0] if info["failures"] else None
            row = {"profile": profile, **{k: info.get(k) for k in COLUMNS}, "reward": reward,
                   "seconds": round(time.monotonic() - start, 1), "action": knobs.to_action(),
                   "failure": failure and f"{failure[0]}: {failure[1][:120]}", "reason": info.get("reason")}
            rows.append(row)
            print(json.dumps(row), flush=True)
            if out:
                out.write_text(json.dumps(rows, indent=1))
    finally:
        env.close()


def _number(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def markdown(rows: list[dict]) -> str:
    lines = ["| profile | design | period ps | slack ps | outcome | T us | E nJ | A um^2 | cost | reward | seconds |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        outcome = r["status"] if r["status"] == "ok" else f"{r['status']}: {(r['failure'] or r['reason'] or '')[:40]}"
        lines.append(f"| {r['profile']} | {r['design']} | {r['period_ps']} | {_number(r.get('slack_ps'), '.0f')} | "
                     f"{outcome.split(' ps at ')[0]} | {_number(r['T_us'], '.1f')} | "
                     f"{_number(r['E_nJ'], '.0f')} | {_number(r['A_um2'], '.0f')} | {_number(r['cost'], '.3f')} | "
                     f"{r['reward']:.4f} | {r['seconds']:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", nargs="+", default=["osu018"], choices=sorted(PERIODS_PS))
    parser.add_argument("--out", type=Path, default=None, help="JSON file of the rows")
    parser.add_argument("--fastest-first", action="store_true", help="the shortest clock periods first")
    parser.add_argument("--periods", type=int, nargs="+", default=None, help="period indices (default: all)")
    args = parser.parse_args()
    rows: list[dict] = []
    start = time.monotonic()
    for profile in args.profile:
        try:
            load_profile(profile).require_files()
        except ProfileMissingError as error:
            print(f"skipping {profile}: {error}", flush=True)
            continue
        calibrate(profile, rows, args.out, args.fastest_first, args.periods)
    print(markdown(rows))
    print(f"{len(rows)} designs in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
