"""Wall time of a default-tier chip score with cold caches, and the energy model against OpenSTA's report_power.

    .venv/bin/python benchmarks/chip_score.py [--profile osu018] [--fixtures multicycle pipelined]

Each fixture is scored in a fresh ``$CHIPGYM_CACHE`` (check, synthesis, timing, gate-level build and
simulation all cold; a parsed liberty is kept, as it is once per machine). Then, for the cross-check, OpenSTA's
``report_power`` is run on the same netlist with one global activity: the mean toggles per net and cycle that
the gate-level runs measured (OpenSTA's Debian build cannot read per-net activity).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chipgym.cache import default_cache

FIXTURES = Path(__file__).resolve().parents[1] / "chipgym" / "tasks" / "chip" / "cpu" / "fixtures"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="osu018")
    parser.add_argument("--fixtures", nargs="+", default=["multicycle", "pipelined"])
    args = parser.parse_args()
    liberty_cache = default_cache().folder("liberty")
    for fixture in args.fixtures:
        with tempfile.TemporaryDirectory(prefix="chipgym-bench-") as cache:
            if liberty_cache.exists():
                shutil.copytree(liberty_cache, Path(cache) / "liberty")
            os.environ["CHIPGYM_CACHE"] = cache  # for the cross-check, which reuses what the score built
            start = time.monotonic()
            out = subprocess.run([sys.executable, "-m", "chipgym.cli", "chip", "score", str(FIXTURES / fixture),
                                  "--profile", args.profile, "--json"], capture_output=True, text=True)
            wall = time.monotonic() - start
            score = json.loads(out.stdout)
            stages = ", ".join(f"{k} {v:.1f} s" for k, v in score["seconds"].items())
            print(f"{fixture} on {args.profile}: {score['status']} reward {score['reward']:.4f}, "
                  f"cold wall time {wall:.1f} s ({stages})")
            if score["status"] == "ok":
                print(f"  energy cross-check, {cross_check(args.profile, fixture)}")


def cross_check(profile_name: str, fixture: str, program: str = "memcpy") -> str:
    """Our energy of one kernel against OpenSTA's at the same mean activity (runs in the scored cache)."""
    from chipgym.scoring.activity import gate_simulator
    from chipgym.scoring.energy import energy_model
    from chipgym.scoring.liberty import load_library
    from chipgym.scoring.profile import load_profile
    from chipgym.scoring.synthesis import synthesize
    from chipgym.tasks.chip.cpu.arch import load_arch
    from chipgym.tasks.chip.cpu.gate_level import gate_run
    from chipgym.tasks.chip.cpu.reference import execute
    from chipgym.tasks.chip.cpu.workloads import kernel
    from chipgym.tasks.chip.design import load_design
    from chipgym.tasks.chip.registry import load_task

    profile, design = load_profile(profile_name), load_design(FIXTURES / fixture)
    library, arch = load_library(profile.liberty), load_arch()
    task = load_task("cpu")
    netlist = synthesize(design, profile, task.simulation_ports)
    simulator = gate_simulator(netlist, library, design.clock_period_ps, task.harness)
    latency = {m: arch.latency_cycles(m, design.clock_period_ps) for m in ("imem", "dmem")}
    run = gate_run(simulator.binary, execute(kernel(program), arch), arch, latency)
    seconds = run.cycles * design.clock_period_ps * 1e-12
    model = energy_model(simulator.module, simulator.netlist.nets, library, profile.input_slew_ps * 1e-12,
                         profile.output_load_ff * 1e-15)
    ours = model.energy(run.toggles, seconds)
    activity = sum(run.toggles) / len(run.toggles) / run.cycles
    reads = "\n".join(f"read_liberty {p}" for p in profile.liberty)
    script = f"""{reads}
read_verilog {netlist.verilog}
link_design {netlist.top}
create_clock -name clk -period {design.clock_period_ps * 1e-12 / library.time_unit_s:g} [get_ports clk]
set_power_activity -global -activity {activity:g}
report_power
"""
    with tempfile.NamedTemporaryFile("w", suffix=".tcl") as tcl:
        tcl.write(script)
        tcl.flush()
        report = subprocess.run(["sta", "-no_splash", "-exit", tcl.name], capture_output=True, text=True).stdout
    total_w = float(re.search(r"^Total\s+\S+\s+\S+\s+\S+\s+(\S+)", report, re.M).group(1))
    sta = total_w * seconds
    return (f"{program}: ours {ours * 1e9:.4g} nJ, OpenSTA report_power {sta * 1e9:.4g} nJ over {run.cycles} cycles "
            f"at a global activity of {activity:.4f} toggles per net and cycle (OpenSTA / ours = {sta / ours:.2f})")


if __name__ == "__main__":
    main()
