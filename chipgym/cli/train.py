"""``chipgym train drc|chip --algo ppo``: train PPO with RLlib on the DRC template env or the CPU knob env.

``drc`` trains on ``chipgym/DrcTemplate-v0`` (a suite's train split, or only the tasks named by ``--task``)
and then plays the greedy policy once on every task of the test split (graded in the evaluation regime);
``chip`` trains on ``chipgym/CpuKnobs-v0`` and then reports the best reward found within each number of
evaluations, for the trained policy and for random search, averaged over ``--eval-seeds`` seeds. Both write
``metrics.json``, ``learning_curve.png``, ``checkpoint/`` and ``evaluation.json`` to ``--out``.
"""

from __future__ import annotations

import json
from pathlib import Path

DRC_ENV, CHIP_ENV = "chipgym/DrcTemplate-v0", "chipgym/CpuKnobs-v0"
SPLIT_FOR_EVALUATION = "test"


def drc_tasks(suite: str, task_ids: list[str] | None):
    """The training tasks: a suite's train split, or only the named tasks of the suite (any split)."""
    if not task_ids:
        return suite
    from chipgym.tasks.drc.load import load_tasks

    tasks = {task.id: task for task in load_tasks(suite, "all")}
    unknown = [t for t in task_ids if t not in tasks]
    if unknown:
        raise ValueError(f"--task: no task {', '.join(unknown)} in {suite}")
    return [tasks[t] for t in task_ids]


def run_settings(args):
    from chipgym.baselines.ppo import PpoRun

    common = dict(out=args.out, iterations=args.iterations, num_env_runners=args.num_env_runners, seed=args.seed,
                  ray_address=args.ray_address, train_batch_size=args.batch,
                  lr=args.lr)
    if args.domain == "drc":
        return PpoRun(DRC_ENV, {"tasks": drc_tasks(args.tasks, args.task), "split": "train"}, success_reward=1.0,
                      **common)
    # a knob episode succeeds when one of its designs passes the check (its reward is then positive)
    return PpoRun(CHIP_ENV, {"profile": args.profile, "evaluations": args.evaluations}, success_reward=1e-12,
                  **common)


def evaluate_drc(args, checkpoint: Path) -> dict:
    import gymnasium

    from chipgym.baselines.policy_evaluation import success_on_every_task
    from chipgym.baselines.ppo import load_policy

    tasks = drc_tasks(args.tasks, args.task) if args.task else args.tasks
    split = "all" if args.task else SPLIT_FOR_EVALUATION
    env = gymnasium.make(DRC_ENV, tasks=tasks, split=split, regime="evaluation")
    try:
        result = success_on_every_task(env, load_policy(checkpoint, greedy=True))
    finally:
        env.close()
    played = "the tasks it trained on" if args.task else f"the {split} split"
    print(f"greedy policy, {len(result.rewards)} tasks ({played}): success {result.success_rate:.3f} "
          + " ".join(f"{g} {r:.3f}" for g, r in result.by_group().items())
          + (f" ({len(result.unavailable)} unavailable)" if result.unavailable else ""))
    return {"split": split, "success_rate": result.success_rate, "by_group": result.by_group(),
            "rewards": result.rewards, "unavailable": list(result.unavailable)}


def evaluate_chip(args, checkpoint: Path) -> dict:
    import gymnasium
    import numpy as np

    from chipgym.baselines.knob_search import random_search
    from chipgym.baselines.policy_evaluation import best_reward_by_budget
    from chipgym.baselines.ppo import load_policy

    seeds = list(range(1000, 1000 + args.eval_seeds))  # not the training seeds
    env = gymnasium.make(CHIP_ENV, profile=args.profile, evaluations=args.evaluations)
    try:
        ppo = best_reward_by_budget(env, load_policy(checkpoint, greedy=False, seed=args.seed), seeds)
    finally:
        env.close()
    searches = [np.maximum.accumulate(random_search(args.evaluations, seed, args.profile).rewards) for seed in seeds]
    random = [float(best) for best in np.mean(searches, axis=0)]
    for budget, (p, r) in enumerate(zip(ppo, random), start=1):
        print(f"best reward after {budget} evaluations (mean of {len(seeds)} seeds): PPO {p:.4f}, "
              f"random search {r:.4f}")
    return {"seeds": seeds, "best_reward_by_budget": {"ppo": ppo, "random_search": random}}


def run(args) -> int:
    from chipgym.baselines.ppo import CHECKPOINT, train

    settings = run_settings(args)
    train(settings, resume=args.resume)
    if args.no_eval:
        return 0
    checkpoint = Path(args.out).resolve() / CHECKPOINT
    report = evaluate_drc(args, checkpoint) if args.domain == "drc" else evaluate_chip(args, checkpoint)
    (Path(args.out) / "evaluation.json").write_text(json.dumps(report, indent=1))
    return 0


def add_commands(commands) -> None:
    parser = commands.add_parser("train", help="train an RL policy (PPO with RLlib) on the DRC or the chip env")
    parser.add_argument("domain", choices=("drc", "chip"), help=f"drc: {DRC_ENV}; chip: {CHIP_ENV}")
    parser.add_argument("--algo", choices=("ppo",), default="ppo")
    parser.add_argument("--iterations", type=int, default=10, help="training iterations (more after --resume)")
    parser.add_argument("--out", required=True, help="folder for metrics.json, learning_curve.png, checkpoint/")
    parser.add_argument("--num-env-runners", type=int, default=1, help="rollout actors (Ray processes)")
    parser.add_argument("--ray-address", help="join this Ray cluster (e.g. HEAD:6379 or 'auto') instead of "
                                              "starting Ray on this machine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", metavar="CHECKPOINT_DIR", help="continue from a checkpoint of an earlier run")
    parser.add_argument("--batch", type=int, default=64, help="env steps per training iteration")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--no-eval", action="store_true", help="skip the evaluation after training")
    drc = parser.add_argument_group("drc")
    drc.add_argument("--tasks", default="drc-v0", help="a DRC suite; trains on its train split")
    drc.add_argument("--task", action="append", metavar="ID",
                     help="train (and evaluate) on this task of the suite only; repeatable")
    chip = parser.add_argument_group("chip")
    chip.add_argument("--profile", default="osu018")
    chip.add_argument("--evaluations", type=int, default=8, help="designs evaluated per episode")
    chip.add_argument("--eval-seeds", type=int, default=3, help="episodes averaged in the chip evaluation")
    parser.set_defaults(handler=run)
