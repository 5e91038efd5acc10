"""Speed of chipgym/DrcScript-v0: reset, run and submit times, and episodes per second.

Each timed action uses a deck the cache has not seen (a numbered comment is appended), so the figures are
for real KLayout runs. An episode is reset, write (the task's gold deck), run, submit. In the training
regime a submit grades on a draw of the task's training layouts (labelled when the dataset was built); in the
evaluation regime on its evaluation layouts.
Targets: warm median run or submit <= 100 ms on a typical task, reset <= 20 ms.

Run: .venv/bin/python benchmarks/drc_env.py [--tasks drc-v0] [--regime training|evaluation] [--repeats 30]
     [--episodes 20]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import gymnasium

import chipgym  # noqa: F401
from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.tasks.drc.load import load_tasks

fresh = itertools.count()


def unseen(deck: str) -> str:
    return f"{deck}\n# {next(fresh)}\n"


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_ms(samples: list[float]) -> str:
    return f"{1000 * statistics.median(samples):.1f} ms (p90 {1000 * statistics.quantiles(samples, n=10)[-1]:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="drc-v0")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--regime", choices=["training", "evaluation"], default="training")
    args = parser.parse_args()
    regime = {"regime": args.regime}
    tasks = load_tasks(args.tasks, "all")
    print(f"tasks: {len(tasks)}; "
          f"hidden layouts per task: median {statistics.median(len(t.hidden_testcases) for t in tasks)}")

    env = DrcScriptEnv(tasks=tasks, split="all", **regime)
    env.reset(seed=0)
    env.step(act.write(tasks[0].gold_deck))
    env.step(act.run())  # workers started
    resets, runs, submits = [], [], []
    for i in range(args.repeats):
        task = tasks[i % len(tasks)]
        resets.append(timed(lambda: env.reset(seed=i, options={"task": task.id})))
        env.step(act.write(unseen(task.gold_deck)))
        runs.append(timed(lambda: env.step(act.run())))
        env.step(act.write(unseen(task.gold_deck)))
        submits.append(timed(lambda: env.step(act.submit())))
    env.close()
    print(f"reset:  {median_ms(resets)}")
    print(f"run:    {median_ms(runs)}  (public examples and no tests)")
    print(f"submit: {median_ms(submits)}")

    gold = {t.id: t.gold_deck for t in tasks}

    def episodes_per_second(n_envs: int) -> float:
        envs = gymnasium.vector.AsyncVectorEnv([lambda: DrcScriptEnv(tasks=tasks, split="all")] * n_envs,
                                               shared_memory=False)
        rounds = max(1, args.episodes // n_envs)
        for round_ in range(rounds + 1):  # round 0 warms the workers up
            if round_ == 1:
                start = time.perf_counter()
            _, info = envs.reset(seed=[round_ * n_envs + k for k in range(n_envs)])
            envs.step([act.write(unseen(gold[task])) for task in info["task"]])
            envs.step([act.run()] * n_envs)
            envs.step([act.submit()] * n_envs)
        elapsed = time.perf_counter() - start
        envs.close()
        return rounds * n_envs / elapsed

    if args.regime == "training":  # evaluation grades a task once: repeated random tasks would be refused
        print(f"episodes per second, 1 env (AsyncVectorEnv of 1): {episodes_per_second(1):.1f}")
        print(f"episodes per second, 2 envs (AsyncVectorEnv): {episodes_per_second(2):.1f}")


if __name__ == "__main__":
    main()
