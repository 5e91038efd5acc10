"""Hostile designs played through chipgym/RtlDesign-v0's simulate action: a design's pyverilator library runs
only in its sandboxed worker, and one that floods, spins or exhausts memory ends its session with feedback
while the env lives on. Yosys's one reading of a design drops or refuses what these designs do
(``tests/scoring/test_chip_one_reading_hostile.py``): here they reach the sandbox behind it as written."""

from __future__ import annotations

import json
import os
import time

import pytest

from chipgym.engines.sandbox import processes_of
from chipgym.envs import rtl_actions as act
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.tasks.grading_seed import SEED_ENV

from chip_attacks import MEMORY_BOMB, as_written, with_block

RTL = "rtl/chipgym_cpu.v"
BOUND_SECONDS = 120  # a cold pyverilator build takes ~5-10 s here; the time limits below are 10-30 s


@pytest.fixture
def env():
    env = RtlDesignEnv(formal=False)
    env.reset(seed=0, options={"start": "multicycle"})
    yield env
    env.close()


def stopped(env, block: str, expected: str) -> dict:
    """Simulates the fixture with ``block`` added: the session ends with ``expected`` in the feedback, no
    process of its sandbox is left, and the env simulates the fixture again."""
    start = time.monotonic()
    env.step(act.write(RTL, with_block(block)))
    obs, reward, terminated, truncated, info = env.step(act.simulate("memcpy", cycles=200))
    assert info["status"] == "failed" and info["simulate"] == {"error": "simulation"}, obs["feedback"]
    assert obs["feedback"].startswith("Simulate: the simulation stopped: ") and expected in obs["feedback"], \
        obs["feedback"]
    assert time.monotonic() - start < BOUND_SECONDS and not terminated and env._stepper is None
    env.step(act.write(RTL, with_block("")))
    obs, *_, after = env.step(act.simulate("memcpy", cycles=20))
    assert after["status"] == "ok" and after["simulate"]["retired"] > 0, obs["feedback"]
    return info


def test_a_design_printing_megabytes_is_stopped(env, tmp_path, monkeypatch):
    as_written(monkeypatch, tmp_path / "cache")
    flood = """
  integer flood_i;
  always @(posedge clk) for (flood_i = 0; flood_i < 100000; flood_i = flood_i + 1)
    $display("flood flood flood flood flood flood flood flood flood flood flood flood %d", flood_i);
"""
    stopped(env, flood, "the design printed more than 8 MiB during one request; it printed first:\nflood flood")


def test_a_child_of_the_worker_cannot_write_to_its_reply_pipe(env, tmp_path, monkeypatch):
    # the worker's descriptors show in /proc to its own uid, but the pipes are this side's: opening one fails
    as_written(monkeypatch, tmp_path / "cache")  # $system is refused before any build
    forge = """
  integer forge_r;
  initial forge_r = $system("for f in /proc/$PPID/fd/[1-9]; do head -c 80000000 /dev/zero > $f; done");
"""
    env.step(act.write(RTL, with_block(forge)))
    obs, reward, terminated, truncated, info = env.step(act.simulate("memcpy", cycles=20))
    assert info["status"] == "ok" and info["simulate"]["retired"] > 0, obs["feedback"]
    assert obs["feedback"].count("Permission denied") >= 3, obs["feedback"]  # stdout, stderr and the replies


def test_a_design_spinning_inside_one_time_step_is_killed(env, tmp_path, monkeypatch):
    as_written(monkeypatch, tmp_path / "cache")
    spin = """
  integer spin_i = 0;
  initial while (1) spin_i = spin_i + 1;
"""
    stopped(env, spin, "did not answer within 10 s")


def test_a_design_that_exhausts_memory_is_stopped(env, tmp_path, monkeypatch):
    as_written(monkeypatch, tmp_path / "cache")
    # 2**27 words of 1024 bits: 16 GiB, over the session's 2 GiB address space cap.
    stopped(env, MEMORY_BOMB, "bad_alloc")


def test_the_design_runs_without_network_host_files_or_the_grading_seed(env, tmp_path, monkeypatch):
    monkeypatch.setenv(SEED_ENV, "8675309")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-42")
    secret.chmod(0o644)
    as_written(monkeypatch, tmp_path / "cache")  # $system and $fopen are refused before any build
    # $system and $fopen are compiled into the library (Yosys never sees it here); what they reach is printed
    spy = f"""
  integer spy_r, spy_fd, spy_c;
  initial begin
    spy_r = $system("echo SPY-SYSTEM-$$; cat {secret}; echo SEED=${SEED_ENV}; ls /work /root 2>&1 | head -3");
    spy_fd = $fopen("{secret}", "r");
    $display("SPY-FOPEN %0d", spy_fd);
  end
"""
    env.step(act.write(RTL, with_block(spy)))
    obs, reward, terminated, truncated, info = env.step(act.simulate("memcpy", cycles=5))
    shown = json.dumps([obs, info])
    assert info["status"] == "ok" and "SPY-FOPEN 0" in obs["feedback"], obs["feedback"]
    assert "TOPSECRET" not in shown and "8675309" not in shown and "SEED=\\n" in shown
    uid = env._stepper.session.sandbox.uid
    assert uid != os.geteuid() and processes_of(uid)
    env.close()
    assert not processes_of(uid)
