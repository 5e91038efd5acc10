"""``chipgym eval`` on a two-node Ray cluster (``ray.cluster_utils.Cluster``, both nodes on this machine): the
two actors run on the two nodes, and the episodes end as they do on a local Ray."""

from __future__ import annotations

import pytest

from chipgym.baselines.evaluation import EvalRun, episode_specs, evaluate
from chipgym.baselines.step_log import read_episodes

ray = pytest.importorskip("ray")


def test_eval_runs_its_actors_on_both_nodes_of_a_cluster(drc_folder, tmp_path):
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        env_kwargs = {"tasks": drc_folder, "split": "all", "regime": "evaluation"}
        specs = episode_specs("chipgym/DrcScript-v0", env_kwargs, limit=4)
        summary = evaluate(EvalRun("chipgym/DrcScript-v0", env_kwargs, "scripted", specs, tmp_path, workers=2,
                                   ray_address=cluster.address, progress=False))
    finally:
        cluster.shutdown()
    episodes = read_episodes(tmp_path / "steps.jsonl")
    assert len({e.start["node"] for e in episodes}) == 2
    assert summary["all"]["episodes"] == 4 and summary["all"]["unavailable"] == 0
    assert summary["all"]["success_rate"] > 0
