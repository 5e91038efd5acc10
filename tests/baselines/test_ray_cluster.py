"""Training on a two-node Ray cluster started on this machine (``ray.cluster_utils.Cluster``): one env runner on
each node, both sampling the real DRC template env."""

from __future__ import annotations

import pytest
import ray
from ray.cluster_utils import Cluster

from chipgym.baselines.ppo import PpoRun, train


@pytest.fixture
def two_nodes():
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def node_of_each_env_runner(algo) -> list[str]:
    return algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                    local_env_runner=False)


def test_env_runners_sample_on_both_nodes(two_nodes, tiny_tasks, tmp_path):
    nodes = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
    assert len(nodes) == 2
    placed = []
    run = PpoRun("chipgym/DrcTemplate-v0", {"tasks": tiny_tasks, "split": "all"}, out=tmp_path, iterations=2,
                 num_env_runners=2, train_batch_size=16, ray_address=two_nodes.address)
    metrics = train(run, progress=lambda line: None, after_iteration=lambda algo, m: placed.append(
        node_of_each_env_runner(algo)))
    assert all(set(runners) == nodes for runners in placed), placed  # one runner per node, every iteration
    assert [m.env_steps for m in metrics] == [16, 16] and all(m.env_runners_healthy == 2 for m in metrics)
