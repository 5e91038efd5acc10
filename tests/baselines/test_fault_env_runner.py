"""An env runner process killed in the middle of training: RLlib restarts it (``restart_failed_env_runners``)
and training goes on with both runners."""

from __future__ import annotations

import os
import signal
import threading
import time

from chipgym.baselines.ppo import PpoRun, train


def test_a_killed_env_runner_is_restarted_and_training_continues(local_ray, tiny_tasks, tmp_path):
    run = PpoRun("chipgym/DrcTemplate-v0", {"tasks": tiny_tasks, "split": "all"}, out=tmp_path, iterations=10,
                 num_env_runners=2, train_batch_size=16, restart_delay_s=1.0)
    pids = []

    def kill_one_runner_during_the_next_iteration(algo, metrics):
        pids.append(sorted(algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(),
                                                                    local_env_runner=False)))
        if metrics.iteration == 1:
            threading.Timer(1.0, os.kill, (pids[0][0], signal.SIGKILL)).start()
        elif metrics.iteration > 1:
            time.sleep(1.0)  # on a loaded machine the new process takes more than a few short iterations to start

    metrics = train(run, progress=lambda line: None, after_iteration=kill_one_runner_during_the_next_iteration)
    killed, survivor = pids[0]
    assert len(metrics) == 10 and all(m.env_steps > 0 for m in metrics)
    # while the new process builds its env (seconds), the other runner samples alone
    assert min(m.env_runners_healthy for m in metrics[1:]) == 1
    assert metrics[-1].env_runner_restarts == 1 and metrics[-1].env_runners_healthy == 2
    assert survivor in pids[-1] and killed not in pids[-1] and len(pids[-1]) == 2  # a new process took its place
