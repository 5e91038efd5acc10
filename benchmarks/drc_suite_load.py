"""How long loading a built DRC suite takes (every task with its layouts), once it is built.

Run it twice to compare two trees (the same API at the fork point):
    .venv/bin/python benchmarks/drc_suite_load.py --suite drc-v1
    PYTHONPATH=OTHER_TREE .venv/bin/python benchmarks/drc_suite_load.py --suite drc-v1
"""

from __future__ import annotations

import argparse
import time

from chipgym.tasks.drc.suite import build_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="drc-v1")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    build_suite(args.suite)  # built (or found built) before timing
    for _ in range(args.repeats):
        start = time.perf_counter()
        tasks = build_suite(args.suite)
        seconds = time.perf_counter() - start
        layouts = sum(len(t.public_examples) + len(getattr(t, "training_testcases", ())) + len(t.hidden_testcases)
                      for t in tasks)
        print(f"{args.suite}: {len(tasks)} tasks, {layouts:,} layouts loaded in {seconds:.2f} s")


if __name__ == "__main__":
    main()
