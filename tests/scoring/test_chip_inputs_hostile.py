"""What crosses from a design's or a model's process into the grader, against hostile designs (issue 28 §4), and
the grader's own bookkeeping (§5): every file a model reads is in the keys, a failed check stops the work beside
it, and a flop that follows its set and clear pins combinationally is timed through them.

Each attack raised out of the grader (or returned a stale reward) before issue 28; each is now that design's
failure, naming what was wrong.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.engines.pyverilator import Session
from chipgym.envs import rtl_actions as act
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.errors import SimulationError
from chipgym.scoring.chip import score_design
from chipgym.scoring.profile import load_profile
from chipgym.scoring.synthesis import synthesize
from chipgym.scoring.timing import check_timing
from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.lockstep import SCHEMA
from chipgym.tasks.chip.cpu.workloads import kernel
from chipgym.tasks.chip.design import MAX_TOML, load_design
from chipgym.tasks.chip.pysim import library
from chipgym.tasks.chip.registry import load_task

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

MODEL = "model/timing_model.py"
ONE_PROGRAM = [kernel("memcpy", n=3)]
OSU018 = load_profile("osu018")


def copy(dest: Path, fixture: str = "multicycle") -> Path:
    return shutil.copytree(FIXTURES / fixture, dest)


# -- §4 a timing model that forges the loader's protocol ---------------------------------------------------
FORGE = '''
import os
def predict(run, latency):
    for fd in range(3, 32):  # the loader's own descriptor for the answers: the model's process holds it
        try:
            os.write(fd, {answers!r})
        except OSError:
            pass
    os._exit(0)
'''


def forging(design: Path, answers: bytes) -> Path:
    (design / MODEL).write_text(FORGE.format(answers=answers))
    return design


@pytest.mark.parametrize("answers, problem", [
    (b"[7]", "answer 0: not an object of prediction or of error"),
    (b'[{"cycles": 1}]', "answer 0: not an object of"),
    (b'[{"prediction": {"retire_cycles": [1e999]}}]', "a number that is not an integer"),
    (b'[{"error": 5}]', "answer 0: not an object of"),
    (b'{"retire_cycles": []}', "not a list of 1 answers"),
    (b"[]", "not a list of 1 answers"),
    (b"[" * 100_000, "nested too deeply"),
    (b"\xff\xfe[]", "not JSON"),
])
def test_a_timing_model_forging_the_loader_protocol_fails_lockstep(tmp_path, answers, problem):
    # before issue 28: TypeError or KeyError out of check and submit
    design = forging(copy(tmp_path / "design"), answers)
    report = check_design(design, workloads=ONE_PROGRAM, formal=False)
    [(check, detail)] = report.failures
    assert check == "lockstep" and detail.startswith("timing model: the timing model's process wrote answers that "
                                                     "break the protocol: ") and problem in detail, detail


@pytest.mark.parametrize("prediction", [
    b'{"retire_cycles": 5, "cycles": 1, "retired": 1, "stalls": 0}',  # not a list of cycles
    b'{"retire_cycles": [true], "cycles": 1, "retired": 1, "stalls": 0}',  # a bool is not a cycle
    b'{"retire_cycles": [], "cycles": "1", "retired": 1, "stalls": 0}',  # nor text
    b'{"retire_cycles": []}',  # no counters
    b'[]',
])
def test_a_prediction_outside_the_cpus_schema_fails_lockstep_on_its_program(tmp_path, prediction):
    # the engine hands the answer back as it is (issue 29 §3); the cpu task reads it against its own schema
    design = forging(copy(tmp_path / "design"), b'[{"prediction": ' + prediction + b"}]")
    report = check_design(design, workloads=ONE_PROGRAM, formal=False)
    [(check, detail)] = report.failures
    assert check == "lockstep" and detail == f"{ONE_PROGRAM[0].name}: the model must return {SCHEMA}", detail


def test_a_forged_protocol_is_a_failed_score(tmp_path):
    design = forging(copy(tmp_path / "design"), b"[7]")
    score = score_design(design, profile="osu018")
    assert score.status == "failed" and score.failures[0][0] == "lockstep", score.summary()


# -- §4 a design.toml nested too deeply, or too large --------------------------------------------------------
NESTED = 'top = "chipgym_cpu"\nclock_period_ps = 8000\nx = ' + "[" * 30_000 + "]" * 30_000 + "\n"


@pytest.mark.parametrize("toml, expected", [
    (NESTED, "design.toml: nested too deeply"),
    ('top = "chipgym_cpu"\nclock_period_ps = 8000\n#' + "x" * MAX_TOML, f"over the limit of {MAX_TOML:,}"),
    ("top = [[[1]]]\nclock_period_ps = 8000\n", "top a list is not a plain Verilog identifier"),
    ('top = "chipgym_cpu"\nclock_period_ps = [[[1]]]\n', "must be an integer from 1 to 1000000, not a list"),
])
def test_a_malformed_design_toml_is_a_design_failure_in_check_simulate_and_submit(toml, expected):
    # before issue 28: RecursionError out of all three
    env = RtlDesignEnv(formal=False)
    try:
        env.reset(seed=0, options={"start": "multicycle"})
        env.step(act.write("design.toml", toml))
        obs, _, _, _, info = env.step(act.check())
        assert info["check"]["failed_checks"] == ["design"] and expected in obs["feedback"], obs["feedback"]
        obs, _, _, _, info = env.step(act.simulate("memcpy", cycles=5))
        assert info["simulate"] == {"error": "design"} and expected in obs["feedback"], obs["feedback"]
        obs, reward, terminated, _, info = env.step(act.submit())
        assert terminated and reward == 0.0 and info["failures"][0][0] == "design", info
        assert expected in info["failures"][0][1]
    finally:
        env.close()


# -- §4 CpuKnobs-v0 actions whose conversion raises ---------------------------------------------------------
class Raising:
    """An action whose every conversion raises what it is told to."""

    def __init__(self, error: type[BaseException]):
        self.error = error

    def __array__(self, *args, **kwargs):
        raise self.error("no array")

    def __len__(self):
        raise self.error("no length")

    def __iter__(self):
        raise self.error("no iteration")

    def __repr__(self):
        raise self.error("no repr")


@pytest.mark.parametrize("action", [Raising(RuntimeError), Raising(ZeroDivisionError), Raising(RecursionError),
                                    [Raising(RuntimeError)] * 5,
                                    np.array([0, 0, 0, 0, 2**62], dtype=np.int64), np.array([1e300] * 5)])
def test_every_knob_action_returns_a_step(action, tmp_path):
    # before issue 28: RuntimeError out of step
    env = gymnasium.make("chipgym/CpuKnobs-v0", evaluations=2)
    try:
        env.reset(seed=0)
        obs, reward, terminated, _, info = env.step(action)
        assert reward == 0.0 and info["action_error"].startswith("action:") and obs in env.observation_space
        assert not terminated and info["budget"] == 1
        env.unwrapped.save_episode(tmp_path / "episode.json")
    finally:
        env.close()


# -- §4 replies of the pyverilator worker that break its protocol -------------------------------------------
FORGING_BENCH = '''
import os, stat
class Bench:
    """Stands for any code in the worker's process (before issue 28, the design's own $c): it writes a reply of
    its own on every pipe it holds, as if it were the worker's."""

    def __init__(self, model, job):
        self.events, self.done = [], None

    def cycle(self, n):
        for fd in range(3, 32):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.write(fd, {line!r}.encode() + b"\\n")
            except OSError:
                pass
        self.done = "forged"
