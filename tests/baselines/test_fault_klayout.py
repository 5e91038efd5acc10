"""A KLayout worker killed in the middle of training: the env's DrcPool replaces it, and no episode is graded
wrong or left unavailable."""

from __future__ import annotations

import json
import os
import signal
import threading

import gymnasium
import numpy as np

from chipgym.baselines.ppo import PpoRun, train
from chipgym.engines.sandbox import processes_of


def kill_all(uids: list[int]) -> list[int]:
    killed = [pid for uid in uids for pid in processes_of(uid)]
    for pid in killed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return killed


def test_killed_klayout_workers_are_replaced_without_wrong_grades(local_ray, tiny_tasks, tmp_path):
    log = tmp_path / "episodes.jsonl"
    run = PpoRun("chipgym/DrcTemplate-v0", {"tasks": tiny_tasks, "split": "all"}, out=tmp_path, iterations=3,
                 num_env_runners=1, train_batch_size=16, lr=3e-3, episode_log=str(log))
    uids, killed, alive_after = [], [], []

    def klayout_uids(runner) -> list[int]:  # runs in the env runner; nested, so Ray ships it by value
        """The sandbox uids of every KLayout worker of the runner's env (DrcScript-v0 under the template), whose
        pools from now on cache nothing: a policy that repeats itself would otherwise be graded from the cache
        alone, and no worker would be needed (nor replaced) after the kill."""
        from chipgym.engines.klayout import DrcCache

        env = runner.env.unwrapped.envs[0].unwrapped
        pools = [pool for pool in (env._pool, env._grader, env._gold) if pool is not None]
        for pool in pools:
            pool.cache = DrcCache(size=0)
        return [worker.sandbox.uid for pool in pools for worker in pool.workers]

    def kill_during_the_next_iteration(algo, metrics):
        if metrics.iteration == 1:
            uids.extend(algo.env_runner_group.foreach_env_runner(klayout_uids, local_env_runner=False)[0])
            threading.Timer(1.0, lambda: killed.extend(kill_all(uids))).start()
        if metrics.iteration == 3:
            alive_after.extend(pid for uid in uids for pid in processes_of(uid))

    metrics = train(run, progress=lambda line: None, after_iteration=kill_during_the_next_iteration)
    assert killed and alive_after and not set(killed) & set(alive_after)  # the workers were replaced
    assert [m.env_steps for m in metrics] == [16, 16, 16]
    episodes = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(episodes) == 48 and all(e["status"] != "unavailable" for e in episodes)

    # every grade agrees with the same deck graded in a fresh env that nothing killed
    env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=tiny_tasks, split="all")
    truth = {}
    try:
        for seed, action in enumerate(sorted({tuple(e["actions"][0]) for e in episodes})):
            env.reset(seed=seed)
            truth[action] = env.step(np.array(action))[1]
    finally:
        env.close()
    wrong = [e for e in episodes if e["rewards"][0] != truth[tuple(e["actions"][0])]]
    assert not wrong, wrong
