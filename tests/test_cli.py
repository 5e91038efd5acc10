"""The chipgym command, run as a user would, on real KLayout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

import chipgym as chipgym_package
from chipgym.render import render_layout, save_png

from layout_helpers import WIDTH_SPACE_DECK


def chipgym(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chipgym.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_doctor_finds_the_tools_and_runs_a_deck():
    run = chipgym("doctor")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "KLayout 0.28" in run.stdout
    assert "a deck ran in a sandboxed KLayout worker" in run.stdout


def test_drc_run_json_and_images(layouts, tmp_path):
    deck = tmp_path / "rules.drc"
    deck.write_text(WIDTH_SPACE_DECK)
    bad = tmp_path / "bad.drc"
    bad.write_text("source($input)\nreport('x', $output)\ninput(1, 0).widht(1)")
    run = chipgym("drc", "run", deck, bad, "--layout", layouts["narrow"], "--layout", layouts["close"], "--json",
                  "--image", tmp_path / "img")
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    assert [(r["deck"], r["layout"], r["status"]) for r in rows] == [
        (str(deck), str(layouts["narrow"]), "ok"),
        (str(deck), str(layouts["close"]), "ok"),
        (str(bad), str(layouts["narrow"]), "runtime"),
        (str(bad), str(layouts["close"]), "runtime"),
    ]
    assert rows[0]["categories"] == {"m1.1": 1, "m1_2": 0}
    assert "widht" in rows[2]["error"]
    assert sorted(p.name for p in (tmp_path / "img").iterdir()) == [
        "bad--close.png", "bad--narrow.png", "rules--close.png", "rules--narrow.png"
    ]


def test_drc_run_names_a_missing_file(layouts, tmp_path):
    run = chipgym("drc", "run", tmp_path / "missing.drc", "--layout", layouts["narrow"])
    assert run.returncode == 2
    assert "missing.drc" in run.stderr


def test_markers_are_drawn_in_their_category_colour(pool, layouts, tmp_path):
    [result] = pool.run(WIDTH_SPACE_DECK, [layouts["narrow"]])
    plain = render_layout(layouts["narrow"])
    marked = render_layout(layouts["narrow"], {n: c.markers for n, c in result.categories.items()})
    assert plain.shape == marked.shape == (480, 640, 3)
    red = np.all(marked == (0xE6, 0x19, 0x4B), axis=-1)
    assert red.sum() > 100 and not np.all(plain == (0xE6, 0x19, 0x4B), axis=-1).any()
    save_png(marked, tmp_path / "m.png")
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_chip_check_json_on_the_pipelined_fixture():
    design = Path(chipgym_package.__file__).parent / "tasks" / "chip" / "cpu" / "fixtures" / "pipelined"
    run = chipgym("chip", "check", design, "--json", "--no-formal")
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["passed"] is True and report["failures"] == []
    assert report["stats"]["memcpy"] == {"cycles": 18006, "retired": 12004}


def test_chip_check_names_the_failing_check(tmp_path):
    run = chipgym("chip", "check", tmp_path, "--json", "--no-formal")
    assert run.returncode == 1
    assert json.loads(run.stdout)["failures"][0]["check"] == "design"