'''


@pytest.mark.parametrize("line, problem", [
    ('{"cycle": 1e999, "done": null, "events": [], "changes": {}}', "a number that is not an integer (1e999)"),
    ('{"cycle": -1, "done": null, "events": [], "changes": {}}', "cycle is not a count"),
    ('{"cycle": 1, "done": 5, "events": [], "changes": {}}', "done is neither text nor null"),
    ('{"cycle": 1, "done": null, "events": [["R", 1.5]], "changes": {}}', "not an integer"),
    ('{"cycle": 1, "done": null, "events": [["R", [1]]], "changes": {}}', "events is not a list of"),
    ('{"cycle": 1, "done": null, "events": [], "changes": {"pc": [[0, "x"]]}}', "changes is not an object of"),
    ('{"cycle": 1, "done": null, "events": [], "changes": {"pc": [[0, 123456789012345678901234]]}}', "64 bits"),
    ('[1, 2]', "not a JSON object"),
    ('{"cycle": true}', "cycle is not a count"),
    ('{"cycle": NaN}', "not an integer (NaN)"),
])
def test_a_forged_worker_reply_ends_the_session(tmp_path, line, problem):
    # before issue 28: {"cycle": 1e999} raised OverflowError out of env.step
    bench = tmp_path / "bench.py"
    bench.write_text(FORGING_BENCH.format(line=line))
    with Session(library(load_design(FIXTURES / "multicycle")), bench) as session:
        session.start()
        session.request({"op": "reset", "job": {}}, timeout=30)
        with pytest.raises(SimulationError, match="the simulation process wrote a reply") as error:
            session.request({"op": "run", "until": 1, "trace_from": 0, "signals": []}, timeout=30)
        assert problem in str(error.value) and session.process is None


# -- §5 every file a timing model reads is in every key --------------------------------------------------------
HELPER_MODEL = '''
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from helper import LATE
_honest = predict
def predict(run, latency):
    p = _honest(run, latency)
    p["cycles"] += LATE
    return p
