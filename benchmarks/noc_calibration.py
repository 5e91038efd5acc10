"""Calibration of the NoC fixtures: check times, then period, slack, cells, A, T, E and reward per fixture and
profile, printed as the table of docs/noc.md.

    .venv/bin/python benchmarks/noc_calibration.py [--profiles osu018 asap7] [--fixtures crossbar mesh]

Each fixture's check runs in a fresh ``$CHIPGYM_CACHE`` (build, simulation, lockstep and formal cold); the
scores then share one cache per fixture (the check's results are reused, synthesis and the gate level are cold).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

from chipgym.tasks.chip.registry import load_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=["osu018", "asap7"])
    parser.add_argument("--fixtures", nargs="+", default=sorted(load_task("noc").fixtures))
    args = parser.parse_args()
    task = load_task("noc")
    rows = []
    for fixture in args.fixtures:
        with tempfile.TemporaryDirectory(prefix="chipgym-bench-") as cache:
            os.environ["CHIPGYM_CACHE"] = cache
            from chipgym.scoring.chip import score_design  # after the cache is set: nothing is shared
            from chipgym.tasks.chip import check_design

            start = time.monotonic()
            report = check_design(task.fixtures[fixture], task="noc")
            times = ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items())
            print(f"{fixture}: check {'passed' if report.passed else 'FAILED'} in {time.monotonic() - start:.1f} s "
                  f"({times})", flush=True)
            for profile in args.profiles:
                s = score_design(task.fixtures[fixture], task="noc", profile=profile)
                print(f"{fixture} on {profile}: {s.summary()} ({sum(s.seconds.values()):.0f} s)", flush=True)
                rows.append((fixture, profile, s))
    print("\n| fixture | profile | period (ps) | slack (ps) | cells | A (um^2) | T (us) | E (nJ) | reward |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for fixture, profile, s in rows:
        if s.status != "ok":
            print(f"| {fixture} | {profile} | {s.status}: {s.summary()} |")
            continue
        print(f"| {fixture} | {profile} | {s.period_ps} | {s.slack_ps:.0f} | {s.cells} | {s.A_um2:,.0f} | "
              f"{s.T_us:.4g} | {s.E_nJ:.4g} | {s.reward:.4f} |")


if __name__ == "__main__":
    main()
