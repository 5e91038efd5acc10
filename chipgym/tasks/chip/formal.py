"""Formal gate: bounded model checking of a task's properties with yosys + yosys-smtbmc + z3.

A properties file defines a wrapper module named by ``top`` that instantiates the design and
states ``assume``/``assert`` properties. Each failing assertion is reported with its source line.
The model is lowered to AND gates first: z3 stalls on the word-level model of a whole CPU.
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from chipgym.cache import cache_dir
from chipgym.tasks.chip.design import Design
from chipgym.engines.tools import run_tool

UNCLASSIFIED = "yosys-smtbmc failed"  # a failure that names no assertion (a timeout, a crash): not cached
ASSERT_FAILED = re.compile(r"Assert failed in \S+: (\S+?):(\d+)")


def formal_check(design: Design, properties: Path, depth: int, top: str = "chipgym_formal") -> list[str]:
    """Problems found within ``depth`` cycles (empty if every assertion holds), cached by content."""
    cached = cache_dir("formal") / f"{design.digest(properties.read_text(), str(depth), top)}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    problems = _formal_check(design, properties, depth, top)
    if not any(p.startswith(UNCLASSIFIED) for p in problems):
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(problems))
    return problems


def _formal_check(design: Design, properties: Path, depth: int, top: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        smt2 = Path(tmp) / "model.smt2"
        files = " ".join(f'"{p}"' for p in design.rtl)
        script = (
            f'read_verilog -formal -nopp {files}; read_verilog -formal "{properties.resolve()}"; '
            f"prep -top {top}; flatten; memory_map; opt -fast; "
            f"techmap; opt -fast; abc -g AND; opt_clean; async2sync; dffunmap; write_smt2 -wires {smt2}"
        )
        synth = run_tool(["yosys", "-q", "-p", script], cwd=design.folder,
                         readable=(design.folder, properties.resolve().parent), writable=(tmp,))
        if not synth.ok:
            return [f"yosys could not prepare the formal model: {synth.tail(5)}"]
        bmc = run_tool(["yosys-smtbmc", "-s", "z3", "--presat", "-t", str(depth), str(smt2)], cwd=tmp, timeout=900,
                       writable=(tmp,))
    if bmc.ok:
        return []
    lines = properties.read_text().splitlines()
    failed = [
        f"{lines[int(n) - 1].strip()} (fails within {depth} cycles)"
        for _, n in dict.fromkeys(ASSERT_FAILED.findall(bmc.stdout))
    ]
    return failed or [f"{UNCLASSIFIED}: {bmc.tail(5)}"]
