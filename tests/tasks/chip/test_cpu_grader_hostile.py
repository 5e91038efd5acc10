"""Attacks on the CPU grader itself (issue 12, §5-§7), each kept as a test: held-out runs leak nothing but
verdicts, no design input crashes or exhausts the grader, and the formal gate sees past 12 stalled cycles."""
from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from chipgym.engines.tools import MAX_OUTPUT, run_tool
from chipgym.engines.yosys import ELABORATION_SECONDS
from chipgym.errors import DesignError
from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.assembler import assemble
from chipgym.tasks.chip.cpu.checks import DV, FORMAL_DEPTH
from chipgym.tasks.chip.cpu.heldout import heldout_programs
from chipgym.tasks.chip.cpu.lockstep import predict
from chipgym.tasks.chip.cpu.program import Program
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.workloads import programs
from chipgym.tasks.chip.design import MAX_PERIOD_PS, load_design
from chipgym.tasks.chip.formal import formal_check
from chipgym.tasks.chip.registry import load_task

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

TEST_SEED = random.Random().randrange(1 << 30)  # any seed: never a grading seed
RTL = "rtl/chipgym_cpu.v"
MODEL = "model/timing_model.py"


def copy(fixture: str, dest: Path) -> Path:
    return shutil.copytree(FIXTURES / fixture, dest)


def heldout_imem_words() -> set[str]:
    return {str(w) for p in heldout_programs(TEST_SEED) for w in p.imem[:8] if w > 0xFFFF}


# -- §5 nothing held out leaks ----------------------------------------------------------------------------
def model_raising(exception: str) -> str:
    """Lines to append to a timing model: honest on public runs, raising ``exception`` with a held-out run's code."""
    return f'''
_honest = predict
def predict(run, latency):
    if run.program.name.startswith("heldout"):
        raise {exception}(f"LEAK {{run.program.name}} {{list(run.program.imem[:8])}}")
    return _honest(run, latency)
'''


@pytest.mark.parametrize("exception, expected", [
    ("ValueError", ["held-out programs"]),  # one failure, naming no program, however many failed
    ("SystemExit", ["held-out programs"]),  # the model's whole process fails, printing the run
])
def test_a_timing_model_learns_nothing_out_of_held_out_runs(tmp_path, exception, expected):
    design = copy("multicycle", tmp_path / "design")
    (design / MODEL).write_text((design / MODEL).read_text() + model_raising(exception))
    report = check_design(design, workloads=programs(range(2)), grading_seed=TEST_SEED, formal=False)
    assert report.failures == [("lockstep", detail) for detail in expected], report.summary()
    assert "LEAK" not in report.summary() and not any(w in report.summary() for w in heldout_imem_words())


def test_functional_failures_on_held_out_programs_are_one_naming_none(tmp_path):
    design = CPU.mutants["wrong_stall_counter"].materialize(tmp_path / "design")
    report = check_design(design, workloads=[], grading_seed=TEST_SEED, formal=False)
    assert report.failures == [("functional", "held-out programs")], report.summary()


# -- §6 no design input crashes the grader; its memory is bounded ------------------------------------------
@pytest.mark.parametrize("value", ["inf", "nan", "true", "2.9", "1e30", "0", "-8000", '"8000"', str(MAX_PERIOD_PS + 1)])
def test_clock_period_must_be_an_integer_in_range(tmp_path, value):
    design = copy("multicycle", tmp_path / "design")
    (design / "design.toml").write_text(f'top = "chipgym_cpu"\nclock_period_ps = {value}\n')
    with pytest.raises(DesignError, match="clock_period_ps must be an integer from 1 to"):
        load_design(design)
    (design / "design.toml").write_text(f'top = "chipgym_cpu"\nclock_period_ps = 8000\n'
                                        f"[profile.asap7]\nclock_period_ps = {value}\n")
    assert load_design(design).clock_period_ps == 8000
    with pytest.raises(DesignError):
        load_design(design, profile="asap7")


def test_a_folder_named_like_a_verilog_file_is_a_design_failure(tmp_path):
    design = copy("multicycle", tmp_path / "design")
    (design / "rtl" / "extra.v").mkdir()
    report = check_design(design, formal=False)
    assert report.failures == [("design", f"{design}: rtl/extra.v is not a file")]


