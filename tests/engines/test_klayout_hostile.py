"""Hostile decks: each gets a clear result, nothing escapes the sandbox, and the next deck is unaffected."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from chipgym.engines import cgroup
from chipgym.engines.klayout import DrcCache, DrcPool, DrcStatus, KlayoutWorker
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
    body = ("class DRC::DRCLayer\n  def output(*args) ; end\nend\n"
            "class RBA::Region\n  def width(*a) ; self.class.new ; end\nend")
    result = run_hostile(hostile_pool, layouts, body)
    assert result.status is DrcStatus.OK


def test_threads_and_processes_left_behind_are_killed(hostile_pool, layouts):
    body = ('Thread.new { loop { Dir.glob("/job/*").each { |f| File.read(f) } } }\n'
            'fork { sleep 1000 }\nspawn("sleep 1000")')
    result = run_hostile(hostile_pool, layouts, body)
    assert result.status is DrcStatus.OK
    assert_only_the_worker_is_left(hostile_pool.workers[0])


def test_forged_replies_change_nothing(hostile_pool, layouts):
    forge = ('{"id": 99, "results": [{"status": "ok", "error": "", '
             '"categories": {"m1.1": {"count": 0, "markers": []}}}]}')
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


# -- what a deck can see and leave behind ------------------------------------------------------------------

def test_a_deck_sees_one_layout_at_a_time_under_a_fixed_name(hostile_pool, layouts):
    body = 'input(1, 0).output("seen " + Dir.children("/job").sort.join(" "), "the files in /job")'
    results = hostile_pool.run(PREFIX + body, [layouts["narrow"], layouts["close"], layouts["clean"]])
    assert [sorted(r.categories) for r in results] == [["seen deck.drc layout.gds"]] * 3


def test_no_deck_is_forked_from_memory_that_held_another_job(hostile_pool, layouts):
    secret = "chipgym-secret-" + os.urandom(8).hex()
    hostile_pool.run(PREFIX + f'# {secret}\ninput(1, 0).output("{secret}", "a secret category")', [layouts["narrow"]])
    probe = (
        'pattern = Regexp.new("chipgym" + "-secret-" + "[0-9a-f]{16}")\n'
        'found = ObjectSpace.each_object(String).any? { |s| s.valid_encoding? && s =~ pattern }\n'
        'input(1, 0).output(found ? "found" : "nothing", "whether an earlier job is in memory")'
    )
    [result] = hostile_pool.run(PREFIX + probe, [layouts["narrow"]])
    assert list(result.categories) == ["nothing"]


def test_tmp_is_wiped_and_restored_between_decks(hostile_pool, layouts):
    body = (
        'File.write("/tmp/stash", "x" * 1000)\n'
        'Dir.mkdir("/tmp/locked"); File.write("/tmp/locked/f", "y"); File.chmod(0, "/tmp/locked")\n'
        'File.open("/tmp/fill", "w") { |f| loop { f.write("z" * (1 << 20)) } } rescue nil\n'
        'File.chmod(0o555, "/tmp")'
    )
    run_hostile(hostile_pool, layouts, body)  # the benign deck after it still writes its report and is right
    probe = ('input(1, 0).output("tmp " + (Dir.children("/tmp") - ["deck.log", "report.lyrdb"]).sort.join(" "), '
             '"left in /tmp")')
    [result] = hostile_pool.run(PREFIX + probe, [layouts["narrow"]])
    assert list(result.categories) == ["tmp "]


def test_root_dev_and_shm_are_read_only(hostile_pool, layouts):
    for target in ("/planted", "/dev/shm/planted", "/etc/planted", "/proc/planted"):
        result = run_hostile(hostile_pool, layouts, f'File.write("{target}", "x" * (1 << 20))')
        assert result.status is DrcStatus.RUNTIME, target
        assert ("Read-only file system" in result.error or "No such file" in result.error
                or "Permission denied" in result.error)


@pytest.mark.skipif(cgroup.available() is not None, reason=f"no control group for sandboxes here: {cgroup.available()}")
def test_memory_is_capped_for_the_sandbox_as_a_whole(layouts):
    """Six forks of 300 MiB each: each is within its own address-space limit, together they are over 1.5 GiB."""
    body = (
        'pids = 6.times.map { fork { s = "x" * (300 << 20); s.setbyte(0, 1); sleep 30 } }\n'
        'sleep 8\n'
        'alive = pids.count { |pid| Process.waitpid(pid, Process::WNOHANG).nil? }\n'
        'input(1, 0).output("alive #{alive}", "forks still holding their memory")'
    )
    with DrcPool(workers=1, timeout=20.0, total_memory_bytes=1536 << 20, cache=DrcCache(size=0)) as pool:
        [result] = pool.run(PREFIX + body, [layouts["narrow"]])
        peak = pool.workers[0].sandbox.cgroup.memory_peak()
        [after] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])
    assert peak is not None and peak <= 1536 << 20
    if result.ok:
        [alive] = result.categories
        assert int(alive.split()[1]) <= 4  # 300 MiB each on top of KLayout's own ~200 MiB
    assert after.counts == {"m1.1": 1, "m1_2": 0}


# -- results a deck forges ----------------------------------------------------------------------------------

RESULTS = "IO.for_fd(Integer($results_fd), autoclose: false)"
NONCE = 'ObjectSpace.each_object(Hash).find { |h| h.key?("nonce") && h.key?("path") }["nonce"]'


@pytest.mark.parametrize("line", [
    '"not json\\n"',
    '"{\\"status\\": \\"ok\\"}\\n"',
    '"[" * 100000 + "\\n"',
    'JSON.generate({"nonce" => ' + NONCE + ', "status" => "ok", "error" => "", '
    '"categories" => {"m1.1" => {"count" => -1, "markers" => []}}}) + "\\n"',
    'JSON.generate({"nonce" => ' + NONCE + ', "status" => "unavailable", "error" => "", "categories" => {}}) + "\\n"',
    'JSON.generate({"nonce" => ' + NONCE + ', "status" => "ok", "error" => "", '
    '"categories" => {"m" => {"count" => 1, "markers" => [["polygon", [1.5, "x"]]]}}}) + "\\n"',
])
def test_a_malformed_result_is_the_decks_crash(hostile_pool, layouts, line):
    result = run_hostile(hostile_pool, layouts, f"{RESULTS}.syswrite({line})\nsleep 0.2")
    assert result.status is DrcStatus.CRASHED
    assert "unreadable result" in result.error


def test_an_oversized_result_is_a_crash_and_the_next_layout_is_clean(hostile_pool, layouts):
    body = f'{RESULTS}.syswrite("x" * (40 << 20)) if File.size($input) == {layouts["narrow"].stat().st_size}'
    results = hostile_pool.run(PREFIX + body + '\ninput(1, 0).width(0.14).output("w", "width")',
                               [layouts["narrow"], layouts["clean"]])
    assert results[0].status is DrcStatus.CRASHED and "over" in results[0].error
    assert results[1].status is DrcStatus.OK and results[1].counts == {"w": 0}


def test_a_deck_that_silences_the_workers_deadline_is_killed_from_outside(layouts, monkeypatch):
    monkeypatch.setattr(KlayoutWorker, "GRACE", 1.0)
    body = (
        'ObjectSpace.each_object(IO) { |io| begin; io.syswrite(".") if !io.closed? && io.fileno > 2; '
        'rescue StandardError; end }\n'
        "loop { }"
    )
    with DrcPool(workers=1, timeout=2.0, cache=DrcCache(size=0)) as pool:
        results = pool.run(PREFIX + body, [layouts["narrow"], layouts["clean"]])
        [after] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])
    assert [r.status for r in results] == [DrcStatus.TIMEOUT, DrcStatus.TIMEOUT]
    assert results[1].error.startswith("not run")  # no second attempt, no second wait
    assert after.counts == {"m1.1": 1, "m1_2": 0}


def test_a_worker_killed_while_idle_is_restarted_for_the_next_deck(layouts):
    with DrcPool(workers=1, timeout=10.0, cache=DrcCache(size=0)) as pool:
        worker = pool.workers[0]
        [before] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])
        killed = processes_of(worker.sandbox.uid)
        for pid in killed:
            os.kill(pid, 9)
        while processes_of(worker.sandbox.uid) or worker.process.poll() is None:
            time.sleep(0.05)
        [after] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])  # the job message meets a dead pipe
    assert killed and before.counts == after.counts == {"m1.1": 1, "m1_2": 0}


def test_a_worker_killed_from_outside_is_unavailable_and_not_cached(layouts):
    with DrcPool(workers=1, timeout=10.0) as pool:
        worker = pool.workers[0]
        pool.run(WIDTH_SPACE_DECK, [layouts["clean"]])  # started
        stop = threading.Event()

        def kill_the_sandbox():
            while not stop.is_set():
                for pid in processes_of(worker.sandbox.uid):
                    try:
                        os.kill(pid, 9)
                    except ProcessLookupError:
                        pass
                time.sleep(0.05)

        killer = threading.Thread(target=kill_the_sandbox)
        killer.start()
        deck = PREFIX + 'sleep 1\ninput(1, 0).output("w", "all")'
        try:
            [result] = pool.run(deck, [layouts["narrow"]])
        finally:
            stop.set()
            killer.join()
        assert result.status is DrcStatus.UNAVAILABLE
        [again] = pool.run(deck, [layouts["narrow"]])
        assert again.status is DrcStatus.OK and again.counts == {"w": 2}
