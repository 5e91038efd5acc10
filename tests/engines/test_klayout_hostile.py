"""Hostile decks: each gets a clear result, nothing escapes the sandbox, and the next deck is unaffected."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from chipgym.engines.klayout import DrcCache, DrcPool, DrcStatus
from chipgym.engines.sandbox import processes_of
from layout_helpers import WIDTH_SPACE_DECK

PREFIX = 'source($input)\nreport("hostile", $output)\n'


@pytest.fixture(scope="module")
def hostile_pool():
    """One worker, so every benign deck runs on the worker the hostile deck ran on; no cache."""
    with DrcPool(workers=1, timeout=6.0, memory_bytes=1 << 30, cache=DrcCache(size=0)) as pool:
        yield pool


def run_hostile(pool, layouts, body: str):
    """Runs the hostile deck, then checks that a benign deck on the same worker still gets it right."""
    [result] = pool.run(PREFIX + body, [layouts["narrow"]])
    after = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"], layouts["close"], layouts["clean"]])
    assert [r.counts for r in after] == [{"m1.1": 1, "m1_2": 0}, {"m1.1": 0, "m1_2": 1}, {"m1.1": 0, "m1_2": 0}]
    return result


def test_cannot_read_system_files(hostile_pool, layouts):
    result = run_hostile(hostile_pool, layouts, 'File.read("/etc/passwd")')
    assert result.status is DrcStatus.RUNTIME
    assert "No such file or directory" in result.error


def test_cannot_read_a_file_outside_the_job(hostile_pool, layouts, tmp_path):
    secret = tmp_path / "gold.drc"
    secret.write_text("the gold deck")
    secret.chmod(0o644)
    for path in (secret, hostile_pool.workers[0].root / "stderr.log"):
        result = run_hostile(hostile_pool, layouts, f'File.read("{path}")')
        assert result.status is DrcStatus.RUNTIME, result
        assert "No such file or directory" in result.error


def test_cannot_write_outside_scratch(hostile_pool, layouts, tmp_path):
    for target in (tmp_path / "planted", Path("/usr/planted"), Path("/job/planted")):
        result = run_hostile(hostile_pool, layouts, f'File.write("{target}", "x")')
        assert result.status is DrcStatus.RUNTIME
        assert not target.exists()


def test_shell_commands_touch_nothing_on_the_host(hostile_pool, layouts, tmp_path):
    target = tmp_path / "touched"
    os.chmod(tmp_path, 0o777)
    result = run_hostile(hostile_pool, layouts, f'system("touch {target}") or raise("touch failed")')
    assert result.status is DrcStatus.RUNTIME
    assert not target.exists()


def test_no_network_even_on_loopback(hostile_pool, layouts):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    port = server.getsockname()[1]
    accepted = []
    listener = threading.Thread(target=lambda: accepted.append(_accept(server)))
    listener.start()
    result = run_hostile(hostile_pool, layouts, f'require "socket"\nTCPSocket.new("127.0.0.1", {port})')
    listener.join()
    server.close()
    assert result.status is DrcStatus.RUNTIME
    assert "ECONNREFUSED" in result.error or "Connection refused" in result.error or "unreachable" in result.error
    assert accepted == [None]


def _accept(server):
    try:
        return server.accept()
    except OSError:
        return None


def test_infinite_loop_times_out(hostile_pool, layouts):
    result = run_hostile(hostile_pool, layouts, "loop { }")
    assert result.status is DrcStatus.TIMEOUT


def test_unbounded_allocation_is_stopped(hostile_pool, layouts):
    result = run_hostile(hostile_pool, layouts, 'a = []\nloop { a << "x" * (1 << 24) }')
    assert result.status in (DrcStatus.RUNTIME, DrcStatus.CRASHED)
    assert "memory" in result.error.lower() or result.status is DrcStatus.CRASHED


def test_printing_100_mb_does_not_corrupt_the_protocol(hostile_pool, layouts):
    body = '100.times { $stdout.write("x" * (1 << 20)); STDERR.write("{\\"id\\": 1}\\n") }\n'
    result = run_hostile(hostile_pool, layouts, body + 'input(1, 0).width(0.14).output("w", "width")')
    assert result.status is DrcStatus.OK
    assert result.counts == {"w": 1}


def test_exit_is_a_crash(hostile_pool, layouts):
    result = run_hostile(hostile_pool, layouts, "exit!(3)")
    assert result.status is DrcStatus.CRASHED
    assert "status 3" in result.error


def test_the_worker_cannot_be_killed_or_stopped_from_inside(hostile_pool, layouts):
    worker = hostile_pool.workers[0]
    body = "%i[KILL STOP SEGV TERM ABRT HUP INT BUS].each { |s| Process.kill(s, Process.ppid) rescue nil }\nsleep 0.5\n"
    result = run_hostile(hostile_pool, layouts, body + 'input(1, 0).width(0.14).output("w", "width")')
    assert result.status is DrcStatus.OK and result.counts == {"w": 1}
    assert worker.process.poll() is None  # the same worker answered the benign deck after it


def test_fork_bomb_times_out_and_leaves_nothing(hostile_pool, layouts):
    result = run_hostile(hostile_pool, layouts, "loop { fork { loop { fork rescue nil } } rescue nil }")
    assert result.status in (DrcStatus.TIMEOUT, DrcStatus.CRASHED)
    assert_only_the_worker_is_left(hostile_pool.workers[0])


def test_monkeypatching_the_engine_does_not_reach_the_next_deck(hostile_pool, layouts):
    body = "class DRC::DRCLayer\n  def output(*args) ; end\nend\nclass RBA::Region\n  def width(*a) ; self.class.new ; end\nend"
    result = run_hostile(hostile_pool, layouts, body)
    assert result.status is DrcStatus.OK


def test_threads_and_processes_left_behind_are_killed(hostile_pool, layouts):
    body = 'Thread.new { loop { Dir.glob("/job/*").each { |f| File.read(f) } } }\nfork { sleep 1000 }\nspawn("sleep 1000")'
    result = run_hostile(hostile_pool, layouts, body)
    assert result.status is DrcStatus.OK
    assert_only_the_worker_is_left(hostile_pool.workers[0])


def test_forged_replies_change_nothing(hostile_pool, layouts):
    forge = '{"id": 99, "results": [{"status": "ok", "error": "", "categories": {"m1.1": {"count": 0, "markers": []}}}]}'
    body = f"(0..20).each {{ |fd| IO.new(fd).puts('{forge}') rescue nil }}"
    result = run_hostile(hostile_pool, layouts, body)
    assert result.status in (DrcStatus.OK, DrcStatus.CRASHED)


def test_the_parent_worker_cannot_be_inspected(hostile_pool, layouts):
    result = run_hostile(hostile_pool, layouts, 'File.read("/proc/#{Process.ppid}/environ")')
    assert result.status is DrcStatus.RUNTIME
    assert "Permission denied" in result.error


def assert_only_the_worker_is_left(worker, seconds: float = 5.0):
    """bwrap's monitor and init, KLayout, and the child it keeps ready: nothing a deck started survives."""
    deadline = time.monotonic() + seconds
    while len(processes_of(worker.sandbox.uid)) > 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(processes_of(worker.sandbox.uid)) <= 4