def test_output_is_decoded_leniently():
    result = run_tool(["printf", "\\377ok"])
    assert result.ok and result.stdout == "\ufffdok"


def test_a_tool_writing_a_gigabyte_is_stopped_and_its_output_capped():
    start = time.monotonic()
    result = run_tool(["sh", "-c", "head -c 1073741824 /dev/zero >&2; echo finished"])
    assert not result.ok and "finished" not in result.stdout
    assert MAX_OUTPUT < len(result.stderr) < MAX_OUTPUT + 200 and result.stderr.endswith("bytes of output")
    assert time.monotonic() - start < 60


def test_a_recursive_include_is_stopped_early(tmp_path):
    design = copy("multicycle", tmp_path / "design")
    (design / "rtl" / "loop.vh").write_text('`include "loop.vh"\n')
    rtl = design / RTL
    rtl.write_text('`include "loop.vh"\n' + rtl.read_text())
    start = time.monotonic()
    report = check_design(design, formal=False)
    assert report.failed_checks() == ["design"] and "Recursive inclusion" in report.failures[0][1], report.summary()
    assert time.monotonic() - start < ELABORATION_SECONDS + 30


def test_sigterm_during_a_check_leaves_no_copies_of_the_design(tmp_path):
    scratch = Path(tempfile.mkdtemp(prefix="chipgym-sigterm-"))  # the sandbox's uid must reach the stage folders
    scratch.chmod(0o755)
    design = copy("pipelined", scratch / "design")
    env = {**os.environ, "TMPDIR": str(scratch), "CHIPGYM_CACHE": str(scratch / "cache")}  # cold: a long build
    cli = subprocess.Popen([sys.executable, "-m", "chipgym.cli", "chip", "check", str(design)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not list(scratch.glob("chipgym-tool-*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(scratch.glob("chipgym-tool-*")), "no tool ran"
        cli.send_signal(signal.SIGTERM)
        assert cli.wait(timeout=60) == 128 + signal.SIGTERM
        assert {p.name for p in scratch.iterdir()} <= {"cache", "design"}
    finally:
        cli.kill()
        shutil.rmtree(scratch, ignore_errors=True)


def test_an_empty_dmem_reaches_the_timing_model_as_a_dict(tmp_path):
    model = tmp_path / "timing_model.py"
    model.write_text(
        "def predict(run, latency):\n"
        "    assert run.program.dmem == {} and run.final.dmem == {}, (run.program.dmem, run.final.dmem)\n"
        "    return {'retire_cycles': [3], 'cycles': 4, 'retired': 1, 'stalls': 3}\n")
    run = execute(Program("halt", tuple(assemble("HALT"))))
    assert predict(model, [run], {"imem": 1, "dmem": 1}) == [
        {"prediction": {"retire_cycles": [3], "cycles": 4, "retired": 1, "stalls": 3}}
    ]


# -- §7 the formal gate and stall bursts see a fetch withdrawn after 12 stalled cycles ----------------------
def test_stall_bursts_in_simulation_catch_a_fetch_withdrawn_after_12_stalls(tmp_path):
    design = CPU.mutants["withdrawn_after_12_stalls"].materialize(tmp_path / "design")
    report = check_design(design, workloads=programs(range(3)), formal=False)
    assert report.failed_checks() == ["functional"], report.summary()
    assert "request changed or withdrawn while stalled" in report.failures[0][1]


def test_an_assumption_in_the_design_does_not_silence_the_formal_gate(tmp_path):
    design = CPU.mutants["withdrawn_after_12_stalls"].materialize(tmp_path / "design")
    rtl = design / RTL
    text = rtl.read_text()
    last = text.rindex("endmodule")
    rtl.write_text(text[:last] + "  always @* assume(imem_req_ready);\n" + text[last:])
    problems = formal_check(load_design(design), DV / "formal.sv", FORMAL_DEPTH)
    assert len(problems) == 1 and "stalled imem request held until accepted (fails in cycle 13)" in problems[0]
