"""The one disk cache, on real files and real processes: bounded, least recently used first, never half an entry."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from chipgym.cache import STALE_SECONDS, Cache
from chipgym.cli import main

BLOCK = 64 << 10  # a whole number of file system blocks, so an entry of it takes exactly that on disk


def _writer(root: Path, code: str) -> subprocess.Popen:
    """A process that runs ``code`` with ``cache``, a Cache in ``root``."""
    script = f"from pathlib import Path\nfrom chipgym.cache import Cache\ncache = Cache(Path({str(root)!r}))\n"
    return subprocess.Popen([sys.executable, "-c", script + textwrap.dedent(code)])


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_cache_past_its_limit_evicts_the_least_recently_used_first(tmp_path):
    cache = Cache(tmp_path, max_bytes=5 * BLOCK + BLOCK // 2)
    suite = cache.put_folder("drc", "drc-v0-seed1", {"labels.csv": b"x" * BLOCK})  # not counted, never evicted
    for key in "abcde":
        cache.put_bytes("scores", key, b"x" * BLOCK)
    assert cache.get_bytes("scores", "a") == b"x" * BLOCK  # read: now the most recently used
    cache.put_bytes("formal", "f", b"x" * BLOCK)
    left = {e.path.name for e in cache.entries() if e.kind != "drc"}
    assert left == {"a", "c", "d", "e", "f"}  # b went first, not a
    assert sum(e.bytes for e in cache.entries() if e.kind != "drc") <= cache.max_bytes
    big = cache.put_bytes("verilator", "big", b"x" * 8 * BLOCK)  # over the limit alone: kept, as it is returned
    assert [e.path for e in cache.entries() if e.kind != "drc"] == [big]
    assert cache.get_folder("drc", "drc-v0-seed1") == suite


def test_a_writer_killed_mid_entry_leaves_nothing_that_is_served(tmp_path):
    cache = Cache(tmp_path)
    writer = _writer(tmp_path, 'cache.put_folder("verilator", "build", {f"f{i}": b"x" for i in range(100_000)})')
    try:
        while not [p for p in (tmp_path / "verilator").glob(".*") if len(os.listdir(p)) > 10]:
            assert writer.poll() is None, "the writer finished before it could be killed"
            time.sleep(0.001)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    [temporary] = (tmp_path / "verilator").iterdir()
    assert cache.get_folder("verilator", "build") is None and cache.entries() == []
    assert (cache.put_folder("verilator", "build", {"sim": b"whole"}) / "sim").read_bytes() == b"whole"
    assert temporary.exists()  # it may be a live writer's, until it is stale
    _age(temporary, STALE_SECONDS + 1)
    assert cache.clear(older_than=86400) == [] and not temporary.exists()  # as every count of the entries does
    assert cache.get_folder("verilator", "build") is not None


def test_a_half_written_file_is_a_miss(tmp_path):
    cache = Cache(tmp_path)
    (tmp_path / "scores").mkdir()
    (tmp_path / "scores" / ".1234-0badcafe-key.json").write_bytes(b'{"rew')  # as a crash mid-write leaves it
    assert cache.get_json("scores", "key.json") is None and cache.entries() == []
    with pytest.raises(ValueError, match="plain names"):
        cache.get_json("scores", ".1234-0badcafe-key.json")


def test_two_processes_putting_the_same_keys_both_end_with_whole_entries(tmp_path):
    code = """
        for i in range(200):
            cache.put_folder("synthesis", f"n{i}", {"netlist.v": b"v" * 5000, "result.json": b"{}"})
            cache.put_json("scores", f"s{i}.json", {"reward": i})
    """
    writers = [_writer(tmp_path, code) for _ in range(2)]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    cache = Cache(tmp_path)
    for i in range(200):
        folder = cache.get_folder("synthesis", f"n{i}")
        assert sorted(os.listdir(folder)) == ["netlist.v", "result.json"]
        assert (folder / "netlist.v").read_bytes() == b"v" * 5000
        assert cache.get_json("scores", f"s{i}.json") == {"reward": i}
    assert not [p for kind in ("synthesis", "scores") for p in (tmp_path / kind).glob(".*")]


def test_folder_entries_copy_files_and_keep_the_first_one_written(tmp_path):
    cache = Cache(tmp_path)
    sim = tmp_path / "sim"
    sim.write_bytes(b"#!/bin/sh\n")
    sim.chmod(0o755)
    folder = cache.put_folder("verilator", "k", {"sim": sim, "notes.txt": b"built"})
    assert os.access(folder / "sim", os.X_OK) and (folder / "notes.txt").read_bytes() == b"built"
    assert cache.put_folder("verilator", "k", {"sim": b"another"}) == folder  # same key, same content
    assert sorted(os.listdir(folder)) == ["notes.txt", "sim"]
    with pytest.raises(FileNotFoundError):
        cache.put_folder("verilator", "broken", {"sim": tmp_path / "missing"})
    assert cache.get_folder("verilator", "broken") is None and not list((tmp_path / "verilator").glob(".*"))


def test_cache_info_and_clear_older_than(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path))
    monkeypatch.setenv("CHIPGYM_CACHE_MAX_BYTES", str(1 << 30))
    cache = Cache(tmp_path)
    cache.put_json("scores", "old.json", {})
    cache.put_json("scores", "new.json", {})
    cache.put_folder("verilator", "old", {"sim": b"x" * BLOCK})
    cache.put_folder("drc", "drc-v0-seed1", {"spec.yaml": b"x"})
    _age(tmp_path / "scores" / "old.json", 3 * 86400)
    _age(tmp_path / "verilator" / "old", 3 * 86400)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"folder {tmp_path}" in out and "of 1.0 GiB" in out
    assert [line.split()[:2] for line in out.splitlines()[1:4]] == [["drc", "1"], ["scores", "2"], ["verilator", "1"]]
    assert "never evicted" in out.splitlines()[1]
    assert main(["cache", "clear", "scores", "--older-than", "2d"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert sorted(e.path.name for e in cache.entries()) == ["drc-v0-seed1", "new.json", "old"]
    assert main(["cache", "clear", "--older-than", "12h"]) == 0
    assert sorted(e.path.name for e in cache.entries()) == ["drc-v0-seed1", "new.json"]
    assert main(["cache", "clear"]) == 0
    assert cache.entries() == []


def test_cache_commands_refuse_bad_arguments(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path))
    Cache(tmp_path).put_json("scores", "s.json", {})
    assert main(["cache", "clear", "scroes"]) == 2
    assert "holds no 'scroes' (it holds: scores)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["cache", "clear", "--older-than", "7 days"])
    assert "'7 days' is not a duration such as 7d" in capsys.readouterr().err
    monkeypatch.setenv("CHIPGYM_CACHE_MAX_BYTES", "5G")
    assert main(["cache", "info"]) == 2
    assert "CHIPGYM_CACHE_MAX_BYTES must be a whole number of bytes" in capsys.readouterr().err
