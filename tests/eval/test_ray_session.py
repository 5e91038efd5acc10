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
