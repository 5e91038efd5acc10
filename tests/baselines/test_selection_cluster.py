"""``chipgym select`` on a two-node Ray cluster (``ray.cluster_utils.Cluster``, both nodes on this machine): the
tasks run on actors on both nodes, and every record is the one a local run writes."""

from __future__ import annotations

import json

import pytest

from chipgym.baselines.selection.experiment import VOLATILE, SelectionRun, run_selection

ray = pytest.importorskip("ray")


def records(folder) -> list[dict]:
    return [{k: v for k, v in json.loads(p.read_text()).items() if k not in VOLATILE}
            for p in sorted((folder / "tasks").iterdir())]


def test_select_on_two_nodes_chooses_as_the_local_run(selection_folder, tmp_path):
    from ray.cluster_utils import Cluster

    run = SelectionRun(tasks=selection_folder, split="all", ns=(6,), seed=5,
                       methods=("random", "majority", "splittester", "codemonkey"))
    local = run_selection(run, tmp_path / "local", progress=False)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        remote = run_selection(run, tmp_path / "cluster", workers=2, ray_address=cluster.address, progress=False)
    finally:
        cluster.shutdown()
    nodes = {json.loads(p.read_text())["node"] for p in (tmp_path / "cluster" / "tasks").iterdir()}
    assert len(nodes) == 2
    assert records(tmp_path / "cluster") == records(tmp_path / "local")
    assert remote["by_n"] == local["by_n"] and remote["tasks"] == 3
