"""A hostile design: its RTL and its timing model run sandboxed, away from grading secrets and the host."""
import os
import shutil
from pathlib import Path

from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.workloads import programs

FIXTURES = Path(__file__).resolve().parents[3] / "chipgym" / "tasks" / "chip" / "cpu" / "fixtures"


def test_rtl_and_timing_model_see_nothing_of_the_host(tmp_path, monkeypatch):
    monkeypatch.setenv("CHIPGYM_GRADING_SEED", "1234")  # as during grading
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    secret.chmod(0o644)
    planted = tmp_path / "planted"
    design = shutil.copytree(FIXTURES / "multicycle", tmp_path / "design")
    rtl = design / "rtl" / "chipgym_cpu.v"
    text = rtl.read_text()
    last = text.rindex("endmodule")
    rtl.write_text(text[:last]
                   + f'`ifdef VERILATOR\n  initial begin : spy\n    integer r;\n    r = $system("touch {planted}");\n'
                   "  end\n`endif\n" + text[last:])
    model = design / "model" / "timing_model.py"
    model.write_text(
        "import os, socket\n"
        f"LEAKS = [k for k in ('CHIPGYM_GRADING_SEED',) if k in os.environ]\n"
        f"LEAKS += [p for p in ({str(secret)!r}, '/etc/passwd') if os.path.exists(p)]\n"
        "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=1)\n    LEAKS.append('network')\n"
        "except OSError:\n    pass\n"
        f"try:\n    open({str(tmp_path / 'model-wrote')!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
        + model.read_text().replace("def predict(run, latency):",
                                    "def predict(run, latency):\n    assert not LEAKS, LEAKS")
    )
    report = check_design(design, workloads=programs(range(2)), formal=False)
    assert report.passed, report.summary()
    assert not planted.exists() and not (tmp_path / "model-wrote").exists()
    assert "CHIPGYM_GRADING_SEED" in os.environ
