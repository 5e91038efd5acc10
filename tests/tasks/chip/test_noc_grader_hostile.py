"""Attacks on the NoC grader, each kept as a test: a design cannot forge deliveries, hang the grader or learn
about held-out traces through its timing model."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.noc.workloads import public_traces
from chipgym.tasks.chip.registry import load_task

NOC = load_task("noc")
FIXTURES = NOC.folder / "fixtures"

TEST_SEED = random.Random().randrange(1 << 30)  # any seed: never a grading seed
RTL = "rtl/chipgym_noc.v"
MODEL = "model/timing_model.py"
SHORT = [t for t in public_traces() if t.name in ("uniform-0.3", "max-length")]


def copy(dest: Path) -> Path:
    return shutil.copytree(FIXTURES / "crossbar", dest)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))


def test_printed_deliveries_are_not_deliveries(tmp_path):
    """The design prints what the harness would print for every flit, but never delivers one."""
    design = copy(tmp_path / "d")
    lines = "\n".join(f'      $display("%s D {i} 0 0 1", "0123456789abcdef");' for i in range(8))
    edit(design / RTL, "  always @(posedge clk) begin\n",
         f"  always @(posedge clk) begin\n    if (!rst) begin\n{lines}\n    end\n")
    edit(design / RTL, "      out_valid[o] = locked[o] && !empty[owner[o]];", "      out_valid[o] = 1'b0;")
    report = check_design(design, task="noc", workloads=SHORT, formal=False)
    assert report.failed_checks() == ["functional"]
    assert "watchdog" in report.failures[0].detail


def test_a_network_that_never_accepts_ends_in_the_watchdog(tmp_path):
    design = copy(tmp_path / "d")
    edit(design / RTL, "      assign in_ready[g] = !full[g];", "      assign in_ready[g] = 1'b0;")
    edit(design / RTL, ".push(in_valid[g])", ".push(1'b0)")
    report = check_design(design, task="noc", workloads=SHORT, formal=False)
    assert report.failed_checks() == ["functional"]
    assert all("no flit injected or delivered" in f.detail for f in report.failures), report.failures


@pytest.mark.parametrize("exception, expected", [
    ("ValueError", ["held-out traffic traces"]),  # one failure, naming no trace, however many failed
    ("SystemExit", ["held-out traffic traces"]),  # the model's whole process fails, printing the trace
])
def test_a_timing_model_cannot_show_heldout_traffic(tmp_path, exception, expected):
    design = copy(tmp_path / "d")
    with open(design / MODEL, "a") as f:
        f.write(f'''
_honest = predict
def predict(trace, params):
    if trace.name.startswith("heldout"):
        raise {exception}(f"LEAK {{trace.name}} {{[p.flits for p in trace.packets[:4]]}}")
    return _honest(trace, params)
''')
    report = check_design(design, task="noc", workloads=SHORT, formal=False, grading_seed=TEST_SEED)
    lockstep = [f.detail for f in report.failures if f.check == "lockstep"]
    assert lockstep == expected
    assert "LEAK" not in str(report.to_dict())


def test_a_heldout_functional_failure_says_only_that_the_heldout_traces_failed(tmp_path):
    """A design that fails only on long packets from one source to another: the held-out traces have them."""
    design = copy(tmp_path / "d")
    edit(design / RTL, "out_data[16*o +: 16] = front[owner[o]][15:0];",
         "out_data[16*o +: 16] = front[owner[o]][15:0] ^ (o == 6 && owner[o] == 1 ? 16'h0100 : 16'h0000);")
    report = check_design(design, task="noc", workloads=[], formal=False, grading_seed=TEST_SEED)
    assert [tuple(f) for f in report.failures] == [("functional", "held-out traffic traces")], report.failures


def test_a_missing_port_stops_at_the_ports_check(tmp_path):
    design = copy(tmp_path / "d")
    edit(design / RTL, ", output reg [7:0] out_last\n", "\n")
    edit(design / RTL, "      out_last[o] = front[owner[o]][16];\n", "")
    edit(design / RTL, "if (out_valid[o] && out_ready[o] && out_last[o]) begin",
         "if (out_valid[o] && out_ready[o] && front[owner[o]][16]) begin")
    report = check_design(design, task="noc", workloads=SHORT)
    assert report.failed_checks() == ["ports"] and "missing port out_last" in report.failures[0].detail
    assert sorted(report.timings) == ["ports"]
