"""``chipgym replay`` on records an attacker wrote: one that is not JSON, has fields of the wrong types, is a
FIFO, nests too deeply, points at a missing or a hostile task folder, asks for a deck timeout of 1e6 s, names
an argument the env does not take or keeps secret, or spins its deck past the replay's time limit. Each is its
own error row, naming what is wrong, and the good record beside them still replays as saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.envs.episode import EpisodeRecord, check_kwargs, replay
from chipgym.tasks.drc.rule2drc import write_rule2drc

from layout_helpers import MET1_WIDTH_GOLD, met1_width_task

SPIN = 'source($input)\nreport("m1", $output)\nwhile true do end\n'
TIME_LIMIT = 20


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A folder of records: the good one and the hostile ones, by name."""
    root = tmp_path_factory.mktemp("replay")
    (root / "task").mkdir()
    task = met1_width_task(root / "task", {"ex_narrow": 0.12, "ex_wide": 0.25}, {"h0": 0.1, "h1": 0.3})
    problems = str(write_rule2drc([task], root / "suite"))
    env = DrcScriptEnv(tasks=problems, split="all", regime="evaluation")
    env.reset(seed=0)
    env.step(act.write(MET1_WIDTH_GOLD))
    env.step(act.submit())
    good = env.episode_record.to_dict()
    env.close()

    hostile = root / "hostile" / "problems" / task.id
    hostile.mkdir(parents=True)
    os.mkfifo(hostile / "spec.yaml")  # whoever opens it waits for a writer, for ever
    spinning = {**good, "kwargs": {**good["kwargs"], "timeout": 100.0},
                "steps": [{"action": act.write(SPIN), "reward": 0.0, "terminated": False, "truncated": False},
                          {"action": act.run(), "reward": 0.0, "terminated": False, "truncated": False}]}
    records = {
        "good": good,
        "missing folder": {**good, "kwargs": {**good["kwargs"], "tasks": str(root / "nowhere")}},
        "hostile folder": {**good, "kwargs": {**good["kwargs"], "tasks": str(root / "hostile" / "problems")}},
        "timeout 1e6": {**good, "kwargs": {**good["kwargs"], "timeout": 1e6}},
        "unknown argument": {**good, "kwargs": {**good["kwargs"], "module": "os"}},
        "secret argument": {**good, "kwargs": {**good["kwargs"], "grading_secret": 1}},
        "wrong kind": {**good, "kwargs": {**good["kwargs"], "split": 3}},
        "reward text": {**good, "steps": [{**good["steps"][0], "reward": "1.0"}]},
        "seed -1": {**good, "seed": -1},
        "spinning deck": spinning,
    }
    paths = {}
    for name, record in records.items():
        paths[name] = root / f"{name.replace(' ', '-')}.json"
        paths[name].write_text(json.dumps(record))
    for name, text in (("not json", "{oops"), ("nested", "[" * 100_000)):
        paths[name] = root / f"{name.replace(' ', '-')}.json"
        paths[name].write_text(text)
    paths["fifo"] = root / "fifo.json"
    os.mkfifo(paths["fifo"])
    return paths


EXPECTED = {  # name -> what its row says
    "good": "as saved",
    "missing folder": "error: ",
    "hostile folder": "error: ",
    "timeout 1e6": "error: ValueError: kwargs.timeout: 1000000.0 is outside what a replay allows (0.001 to 120.0)",
    "unknown argument": "error: ValueError: kwargs.module: chipgym/DrcScript-v0 takes no such argument",
    "secret argument": "error: ValueError: kwargs.grading_secret: a secret argument, which a record never holds",
    "wrong kind": "error: ValueError: kwargs.split: expected text (as its default 'train'), got 3",
    "reward text": "steps[0].reward: expected a finite number",
    "seed -1": "seed: expected null or an integer from 0 to 2**63 - 1",
    "spinning deck": f"error: the replay ran out of its time limit of {TIME_LIMIT} s",
    "not json": "not a saved chipgym episode (Expecting property name",
    "nested": "not a saved chipgym episode (nested too deeply)",
    "fifo": "not a saved chipgym episode (not a regular file)",
}


def test_every_hostile_record_is_its_own_error_row_and_the_good_one_replays(saved):
    names = list(saved)
    began = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "chipgym", "replay", *map(str, saved.values()), "--workers", "2",
                          "--time-limit", str(TIME_LIMIT)], capture_output=True, text=True, timeout=240)
    seconds = time.monotonic() - began
    rows = run.stdout.splitlines()[1:]
    assert run.returncode == 1 and len(rows) == len(names), run.stdout + run.stderr[-3000:]
    for name, row in zip(names, rows):
        assert row.startswith(str(saved[name])) and EXPECTED[name] in row, (name, row)
    assert seconds < 3 * TIME_LIMIT + 60  # the two records out of time ran side by side with the others


def test_a_record_is_checked_before_any_env_is_made(saved):
    with pytest.raises(ValueError, match="kwargs.timeout: 1000000.0 is outside"):
        replay(saved["timeout 1e6"])
    with pytest.raises(ValueError, match="not a regular file"):
        EpisodeRecord.load(saved["fifo"])
    check_kwargs("chipgym/DrcScript-v0", EpisodeRecord.load(saved["good"]).kwargs)
