"""The structural checks every chip task starts with: the ports, then the build with the task's harness.

>>> from chipgym.tasks.chip.design import load_design
>>> from chipgym.tasks.chip.registry import load_task
>>> from chipgym.tasks.chip.report import CheckReport
>>> task, report = load_task("noc"), CheckReport("noc", "crossbar")
>>> binary = structural_checks(load_design(task.fixtures["crossbar"]), report, task.ports, task.harness)
>>> binary.name, report.failed_checks(), sorted(report.timings)
('sim', [], ['build', 'ports'])
"""
from __future__ import annotations

from pathlib import Path

from chipgym.errors import BuildError
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.ports import design_port_problems, load_ports
from chipgym.tasks.chip.report import CheckReport
from chipgym.tasks.chip.verilator import build


def structural_checks(design: Design, report: CheckReport, ports: Path, harness: Path) -> Path | None:
    """Check ``design``'s ports against ``ports`` (a ``ports.xml``) and build it with ``harness``: the simulator,
    or None when either check failed (the failures are in ``report``; the later checks cannot run)."""
    with report.timed("ports"):
        for problem in design_port_problems(design, load_ports(ports)):
            report.fail("ports", problem)
        if not report.passed:
            return None
    with report.timed("build"):
        try:
            return build(design, harness)
        except BuildError as e:
            report.fail("build", str(e))
            return None
