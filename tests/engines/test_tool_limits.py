"""Every chip tool's sandbox has limits for the sandbox as a whole (issue 28 §3), not per process only.

Before issue 28, five processes of one timing model held 5,280 MiB at once, under 8 GiB of address space per
process and 256 processes: the bound was 256 x 8 GiB. Now a timing model's sandbox holds 2 GiB in all and 16
processes, and every other tool's (Verilator and its builds, the simulators, Yosys, ABC, OpenSTA) its own total
(docs/sandbox.md tables them).
"""
from __future__ import annotations

import pytest

from chipgym.engines import cgroup, python
from chipgym.engines.python import PYTHON, run_timing_model
from chipgym.engines.tools import run_tool

pytestmark = pytest.mark.skipif(cgroup.available() is not None, reason=f"no control groups: {cgroup.available()}")

HOARDERS = """
import os, time
children = []
for _ in range({count}):
    pid = os.fork()
    if pid == 0:
        hoard = b"x" * ({mib} << 20)  # written, so every page is held
        time.sleep(30)
        os._exit(0)
    children.append(pid)
time.sleep(8)
alive = sum(os.waitpid(pid, os.WNOHANG) == (0, 0) for pid in children)
for pid in children:
    try:
        os.kill(pid, 9)
    except OSError:
        pass
"""

FORKER = """
import os, time
forked = 0
for _ in range(200):
    try:
        if os.fork() == 0:
            time.sleep(10)
            os._exit(0)
        forked += 1
    except OSError:
        break
"""


def model(tmp_path, code: str, name: str) -> int:
    """The variable ``name`` of a timing model that runs ``code`` at import, from its error text."""
    path = tmp_path / "timing_model.py"
    path.write_text(f"{code}\ndef predict(run, latency):\n    raise RuntimeError(f'{name}={{{name}}}')\n")
    [answer] = run_timing_model(path, [{}], {}, timeout=120)
    return int(answer["error"].partition(f"{name}=")[2])


def test_a_timing_models_forks_share_one_memory_limit(tmp_path):
    alive = model(tmp_path, HOARDERS.format(count=5, mib=600), "alive")  # 3 GiB in all, each within 2 GiB
    assert alive <= python.TOTAL_MEMORY // (600 << 20)  # before issue 28: all 5


def test_a_timing_model_cannot_fork_past_its_process_limit(tmp_path):
    assert model(tmp_path, FORKER, "forked") < python.PROCESSES  # before issue 28: 200


def test_a_tools_sandbox_holds_at_most_its_total(tmp_path):
    result = run_tool([PYTHON, "-c", HOARDERS.format(count=5, mib=300) + "print(alive)"], total_memory=1 << 30,
                      timeout=120)
    assert result.ok and int(result.stdout) <= 3 and result.peak_bytes <= 1 << 30, (result.stdout, result.peak_bytes)
