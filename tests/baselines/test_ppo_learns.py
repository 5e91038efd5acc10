"""PPO learns a DRC task whose answer is one template: the success rate rises to about 1, and the greedy policy
of the checkpoint solves the task when graded on its hidden layouts."""

from __future__ import annotations

import gymnasium

from chipgym.baselines.policy_evaluation import success_on_every_task
from chipgym.baselines.ppo import PpoRun, load_policy, train


def test_ppo_learns_the_one_template_task(local_ray, tiny_tasks, tmp_path):
    run = PpoRun("chipgym/DrcTemplate-v0", {"tasks": tiny_tasks, "split": "all"}, out=tmp_path, iterations=12,
                 num_env_runners=2, seed=0, train_batch_size=32, lr=3e-3, checkpoint_every=12)
    metrics = train(run, progress=lambda line: None)
    rates = [m.success_rate for m in metrics]
    assert sum(rates[:2]) / 2 < 0.25  # a masked random policy succeeds about 1 in 21 times
    assert max(rates[-3:]) >= 0.8, rates
    env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=tiny_tasks, split="all", regime="evaluation")
    try:
        result = success_on_every_task(env, load_policy(tmp_path / "checkpoint"))
    finally:
        env.close()
    assert result.rewards == {tiny_tasks[0].id: 1.0} and result.by_group() == {"sky130": 1.0}
