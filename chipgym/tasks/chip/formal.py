"""Formal gate: bounded model checking of a task's properties with Yosys and ABC's ``bmc3``.

A properties file defines a wrapper module named by ``top`` that instantiates the design and
states ``assume``/``assert`` properties. The design's own assertions and assumptions are removed
first (an ``assume`` in the design could otherwise make every property hold vacuously). Yosys lowers
the model to an AIGER circuit of AND gates (assertions become bad-state outputs, assumptions
constraints); ABC merges registers and signals it proves equivalent (``scorr``), rewrites the logic
(``dc2``) and searches the result with its bit-level ``bmc3``. A failing assertion is reported with its
source line and cycle. On the CPU fixtures this reaches 64 cycles in 5-12 s of CPU, where yosys-smtbmc with
z3 needed 45-100 s for 12 (docs/scoring.md).
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.tasks.chip.design import Design
from chipgym.engines.tools import run_tool

UNCLASSIFIED = "the formal engine failed"  # a failure that names no assertion (a timeout, a crash): not cached
ASSERTED = re.compile(r"Output (\d+) of miter .* was asserted in frame (\d+)")
SOURCE_LINE = re.compile(r":(\d+)\$\d+$")  # Yosys names an assert cell $assert$<file>:<line>$<id>
BMC_TIMEOUT = 600
ABC_SCRIPT = "read_aiger {aiger}; fold; strash; scorr; dc2; bmc3 -F {depth}"


def formal_check(design: Design, properties: Path, depth: int, top: str = "chipgym_formal") -> list[str]:
    """Problems found within ``depth`` cycles (empty if every assertion holds), cached by content."""
    key = f"{design.digest(properties.read_text(), str(depth), top, ABC_SCRIPT)}.json"
    if (cached := default_cache().get_json("formal", key)) is not None:
        return cached
    problems = _formal_check(design, properties, depth, top)
    if not any(p.startswith(UNCLASSIFIED) for p in problems):
        default_cache().put_json("formal", key, problems)
    return problems


def _formal_check(design: Design, properties: Path, depth: int, top: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        aiger, asserts = Path(tmp) / "model.aig", Path(tmp) / "asserts.txt"
        rtl = " ".join(f'"{p}"' for p in design.rtl)
        script = (
            f'read_verilog -formal -nopp {rtl}; chformal -remove; read_verilog -formal "{properties.resolve()}"; '
            f"prep -top {top}; flatten; memory_map; opt -fast; techmap; opt -fast; abc -g AND; opt_clean; "
            f"async2sync; dffunmap; aigmap; opt_clean; tee -q -o {asserts} select -list t:$assert; "
            f"write_aiger -zinit {aiger}"
        )
        synth = run_tool(["yosys", "-q", "-p", script], cwd=design.folder,
                         readable=(design.folder, properties.resolve().parent), writable=(tmp,))
        if not synth.ok:
            return [f"yosys could not prepare the formal model: {synth.tail(5)}"]
        bmc = run_tool(["yosys-abc", "-c", ABC_SCRIPT.format(aiger=aiger, depth=depth)], cwd=tmp,
                       timeout=BMC_TIMEOUT, writable=(tmp,))
        names = asserts.read_text().split()
    if bmc.ok and f"No output asserted in {depth} frames" in bmc.stdout:
        return []
    found = ASSERTED.search(bmc.stdout)
    source = SOURCE_LINE.search(names[int(found[1])]) if found and int(found[1]) < len(names) else None
    if not bmc.ok or source is None:
        return [f"{UNCLASSIFIED}: {bmc.tail(5)}"]
    line = properties.read_text().splitlines()[int(source[1]) - 1].strip()
    return [f"{line} (fails in cycle {found[2]})"]
