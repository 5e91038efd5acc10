"""``chipgym eval`` stopped by SIGTERM exits 143 with the summary of the episodes that ended (no crash of Ray's),
and resumes: the episodes that ended are not played again, the others are, and the summary covers them all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from chipgym.baselines.step_log import read_episodes, read_records


def test_eval_stops_on_sigterm_with_a_summary_and_resumes(drc_folder, tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "chipgym", "eval", "--agent", "scripted", "--tasks", drc_folder, "--split",
               "all", "--samples", "2", "--workers", "2", "--out", str(out), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ)
    log = out / "steps.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if log.exists() and any(r["type"] == "end" for r in read_records(log)):
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr[-2000:]
    ended = {r["episode"] for r in read_records(log) if r["type"] == "end"}
    assert 1 <= len(ended) < 8
    stopped = json.loads((out / "summary.json").read_text())
    assert stopped["stopped"] and stopped["all"]["attempted"] == len(ended)
    assert "attempted" in stdout and f"stopped by SIGTERM: {8 - len(ended)} episodes not finished" in stdout
    assert "SIGABRT" not in stderr and "Traceback" not in stderr and "received at time" not in stderr
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    starts = [r["episode"] for r in read_records(log) if r["type"] == "start"]
    assert all(starts.count(key) == 1 for key in ended)  # finished episodes were not played again
    assert len(read_episodes(log)) == 8
    summary = json.loads((out / "summary.json").read_text())
    assert summary["all"]["episodes"] == 8 and summary["played"] == 8 - len(ended) and "pass@2" in summary["all"]
