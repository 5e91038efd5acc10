"""``chipgym eval`` resumes after the command is killed: the episodes that ended are not played again, the
others are, and the summary covers them all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from chipgym.baselines.step_log import read_episodes, read_records


def test_eval_resumes_after_being_killed(drc_folder, tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "chipgym", "eval", "--agent", "scripted", "--tasks", drc_folder, "--split",
               "all", "--samples", "2", "--workers", "2", "--out", str(out), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
    log = out / "steps.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if log.exists() and any(r["type"] == "end" for r in read_records(log)):
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) != 0
    ended = {r["episode"] for r in read_records(log) if r["type"] == "end"}
    assert 1 <= len(ended) < 8
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    starts = [r["episode"] for r in read_records(log) if r["type"] == "start"]
    assert all(starts.count(key) == 1 for key in ended)  # finished episodes were not played again
    assert len(read_episodes(log)) == 8
    summary = json.loads((out / "summary.json").read_text())
    assert summary["all"]["episodes"] == 8 and summary["played"] == 8 - len(ended) and "pass@2" in summary["all"]