'''


def with_helper(design: Path, late: int) -> None:
    (design / "model" / "helper.py").write_text(f"LATE = {late}\n")


def test_a_timing_model_helper_is_in_the_check_and_score_keys(tmp_path):
    # before issue 28, with the helper made one cycle late, the env's check said PASS from its memory, and
    # chipgym chip score returned the honest model's cached reward (0.1229, ok)
    design = copy(tmp_path / "design")
    (design / MODEL).write_text((design / MODEL).read_text() + HELPER_MODEL)
    with_helper(design, 0)
    honest = score_design(design, profile="osu018")
    assert honest.status == "ok", honest.summary()
    with_helper(design, 1)
    late = score_design(design, profile="osu018")
    assert late.status == "failed" and late.key != honest.key and late.failures[0][0] == "lockstep", late.summary()
    env = RtlDesignEnv(formal=False)
    try:
        env.reset(seed=0, options={"start": "multicycle"})
        env.step(act.write(MODEL, (design / MODEL).read_text()))
        env.step(act.write("model/helper.py", "LATE = 0\n"))
        assert env.step(act.check())[-1]["status"] == "ok"
        env.step(act.write("model/helper.py", "LATE = 1\n"))
        info = env.step(act.check())[-1]
        assert info["status"] == "failed" and info["check"]["failed_checks"] == ["lockstep"], info
    finally:
        env.close()


# -- §5 a check that fails stops the synthesis, timing and gate-level work beside it ---------------------------
def test_a_failed_check_cancels_the_implementation_beside_it(tmp_path, monkeypatch):
    """The pipelined core with a wrong ADD, cold: its check (build, simulation, formal) takes about a minute, the
    synthesis and the gate-level build beside it longer."""
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path / "cache"))
    design = CPU.mutants["wrong_add"].materialize(tmp_path / "design")
    start = time.monotonic()
    score = score_design(design, profile="osu018")
    wall = time.monotonic() - start
    assert score.status == "failed" and score.failures[0][0] == "functional", score.summary()
    # before issue 28 the score waited for the gate-level build to end: 74.7 s against a check of 60.8 s in one
    # run; after, 89.4 s against 88.7 s (a busier machine), the build stopped after 67.4 s of its ~90. On a
    # fresh 2-core machine the score's own steps beside the check (loading, stopping the build) took 5.4-6.3 s.
    assert wall < score.seconds["check"] + 10, (wall, score.seconds)


# -- §5 asynchronous set and clear pins are timed through ------------------------------------------------------
FOLLOWER = """
module follow(input clk, input [15:0] a, input [15:0] b, output reg [31:0] y);
  reg [15:0] ra, rb;
  always @(posedge clk) begin ra <= a; rb <= b; end
  wire [31:0] p = ra * rb;
  wire [31:0] np = ~p;
  reg [31:0] q;  // set by p, cleared by ~p: q follows p combinationally, with the clock doing nothing
  genvar i;
  for (i = 0; i < 32; i = i + 1) begin : bits
    always @(posedge clk or posedge p[i] or posedge np[i])
      if (p[i]) q[i] <= 1'b1; else if (np[i]) q[i] <= 1'b0; else q[i] <= ra[0];
  end
  always @(posedge clk) y <= q[15:0] * q[31:16];
endmodule
"""


def test_a_flop_following_its_set_and_clear_is_timed_through_them(tmp_path):
    """Two multipliers, one into the set and clear pins of flops, one out of them: each half is ~5.8 ns, the path
    ~10.7 ns. Without the preset/clear arcs, OpenSTA timed the halves only (+500.5 ps at 6,500 ps)."""
    design = tmp_path / "follow"
    (design / "rtl").mkdir(parents=True)
    (design / "design.toml").write_text('top = "follow"\nclock_period_ps = 6500\n')
    (design / "rtl" / "follow.v").write_text(FOLLOWER)
    netlist = synthesize(load_design(design), OSU018, ())
    cells = json.loads(netlist.json.read_text())["modules"]["follow"]["cells"].values()
    assert sum(cell["type"] == "DFFSR" for cell in cells) == 32
    timing = check_timing(netlist, OSU018, 6500)
    assert not timing.met and timing.slack_ps < -4000, timing.slack_ps
    path = timing.critical_path
    assert "(DFFSR)" in path and ("/S (DFFSR)" in path or "/R (DFFSR)" in path) and "/Q (DFFSR)" in path, path


def test_the_fixture_has_no_such_flop_and_keeps_its_slack():
    netlist = synthesize(load_design(FIXTURES / "multicycle"), OSU018, load_task("cpu").simulation_ports)
    # 12.5 ps before the arcs were timed and until issue 40 §1; synthesized from the canonical design: 252.3 ps
    assert check_timing(netlist, OSU018, 8000).slack_ps == 252.3
