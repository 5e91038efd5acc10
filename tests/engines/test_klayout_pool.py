"""The pool's results against a plain `klayout -b -r` run, its cache, its errors and its clean shutdown."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from chipgym.cache import Cache
from chipgym.engines.klayout import CategoryResult, DrcCache, DrcJob, DrcResult, DrcStatus, read_report_counts
from chipgym.engines.sandbox import processes_of

from layout_helpers import WIDTH_SPACE_DECK


def klayout_counts(deck: Path, layout: Path, report: Path) -> dict[str, int]:
    """Marker counts per category from one plain `klayout -b -r` process, as Rule2DRC runs a deck."""
    subprocess.run(["klayout", "-b", "-r", deck, "-rd", f"input={layout}", "-rd", f"output={report}"], check=True)
    return read_report_counts(report)


def test_pool_agrees_with_a_plain_klayout_run(pool, layouts, tmp_path):
    deck = tmp_path / "deck.drc"
    deck.write_text(WIDTH_SPACE_DECK)
    names = ["narrow", "close", "clean"]
    results = pool.run(WIDTH_SPACE_DECK, [layouts[n] for n in names])
    assert all(r.ok for r in results)
    assert [r.counts for r in results] == [klayout_counts(deck, layouts[n], tmp_path / f"{n}.lyrdb") for n in names]


SCOPE_DECKS = {
    # chipgym's own rule texts write "µm"; the worker's environment is cleared (no locale)
    "non-ASCII text": '# width >= 0.1 µm\nsource($input)\nreport("µ", $output)\n'
                      'input(1, 0).width(0.1).output("m1.1 µm", "m1 width < 0.1 µm")\n',
    # `source` with no arguments is the default source, not a local variable of the worker's
    "source without arguments": 'source($input)\nreport("r", $output)\nsource.select("*")\n'
                                'l = layout(source.cell_obj)\nl.input(1, 0).width(0.1).output("w", "w")\n',
    # no other local of the worker is in the deck's scope (plain klayout has only its own `ex`)
    "the worker's locals": 'source($input)\nreport("r", $output)\nleaked = local_variables - [:ex, :leaked]\n'
                           'raise "worker locals: #{leaked}" unless leaked.empty?\n'
                           'input(1, 0).width(0.1).output("w", "w")\n',
}


@pytest.mark.parametrize("name", SCOPE_DECKS)
def test_a_deck_runs_as_under_plain_klayout(pool, layouts, tmp_path, name):
    deck = tmp_path / "deck.drc"
    deck.write_text(SCOPE_DECKS[name], encoding="utf-8")
    [result] = pool.run(SCOPE_DECKS[name], [layouts["narrow"]])
    assert result.ok, result.error
    assert result.counts == klayout_counts(deck, layouts["narrow"], tmp_path / "plain.lyrdb") != {}


ODD_NAMES_DECK = WIDTH_SPACE_DECK.replace('"m1.1"', '"it\'s a \\\\ name"').replace('"m1_2"', '"m 1.2"')


def test_the_report_read_from_memory_matches_the_file_klayout_writes(pool, layouts, tmp_path):
    """Category names that KLayout quotes in its file, two outputs to one name, markers: the same as plain klayout."""
    deck = ODD_NAMES_DECK + 'input(1, 0).space(0.2).output("m 1.2", "again")\n'
    (tmp_path / "deck.drc").write_text(deck)
    names = ["narrow", "close", "clean"]
    results = pool.run(deck, [layouts[n] for n in names])
    plain = [klayout_counts(tmp_path / "deck.drc", layouts[n], tmp_path / f"{n}.lyrdb") for n in names]
    assert [r.counts for r in results] == plain
    assert set(plain[0]) == {"it's a \\ name", "m 1.2"}


def test_a_report_written_without_report_is_read_from_its_file(pool, layouts):
    deck = ('rdb = RBA::ReportDatabase.new("own")\nrdb.create_category("own")\nrdb.save($output)\n'
            'source($input)\nreport("elsewhere", "/tmp/elsewhere.lyrdb")\ninput(1, 0).output("lost")\n')
    [own] = pool.run(deck, [layouts["narrow"]])
    [elsewhere] = pool.run(deck.split("\n", 3)[3], [layouts["narrow"]])
    assert own.counts == {"own": 0}
    assert elsewhere.status is DrcStatus.NO_REPORT


def test_markers_are_in_database_units(pool, layouts):
    [result] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])
    [marker] = result.categories["m1.1"].markers
    assert marker == ("edge_pair", (0, 0, 0, 2000, 100, 2000, 100, 0))


def test_batch_keeps_input_order_and_accepts_bytes(pool, layouts):
    decks = [WIDTH_SPACE_DECK.replace("0.14", value) for value in ("0.14", "0.04", "0.2")]
    jobs = [DrcJob(deck, [layouts["narrow"], layouts["close"].read_bytes()]) for deck in decks]
    results = pool.run_batch(jobs)
    assert [[r.counts for r in job] for job in results] == [
        [{"m1.1": 1, "m1_2": 0}, {"m1.1": 0, "m1_2": 1}],
        [{"m1.1": 0, "m1_2": 0}, {"m1.1": 0, "m1_2": 0}],
        [{"m1.1": 1, "m1_2": 0}, {"m1.1": 0, "m1_2": 1}],
    ]


def test_agent_mistakes_are_results(pool, layouts):
    decks = {
        "source($input)\nreport('x', $output)\ninput(1, 0).widht(0.1)": (DrcStatus.RUNTIME, "Did you mean?"),
        "source($input)\nreport('x', $output\n": (DrcStatus.COMPILE, "syntax error"),
        "source($input)\ninput(1, 0).width(0.2).output('w')": (DrcStatus.NO_REPORT, "report(title, $output)"),
    }
    for deck, (status, message) in decks.items():
        [result] = pool.run(deck, [layouts["narrow"]])
        assert result.status is status
        assert message in result.error


def test_cache_serves_repeated_runs_and_persists(layouts, tmp_path, pool):
    cache = DrcCache(size=8, disk=Cache(tmp_path / "cache"))
    key = cache.key(WIDTH_SPACE_DECK, layouts["narrow"].read_bytes(), pool.max_markers)
    [first] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])
    cache.put(key, first)
    assert DrcCache(disk=Cache(tmp_path / "cache")).get(key) == first
    assert pool.cache.get(key) == first


def test_the_cache_is_bounded_in_bytes_not_only_in_results():
    """Results with 5,000 markers each (about 150 kB of JSON) in a cache of 1 MB."""
    big = DrcResult(DrcStatus.OK, "",
                    {"all": CategoryResult(5000, tuple(("box", (i, i, i + 5, i + 5)) for i in range(5000)))})
    cache = DrcCache(size=1000, max_bytes=1 << 20)
    keys = [DrcCache.key(f"deck {i}", b"layout", 10_000) for i in range(20)]
    for key in keys:
        cache.put(key, big)
    kept = [i for i, key in enumerate(keys) if cache.get(key)]
    assert 0 < len(kept) < 20 and kept == list(range(20 - len(kept), 20))  # the newest stay


def test_missing_layout_names_the_file(pool, tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.gds"):
        pool.run(WIDTH_SPACE_DECK, [tmp_path / "nowhere.gds"])


def test_missing_klayout_says_how_to_install():
    code = "from chipgym.engines.klayout import DrcPool\nDrcPool(workers=1)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PATH": "/nonexistent"})
    assert run.returncode != 0
    assert "ToolMissingError" in run.stderr and "apt-get install -y klayout" in run.stderr


LEAK_SCRIPT = textwrap.dedent(
    """
    import json, signal, sys, time
    from chipgym.engines.klayout import DrcPool
    from chipgym.engines.tools import exit_cleanly_on_sigterm
    pool = DrcPool(workers=2)
    pool.run('source($input)', [sys.argv[2]])
    untouched = signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # a pool leaves the handler to the program
    if sys.argv[1] == "sigterm":
        exit_cleanly_on_sigterm()
    workers = {"uids": [w.sandbox.uid for w in pool.workers], "roots": [str(w.root) for w in pool.workers]}
    print(json.dumps({**workers, "untouched": untouched}), flush=True)
    if sys.argv[1] == "close":
        pool.close()
    elif sys.argv[1] == "sigterm":
        time.sleep(60)
    """
)


@pytest.mark.parametrize("ending", ["close", "exit", "sigterm"])
def test_shutdown_leaves_no_process_and_no_folder(ending, layouts):
    """Closing, exiting and (for a program that opts in with exit_cleanly_on_sigterm) SIGTERM."""
    child = subprocess.Popen([sys.executable, "-c", LEAK_SCRIPT, ending, str(layouts["clean"])],
                             stdout=subprocess.PIPE, text=True)
    started = json.loads(child.stdout.readline())
    assert started["untouched"]
    if ending == "sigterm":
        child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=60) in (0, 128 + signal.SIGTERM)
    deadline = time.monotonic() + 10
    while any(processes_of(uid) for uid in started["uids"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(processes_of(uid) for uid in started["uids"])
    assert not any(Path(root).exists() for root in started["roots"])


def test_two_outputs_to_one_category_add_up(pool, layouts):
    deck = WIDTH_SPACE_DECK.replace('"m1_2"', '"m1.1"')
    [result] = pool.run(deck, [layouts["narrow"]])
    assert result.counts == {"m1.1": 1}
    [result] = pool.run(deck, [layouts["close"]])
    assert result.counts == {"m1.1": 1} and len(result.categories["m1.1"].markers) == 1


def test_a_zombie_is_not_a_live_process_of_its_uid():
    """A sandbox's exit is not held up by a dead process whose parent has not reaped it yet."""
    child = subprocess.Popen(["true"])
    deadline = time.monotonic() + 10
    while child.pid in processes_of(os.getuid()) and time.monotonic() < deadline:
        time.sleep(0.01)  # it runs, exits, and stays a zombie until waited for
    assert Path(f"/proc/{child.pid}").exists() and child.pid not in processes_of(os.getuid())
    child.wait()
