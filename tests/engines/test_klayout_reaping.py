"""A pool whose process dies without close() (SIGKILL, a segfault, a killed vector worker or Ray actor) leaves its
workers' folders behind; the next pool's start removes them, and never a live process's folder."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from chipgym.engines.klayout import FOLDER_PREFIX, DrcPool
from chipgym.engines.sandbox import _owner_stamp, _pid_namespace, private_folder, reap_orphaned_folders

POOL_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from chipgym.engines.klayout import DrcPool
    pool = DrcPool(workers=1)
    groups = [str(f) for w in pool.workers if w.sandbox.cgroup for f in w.sandbox.cgroup.folders]
    print(json.dumps({"roots": [str(w.root) for w in pool.workers], "cgroups": groups}), flush=True)
    sys.stdin.readline()  # until told to close (or killed)
    pool.close()
    """
)


def start_pool_process() -> tuple[subprocess.Popen, list[Path], list[Path]]:
    """A process with a pool of one worker: its folders and its control groups."""
    child = subprocess.Popen([sys.executable, "-c", POOL_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    started = json.loads(child.stdout.readline())
    return child, [Path(root) for root in started["roots"]], [Path(group) for group in started["cgroups"]]


def test_a_killed_pools_folders_are_reaped_by_the_next_pool_and_a_live_ones_kept():
    killed, killed_roots, killed_groups = start_pool_process()
    live, live_roots, _ = start_pool_process()
    try:
        os.kill(killed.pid, signal.SIGKILL)
        assert killed.wait(timeout=30) == -signal.SIGKILL
        assert all(root.is_dir() for root in killed_roots)  # nothing cleaned up after it
        assert all(root.name.startswith(f"{FOLDER_PREFIX}{_pid_namespace()}-{killed.pid}-") for root in killed_roots)
        with DrcPool(workers=1) as pool:
            assert not any(root.exists() for root in killed_roots)
            assert all(root.is_dir() for root in live_roots)
            assert pool.workers[0].root.is_dir()
        live.stdin.write("close\n")
        live.stdin.flush()
        assert live.wait(timeout=60) == 0
        assert not any(root.exists() for root in live_roots)
    finally:
        for child in (killed, live):
            if child.poll() is None:
                child.kill()
                child.wait()
        for group in killed_groups:  # not reaped (docs/sandbox.md): empty once its processes are gone
            with contextlib.suppress(OSError):
                group.rmdir()


@pytest.fixture
def tmp_dir(tmp_path, monkeypatch) -> Path:
    """tempfile's folder for this test only."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_only_folders_of_dead_owners_of_this_namespace_are_reaped(tmp_dir):
    prefix = "chipgym-test-"
    namespace, me, live_start = _pid_namespace(), os.getpid(), _owner_stamp(os.getpid()).rsplit("-", 1)[1]
    mine = private_folder(prefix)
    assert mine.name.startswith(f"{prefix}{namespace}-{me}-{live_start}-")
    folders = {
        "reused pid": tmp_dir / f"{prefix}{namespace}-{me}-{int(live_start) + 1}-x",  # my pid, another start
        "dead pid": tmp_dir / f"{prefix}{namespace}-{dead_pid()}-1-x",
        "other namespace": tmp_dir / f"{prefix}{namespace + 1}-{dead_pid()}-1-x",
        "no owner": tmp_dir / f"{prefix}abcd1234",
        "other prefix": tmp_dir / f"chipgym-other-{namespace}-{dead_pid()}-1-x",
    }
    for folder in folders.values():
        folder.mkdir()
        (folder / "file").write_text("x")
    target = tmp_dir / "not-a-pool-folder"
    target.mkdir()
    (target / "keep").write_text("x")
    link = tmp_dir / f"{prefix}{namespace}-{dead_pid()}-1-link"
    link.symlink_to(target)
    file = tmp_dir / f"{prefix}{namespace}-{dead_pid()}-1-file"
    file.write_text("x")

    reaped = reap_orphaned_folders(prefix)

    assert sorted(reaped) == sorted([folders["reused pid"], folders["dead pid"]])
    assert not folders["reused pid"].exists() and not folders["dead pid"].exists()
    assert all(folders[kept].is_dir() for kept in ("other namespace", "no owner", "other prefix"))
    assert mine.is_dir() and (target / "keep").exists() and link.is_symlink() and file.exists()


def test_a_zombie_owner_is_dead(tmp_dir):
    """Exited, not yet waited for: it will never clean up, so its folder goes."""
    child = subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
    try:
        folder = tmp_dir / f"chipgym-test-{_owner_stamp(child.pid)}-x"
        folder.mkdir()
        assert reap_orphaned_folders("chipgym-test-") == []  # alive
        child.stdin.close()  # it exits; nobody waits for it yet
        deadline = time.monotonic() + 30
        while process_state(child.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert process_state(child.pid) == "Z"
        assert reap_orphaned_folders("chipgym-test-") == [folder] and not folder.exists()
    finally:
        child.kill()
        child.wait()


def process_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
