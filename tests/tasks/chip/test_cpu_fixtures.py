"""Both fixtures pass every check on real Verilator runs; malformed designs get clear failures."""
import shutil
from pathlib import Path

import pytest

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.workloads import programs

FIXTURES = Path(__file__).resolve().parents[3] / "chipgym" / "tasks" / "chip" / "cpu" / "fixtures"
PROGRAMS = programs(range(3))


@pytest.mark.parametrize("fixture", ["multicycle", "pipelined"])
def test_fixture_passes(fixture):
    report = check_design(FIXTURES / fixture, workloads=PROGRAMS, stall_seeds=(1, 2), formal=False)
    assert report.passed, report.summary()
    assert report.stats["memcpy"]["retired"] == 12004
    assert report.stats["memcpy"]["cycles"] < (60100 if fixture == "multicycle" else 18100)


@pytest.fixture
def broken(tmp_path):
    """A copy of the multicycle fixture with one substitution in its RTL."""
    def make(old: str, new: str) -> Path:
        dest = shutil.copytree(FIXTURES / "multicycle", tmp_path / "design")
        rtl = dest / "rtl" / "chipgym_cpu.v"
        assert old in rtl.read_text()
        rtl.write_text(rtl.read_text().replace(old, new, 1))
        return dest
    return make


def failures(design: Path) -> list[tuple[str, str]]:
    return check_design(design, workloads=PROGRAMS[:1], formal=False).failures


def test_syntax_error(broken):
    [(check, detail)] = failures(broken("assign halted = state == S_HALT;", "assign halted = state == ;"))
    assert check == "design" and "could not be elaborated" in detail and "syntax error" in detail


def test_missing_port(broken):
    fails = failures(broken("    output reg  [31:0] cnt_stalls\n", "    output reg  [31:0] cnt_stallz\n"))
    assert ("ports", "missing port cnt_stalls (output, 32 bit)") in fails


def test_combinational_loop(broken):
    fails = failures(broken("wire [31:0] pc4 = pc + 32'd4;", "wire [31:0] pc4 = next_pc + 32'd4;"))
    assert fails and fails[0][0] == "ports" and "logic loop" in fails[0][1]


def test_missing_files(tmp_path):
    [(check, detail)] = check_design(tmp_path).failures
    assert check == "design" and "design.toml" in detail
    dest = shutil.copytree(FIXTURES / "multicycle", tmp_path / "d")
    (dest / "model" / "timing_model.py").unlink()
    fails = check_design(dest, workloads=PROGRAMS[:1], formal=False).failures
    assert fails == [("lockstep", f"timing model: no timing model at {dest / 'model' / 'timing_model.py'}")]
