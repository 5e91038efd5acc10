"""A two-node Ray cluster started on this machine (``ray.cluster_utils.Cluster``): training with one env runner
on each node, both sampling the real DRC template env; ``chipgym doctor --ray-address`` names the node that
lacks a tool."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

from chipgym.baselines.ppo import PpoRun, train
from chipgym.cli import main


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


def path_without(command: str, folder: Path) -> str:
    """A PATH of links to every command on this PATH except ``command``."""
    for directory in os.environ["PATH"].split(os.pathsep):
        for entry in Path(directory).glob("*") if Path(directory).is_dir() else []:
            link = folder / entry.name
            if entry.name != command and not link.exists() and os.access(entry, os.X_OK):
                link.symlink_to(entry)
    assert shutil.which(command, path=str(folder)) is None
    return str(folder)


def test_doctor_names_the_node_that_lacks_klayout(tmp_path, capsys, monkeypatch):
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        monkeypatch.setenv("PATH", path_without("klayout", tmp_path))  # the second node's processes inherit it
        cluster.add_node(num_cpus=1)
        monkeypatch.undo()
        cluster.wait_for_nodes()
        assert main(["doctor", "--ray-address", cluster.address]) == 1
    finally:
        cluster.shutdown()
    lines = capsys.readouterr().out.splitlines()
    assert sum("all tools present" in line for line in lines) == 1
    [lacking] = [line for line in lines if "MISSING" in line]
    assert "klayout (apt-get install -y klayout)" in lacking and "bwrap" not in lacking
    assert lines[-1] == "2 nodes, 1 lack a tool: see above"
