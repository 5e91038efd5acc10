"""A Ray started by chipgym (``chipgym eval``, ``chipgym select``) leaves no session folder behind (issue 39,
"Also": every run left one in ``$TMPDIR/ray``)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

pytest.importorskip("ray")

SESSION = """
from chipgym.baselines.ray_actors import ray_session
with ray_session(1) as ray:
    assert ray.get(ray.put(41)) == 41
"""


def test_a_ray_started_here_removes_its_session_folder():
    tmpdir = tempfile.mkdtemp(prefix="rs-", dir="/tmp")  # short: Ray's socket paths must fit in 107 characters
    try:
        done = subprocess.run([sys.executable, "-c", SESSION], env={**os.environ, "TMPDIR": tmpdir},
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert os.listdir(tmpdir) == []
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def test_a_ray_started_here_is_its_own_beside_a_running_cluster():
    # issue 29 §2: with a cluster running (here named by $RAY_ADDRESS, as `ray start` leaves one to find), Ray
    # attached to it and refused the CPU count chipgym gave: "When connecting to an existing cluster, num_cpus and
    # num_gpus must not be provided", and `chipgym eval` exited 2
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    tmpdir = tempfile.mkdtemp(prefix="rs-", dir="/tmp")
    try:
        done = subprocess.run([sys.executable, "-c", SESSION], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "TMPDIR": tmpdir, "RAY_ADDRESS": cluster.address})
        assert done.returncode == 0, done.stderr[-2000:]
    finally:
        cluster.shutdown()
        shutil.rmtree(tmpdir, ignore_errors=True)
