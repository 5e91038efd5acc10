"""Hostile designs played through chipgym/RtlDesign-v0's check action: the host, its files and the grading
seed stay out of reach, and runaway designs end as failed checks while the env lives on."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from chipgym.envs import rtl_actions as act
from chipgym.envs.rtl_design import RtlDesignEnv
from chipgym.tasks.chip.cpu.arch import load_arch
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.testbench import HARNESS, divergence, simulate
from chipgym.tasks.chip.cpu.workloads import kernel
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.chip.verilator import build
from chipgym.tasks.grading_seed import SEED_ENV

from chip_attacks import MEMORY_BOMB, as_written, with_block

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

RTL = "rtl/chipgym_cpu.v"
BOUND_SECONDS = 300  # a cold Verilator build takes ~20 s on 2 cores; the rest is a few seconds


@pytest.fixture
def env():
    env = RtlDesignEnv(formal=False, timings=True)
    env.reset(seed=0, options={"start": "multicycle"})
    yield env
    env.close()


def shown(obs: dict, info: dict) -> str:
    return json.dumps([obs, info])


def test_system_fopen_and_readmemh_reach_nothing_of_the_host(env, tmp_path, monkeypatch):
    monkeypatch.setenv(SEED_ENV, "8675309")  # as during grading
    secret, hidden, planted = tmp_path / "secret.txt", tmp_path / "hidden.hex", tmp_path / "planted"
    secret.write_text("TOPSECRET-42")
    hidden.write_text("deadbeef\n")
    for path in (secret, hidden):
        path.chmod(0o644)
    # A spy that sees the host raises `halted` at cycle 0, which fails the functional check (the harness
    # ignores $finish). The first two lines show that $system and $fopen work in the sandbox, so a pass
    # is not vacuous.
    spy = f"""
  integer spy_r, spy_fd;
  reg [31:0] spy_mem [0:3];
  initial begin
    spy_r = $system("true");                          if (spy_r != 0) spy_seen = 1'b1;
    spy_fd = $fopen("/usr/bin/env", "r");             if (spy_fd == 0) spy_seen = 1'b1;
    spy_r = $system("touch {planted}");
    spy_r = $system("test -z \\"${SEED_ENV}\\"");     if (spy_r != 0) spy_seen = 1'b1;
    spy_fd = $fopen("{secret}", "r");                 if (spy_fd != 0) spy_seen = 1'b1;
    spy_mem[0] = 0;
    $readmemh("{hidden}", spy_mem);                   if (spy_mem[0] == 32'hdeadbeee + 1) spy_seen = 1'b1;
  end
"""
    halted = "  assign halted = state == S_HALT;"
    rtl = with_block(spy).replace(halted, "  reg spy_seen = 1'b0;\n" + halted.replace(";", " || spy_seen;"))
    env.step(act.write(RTL, rtl))
    obs, reward, terminated, truncated, info = env.step(act.check())
    # $system, $fopen and $readmemh run outside the design: the spy is refused before any tool builds it
    assert info["status"] == "failed" and info["check"]["failed_checks"] == ["design"], obs["feedback"]
    assert "$system (it runs outside the simulated design)" in obs["feedback"]
    assert "TOPSECRET" not in shown(obs, info) and "deadbeef" not in shown(obs, info)
    assert "8675309" not in shown(obs, info)
    # past the refusal, the simulator that the functional check would run stays in its sandbox
    as_written(monkeypatch, tmp_path / "cache")
    design = tmp_path / "spy"
    shutil.copytree(FIXTURES / "multicycle", design)
    (design / RTL).write_text(rtl)
    arch, reference = load_arch(), execute(kernel("memcpy", n=3))
    run = simulate(build(load_design(design), HARNESS), reference.program, arch, {"imem": 1, "dmem": 1},
                   arch.watchdog(len(reference.retirements)))
    assert divergence(reference, run) is None
    assert not planted.exists()


def test_a_core_that_never_halts_fails_by_the_watchdog(env):
    start = time.monotonic()
    for file, old, new in CPU.mutants["store_hangs"].edits:
        env.step(act.patch(file, old, new))
    obs, reward, terminated, truncated, info = env.step(act.check())
    assert info["status"] == "failed" and reward == 0.0 and not terminated
    assert info["check"]["failed_checks"] == ["functional"] and "watchdog" in obs["feedback"], obs["feedback"]
    assert time.monotonic() - start < BOUND_SECONDS
    obs, *_ = env.step(act.set_clock(2000))
    assert obs["feedback"] == "clock_period_ps = 2000 in design.toml."


def test_a_design_that_exhausts_memory_fails_the_check(env, tmp_path, monkeypatch):
    # 2**27 words of 1024 bits: 16 GiB, over the tool sandbox's 8 GiB address space cap. Yosys's one reading
    # removes the memory (only a $display reads it); the bomb reaches Verilator as written.
    as_written(monkeypatch, tmp_path / "cache")
    start = time.monotonic()
    env.step(act.write(RTL, with_block(MEMORY_BOMB)))
    obs, reward, terminated, truncated, info = env.step(act.check())
    assert info["status"] == "failed" and reward == 0.0 and not terminated
    assert info["check"]["failed_checks"] == ["functional"] and "bad_alloc" in obs["feedback"], obs["feedback"]
    assert time.monotonic() - start < BOUND_SECONDS
    env.step(act.write(RTL, with_block("")))
    obs, *_, info = env.step(act.check())
    assert info["status"] == "ok", obs["feedback"]


@pytest.mark.parametrize("edit, expected", [
    (act.write("design.toml", 'top = "chipgym_cpu"\nclock_period_ps = inf\n'), "clock_period_ps must be an integer"),
    (act.write("rtl/extra.v/readme.txt", "a folder named like a Verilog file"), "rtl/extra.v is not a file"),
])
def test_inputs_that_crashed_the_grader_are_design_failures(env, edit, expected):
    # they raised OverflowError and IsADirectoryError out of env.step
    env.step(edit)
    obs, reward, terminated, truncated, info = env.step(act.check())
    assert info["status"] == "failed" and info["check"]["failed_checks"] == ["design"], obs["feedback"]
    assert expected in obs["feedback"]


def test_a_design_printing_a_byte_that_is_not_utf8_is_checked(env):
    # it raised UnicodeDecodeError out of env.step
    env.step(act.write(RTL, with_block('`ifdef VERILATOR\n  initial $write("%c\\n", 8\'hff);\n`endif\n')))
    obs, reward, terminated, truncated, info = env.step(act.check())
    assert info["status"] == "ok", obs["feedback"]
