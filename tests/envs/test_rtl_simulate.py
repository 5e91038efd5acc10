"""The simulate action of chipgym/RtlDesign-v0: pyverilator stepping, sandboxed, against the reference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import pytest

from chipgym.cli import main
from chipgym.envs import chat
from chipgym.envs import rtl_actions as act
from chipgym.envs.json_action import ActionError
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.checks import STALL_PERMILLE
from chipgym.tasks.chip.cpu.stepping import Stepper, resolve_program
from chipgym.tasks.chip.cpu.testbench import HARNESS, simulate
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.chip.verilator import build
from chipgym.waveform import parse_vcd

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"


@pytest.fixture
def env():
    env = RtlDesignEnv(formal=False, render_mode="rgb_array")
    yield env
    env.close()


@pytest.mark.parametrize("fixture, program, stall_seed", [
    ("multicycle", "memcpy", None), ("pipelined", "random-3", None), ("pipelined", "random-1001-misaligned_load", None),
    ("multicycle", "crc32", 7919), ("pipelined", "random-5", 15843)])
def test_stepping_retires_what_the_cpp_harness_retires_at_the_same_cycles(fixture, program, stall_seed):
    design, arch = load_design(FIXTURES / fixture), load_arch()
    prog = resolve_program(program)
    latency = {m: arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")}
    stalls = (stall_seed, STALL_PERMILLE) if stall_seed is not None else (0, 0)
    harness = simulate(build(design, HARNESS), prog, arch, latency, 10**6, *stalls)
    stepper = Stepper(design, prog, stall_seed)
    try:
        window = stepper.run(0, 10, ())
        while window.ended is None:
            window = stepper.run(stepper.cycle, 10_000, ())
    finally:
        stepper.close()
    assert stepper.got == harness.retirements and stepper.cycles == harness.cycles
    assert (stepper.final.end_cycle, stepper.final.halted, stepper.final.fault) == \
        (harness.end_cycle, harness.halted, harness.fault)
    assert stepper.final.counters == harness.counters and stepper.final.dmem == harness.dmem
    assert window.divergence is None


@pytest.mark.parametrize("mutant", ["wrong_add", "writable_r0", "withdrawn_request"])
def test_simulate_finds_the_mutants_divergence_at_the_cycle_check_reports(env, mutant):
    mutant = CPU.mutants[mutant]
    env.reset(seed=0, options={"start": mutant.fixture})
    for file, old, new in mutant.edits:
        env.step(act.patch(file, old, new))
    report = check_design(env.root, formal=False, heldout=False)
    check, detail = report.failures[0]
    program = detail.partition(":")[0]
    detail, _, seed = detail.partition(" [random stalls, seed ")  # a failure only under stalls names their seed
    stalls = int(seed.rstrip("]")) if seed else None
    obs, reward, terminated, truncated, info = env.step(act.simulate(program, cycles=10_000, signals=["ret_*"],
                                                                     stalls=stalls))
    assert info["status"] == "ok" and check == "functional"
    assert (stalls is not None) == (mutant.name == "withdrawn_request")
    assert info["simulate"]["divergence"] == detail, obs["feedback"]
    assert detail in obs["feedback"] and ("<-- first divergence" in obs["feedback"] or stalls is not None)


def test_continue_goes_on_in_the_same_session_until_the_design_changes(env):
    env.reset(seed=0, options={"start": "multicycle"})
    obs, *_, info = env.step(act.simulate("memcpy", cycles=30, signals=["pc", "regs[*]"]))
    stepper, pid = env._stepper, env._stepper.session.process.pid
    assert (info["simulate"]["start"], info["simulate"]["end"]) == (0, 30)
    assert "regs[15][31:0]: 0:0x0" in obs["feedback"] and "pc[31:0]: 0:0x0 3:0x4" in obs["feedback"]
    obs, *_, info = env.step(act.simulate(continue_=True, cycles=20, signals=["pc"]))
    assert (info["simulate"]["start"], info["simulate"]["end"]) == (30, 50)
    assert env._stepper is stepper and stepper.session.process.pid == pid
    assert obs["feedback"].startswith("Simulated memcpy: cycles 30-49")
    obs, *_, info = env.step(act.simulate(continue_=True, cycles=10, start=100))  # fast-forward
    assert (info["simulate"]["start"], info["simulate"]["end"]) == (100, 110) and env._stepper is stepper
    obs, *_, info = env.step(act.simulate(continue_=True, start=5))
    assert "start: the simulation is at cycle 110" in info["action_error"]
    env.step(act.set_clock(4000))  # the design changed: no going on
    obs, *_, info = env.step(act.simulate(continue_=True))
    assert info["action_error"].startswith("continue: no simulation to go on with")


def test_a_build_error_is_feedback_and_the_env_goes_on(env):
    env.reset(seed=0, options={"start": "multicycle"})
    env.step(act.write("rtl/chipgym_cpu.v", "module chipgym_cpu(input clk);\n  wire x = ;\nendmodule\n"))
    obs, reward, terminated, truncated, info = env.step(act.simulate("memcpy"))
    assert info["status"] == "failed" and info["simulate"] == {"error": "design"} and not terminated
    assert "the design could not be elaborated" in obs["feedback"] and "syntax error" in obs["feedback"]
    assert "rtl/chipgym_cpu.v line 2: ERROR" in obs["feedback"] and "/tmp/" not in obs["feedback"]
    assert (env.render() == 255).all()  # nothing simulated to draw
    env.reset(seed=0, options={"start": "multicycle"})
    obs, *_, info = env.step(act.simulate("ADDI r1, r0, 5\nHALT", signals=["regs[1]"]))
    assert info["status"] == "ok" and info["simulate"]["ended"] == "halted", obs["feedback"]
    assert "regs[1][31:0]: 0:0x0 3:0x5" in obs["feedback"], obs["feedback"]


def test_the_render_draws_the_window_and_its_vcd_parses(env):
    env.reset(seed=0, options={"start": "pipelined"})
    blank = env.render()
    env.step(act.simulate("fibonacci", cycles=60, signals=["clk", "f_pc", "ret_valid", "regs[1]"]))
    image = env.render()
    assert image.dtype.name == "uint8" and image.shape[1:] == (960, 3) and image.shape[0] > 100
    assert blank.shape[2] == 3 and (image < 128).any() and (blank == 255).all()
    wave = env._window.waveform
    signals, changes = parse_vcd(wave.vcd().splitlines())
    assert sorted(signals) == ["chipgym_cpu.clk", "chipgym_cpu.f_pc", "chipgym_cpu.regs[1]", "chipgym_cpu.ret_valid"]
    assert signals["chipgym_cpu.f_pc"].width == 32
    period = load_design(env.root).clock_period_ps
    assert changes["chipgym_cpu.clk"][:3] == [(0, 0), (period // 2, 1), (period, 0)]
    assert len(changes["chipgym_cpu.clk"]) == 120


@pytest.mark.parametrize("action, field", [
    ('{"op": "simulate"}', "program"),
    ('{"op": "simulate", "program": "memcpy", "cycles": 0}', "cycles"),
    ('{"op": "simulate", "program": "memcpy", "cycles": 10001}', "cycles"),
    ('{"op": "simulate", "program": "memcpy", "start": -1}', "start"),
    ('{"op": "simulate", "program": "memcpy", "signals": "pc"}', "signals"),
    ('{"op": "simulate", "program": "memcpy", "signals": ["pc; rm"]}', "signals"),
    ('{"op": "simulate", "program": "memcpy", "continue": 1}', "continue"),
])
def test_malformed_simulate_actions_name_their_field(action, field):
    with pytest.raises(ActionError, match=f"^{field}: "):
        act.parse(action)


def test_programs_are_public_names_or_assembly(env):
    env.reset(seed=0, options={"start": "multicycle"})
    for program, expected in (("heldout-0-memcpy", "program: no public program 'heldout-0-memcpy'"),
                              ("ADDI r1, r0\nHALT", "program: line 1: "),
                              ("spin: JAL r0, spin\nHALT", "program: the reference does not halt within"),
                              ("ADDI r1, r0, 1\n" * 4097, "program: 4097 instruction words, over")):
        obs, *_, info = env.step(act.simulate(program))
        assert info["action_error"].startswith(expected)


def test_chip_sim_writes_a_vcd_and_a_picture(tmp_path, capsys):
    vcd, png = tmp_path / "window.vcd", tmp_path / "window.png"
    code = main(["chip", "sim", str(FIXTURES / "multicycle"), "--program", "fibonacci", "--cycles", "40",
                 "--signal", "pc", "--signal", "state", "--vcd", str(vcd), "--png", str(png)])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("Simulated fibonacci: cycles 0-39") and "pc[31:0]: 0:0x0" in out
    text = vcd.read_text()
    assert text.startswith("$version") and "$enddefinitions $end" in text and "$timescale 1ps $end" in text
    signals, changes = parse_vcd(text.splitlines())
    assert {s.name: s.width for s in signals.values()} == {"chipgym_cpu.clk": 1, "chipgym_cpu.pc": 32,
                                                          "chipgym_cpu.state": 3}
    times = [int(line[1:]) for line in text.splitlines() if line.startswith("#")]
    assert times == sorted(times) and times[-1] == 40 * load_design(FIXTURES / "multicycle").clock_period_ps
    assert len(changes["chipgym_cpu.clk"]) == 80 and len(changes["chipgym_cpu.pc"]) > 3
    image = matplotlib.image.imread(png)
    assert image.shape[1] == 960 and image.shape[0] > 100


def test_the_chat_tool_for_simulate_writes_a_valid_action():
    [tool] = [t for t in chat.tools("chipgym/RtlDesign-v0") if t["function"]["name"] == "simulate"]
    arguments = {"program": "memcpy", "cycles": 20, "signals": ["pc"], "start": 5, "continue": False, "stalls": 3}
    assert set(arguments) == set(tool["function"]["parameters"]["properties"])
    action = chat.action_from_reply("", [{"function": {"name": "simulate", "arguments": json.dumps(arguments)}}])
    assert act.parse(action) == act.Simulate("memcpy", 20, ("pc",), 5, False, 3)


def test_the_example_agent_finds_the_stale_operand_through_simulate_alone():
    script = Path(__file__).resolve().parents[2] / "examples" / "debug_with_simulate.py"
    run = subprocess.run([sys.executable, str(script), "--mutant", "no_mem_forwarding"], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    diagnosis = run.stdout.split("Diagnosis: ")[1]
    assert diagnosis.startswith("ADDI r1, r2, 1855 at pc 0x38 (retirement 8, cycle 16)"), run.stdout[-3000:]
    assert "the core used a stale r2" in diagnosis and "1 instruction(s) before it" in diagnosis
