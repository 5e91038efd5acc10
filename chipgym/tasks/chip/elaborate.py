"""Elaborate a design with yosys: syntax errors, missing modules, combinational loops, ports.

>>> from pathlib import Path
>>> from chipgym.tasks.chip.design import load_design
>>> e = elaborate(load_design(Path(__file__).parent / "cpu" / "fixtures" / "multicycle"))
>>> e.problems, e.ports["halted"]
([], ('output', 1))
"""
from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from chipgym.tasks.chip.design import Design
from chipgym.engines.tools import run_tool

# An honest CPU elaborates in ~2 s and 80 MB; a recursive `include grows Yosys by ~40 MB/s until a bound stops it.
ELABORATION_SECONDS = 60
ELABORATION_MEMORY = 512 << 20
FATAL = re.compile(r"found logic loop|multiple conflicting drivers", re.I)


@dataclass(frozen=True)
class Elaboration:
    ports: dict[str, tuple[str, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def elaborate(design: Design) -> Elaboration:
    """Read, elaborate and flatten ``design.top``; report ports and problems."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "netlist.json"
        files = " ".join(f'"{p}"' for p in design.rtl)
        script = (
            f"read_verilog -nopp {files}; hierarchy -check -top {design.top}; proc; flatten; "
            f"check; write_json {out}"
        )
        result = run_tool(["yosys", "-q", "-l", str(Path(tmp) / "log"), "-p", script], cwd=design.folder,
                          readable=(design.folder,), writable=(tmp,), timeout=ELABORATION_SECONDS,
                          memory=ELABORATION_MEMORY)
        log = (Path(tmp) / "log").read_text(errors="replace") if (Path(tmp) / "log").exists() else ""
        if not result.ok:
            errors = [l for l in (result.stderr + log).splitlines() if "ERROR" in l] or [result.tail()]
            return Elaboration(problems=[f"yosys: {errors[0].strip()}"])
        problems = [l.strip() for l in log.splitlines() if FATAL.search(l)]
        module = json.loads(out.read_text())["modules"][design.top]
    ports = {n: (p["direction"], len(p["bits"])) for n, p in module["ports"].items()}
    return Elaboration(ports, problems)
