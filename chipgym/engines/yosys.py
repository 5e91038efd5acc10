"""Yosys and its ABC (``yosys-abc``), sandboxed: elaboration, the formal model and its bounded model check,
synthesis to a liberty's cells, and the proof that a synthesized netlist is the design synthesis started from.

Every function reads Verilog that was preprocessed once (``read_verilog -nopp``: no macro of Yosys's own
applies) from the folder of its first file, the only design folder the sandbox shows.

>>> from pathlib import Path
>>> from chipgym.tasks.chip.design import load_design
>>> design = load_design(Path(__file__).parents[1] / "tasks" / "chip" / "cpu" / "fixtures" / "multicycle")
>>> e = elaborate(design.rtl, design.top)
>>> e.problems, e.ports["halted"]
([], ('output', 1))
"""
from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from chipgym.engines.tools import ToolResult, run_tool
from chipgym.errors import FlowUnavailable, SynthesisError
from chipgym.files import FileRefused, read_regular_file

# An honest CPU elaborates in ~2 s and 80 MB; a recursive `include grows Yosys by ~40 MB/s until a bound stops it.
ELABORATION_SECONDS = 60
ELABORATION_MEMORY = 512 << 20
# an undriven wire is 0 to Verilator and a don't-care to Yosys's optimisation: the two would build different designs
FATAL = re.compile(r"found logic loop|multiple conflicting drivers|is used but has no driver", re.I)

_UNDRIVEN = re.compile(r"Wire \S+?\.(\S+?)(?: \[\d+\])? is used but has no driver")

UNCLASSIFIED = "the formal engine failed"  # a failure that names no assertion (a timeout, a crash)
ASSERTED = re.compile(r"Output (\d+) of miter .* was asserted in frame (\d+)")
SOURCE_LINE = re.compile(r":(\d+)\$\d+$")  # Yosys names an assert cell $assert$<file>:<line>$<id>
BMC_TIMEOUT = 600
ABC_SCRIPT = "read_aiger {aiger}; fold; strash; scorr; dc2; bmc3 -F {depth}"

SYNTHESIS_TIMEOUT = 900
# `synth -flatten`'s fine stage, run by hand so that the design it hands to ABC is saved (Yosys 0.23's `help synth`)
FINE = ("opt -fast -full", "memory_map", "opt -full", "techmap", "opt -fast")
HANDED_TO_ABC = "handed-to-abc.il"
# Of what Yosys writes for a design and the grader reads back whole; past them the design fails (the fixtures'
# elaboration logs are under 1 MiB, their synthesized netlists' JSON under 16 MiB).
MAX_LOG_BYTES = 64 << 20
MAX_JSON_BYTES = 256 << 20
# The cpu fixtures lower in 1-3 s and ~100 MB; the limits are synthesis's own order, well above any honest core.
CANONICAL_SECONDS = 300
CANONICAL_MEMORY = 2 << 30
# A design's own properties are removed, as the formal gate removes them; its free values are refused.
FORMAL_VALUES = "t:$anyconst t:$anyseq t:$allconst t:$allseq"
EQUIVALENCE_TIMEOUT = 900
PROOF_SCRIPT = "read_aiger {aiger}; dprove"
_DIFFERENT = re.compile(r"Output (\d+) of miter .* was asserted in frame (\d+)")


@dataclass(frozen=True)
class Elaboration:
    ports: dict[str, tuple[str, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _files(rtl: Sequence[Path]) -> str:
    return " ".join(f'"{p}"' for p in rtl)


def elaborate(rtl: Sequence[Path], top: str) -> Elaboration:
    """Read, elaborate and flatten ``top``; its ports and problems (syntax errors, missing modules,
    combinational loops, conflicting drivers, wires used but never driven)."""
    folder = rtl[0].parent
    with tempfile.TemporaryDirectory() as tmp:
        out, log = Path(tmp) / "netlist.json", Path(tmp) / "log"
        script = (f"read_verilog -nopp {_files(rtl)}; hierarchy -check -top {top}; proc; flatten; check; "
                  f"write_json {out}")
        result = run_tool(["yosys", "-q", "-l", str(log), "-p", script], cwd=folder, readable=(folder,),
                          writable=(tmp,), timeout=ELABORATION_SECONDS, memory=ELABORATION_MEMORY)
        if not result.ok:
            return Elaboration(problems=[f"yosys: {_first_error(result, log)}"])
        try:
            problems = fatal_problems(read_output(log, MAX_LOG_BYTES))
            module = json.loads(read_output(out, MAX_JSON_BYTES))["modules"][top]
        except FileRefused as refused:
            return Elaboration(problems=[f"yosys's elaboration of the design is refused unread: {refused}"])
    ports = {n: (p["direction"], len(p["bits"])) for n, p in module["ports"].items()}
    return Elaboration(ports, problems)


def canonicalize(text: Path, top: str, out: Path) -> str | None:
    """Write to ``out`` the design ``top`` of the preprocessed ``text`` as ``synth -flatten`` hands it to ABC (every
    operator lowered to single-bit gates and flops, memories to flops, a value Yosys leaves undefined made 0), as
    Verilog; None, or why Yosys refused it (the design's failure, as in :func:`elaborate`).

    Every net driven by more than one gate is split into one wire per bit: Verilator 5.006 evaluates a loop that
    runs through one vector's bits (bit 3 from bit 1 of the same wire, as in an adder's carries) wrongly, so the
    pipelined fixture, lowered but not split, multiplied wrong."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log"
        script = "; ".join([f"read_verilog -formal -nopp {_files([Path(text.name)])}", "chformal -remove",
                            f"hierarchy -check -top {top}", f"select -assert-none {FORMAL_VALUES}",
                            f"synth -flatten -nofsm -top {top} -run begin:fine", *FINE, "setundef -zero", "opt_clean",
                            "splitnets -driver",
                            f'write_verilog -noattr "{out}"'])
        result = run_tool(["yosys", "-q", "-l", str(log), "-p", script], cwd=text.parent, readable=(text.parent,),
                          writable=(tmp, out.parent), timeout=CANONICAL_SECONDS, memory=CANONICAL_MEMORY)
        if result.ok:
            return None
        if result.timed_out:
            return f"yosys did not elaborate the design within {CANONICAL_SECONDS} s"
        if "selection is not empty" in (error := _first_error(result, log)):
            return "the design uses a value only a proof has ($anyconst, $anyseq, $allconst or $allseq)"
        return f"yosys: {error}"


def _first_error(result: ToolResult, log: Path, lines: int = 30) -> str:
    """The first ERROR line Yosys wrote (to stderr or the end of its ``log``), else the last ``lines`` of its
    output."""
    errors = [line.strip() for line in (result.stderr + _tail(log)).splitlines() if "ERROR" in line]
    return errors[0] if errors else result.tail(lines)


def _tail(log: Path, limit: int = 64 << 10) -> str:
    """The last ``limit`` bytes of a sandboxed tool's log (its length is the tool's to choose)."""
    if not log.exists():
        return ""
    with log.open("rb") as file:
        file.seek(max(0, log.stat().st_size - limit))
        return file.read().decode(errors="replace")


def read_output(path: Path, limit: int) -> str:
    """The text of a file a sandboxed Yosys wrote for a design, of at most ``limit`` bytes (its size is the
    design's to choose); FileRefused past it, unread."""
    return read_regular_file(path, limit).decode(errors="replace")


def fatal_problems(log: str) -> list[str]:
    """The FATAL lines of a Yosys log, one per wire: Yosys warns of an undriven wire once per bit."""
    bits: dict[str, int] = {}
    for line in log.splitlines():
        if FATAL.search(line):
            undriven = _UNDRIVEN.search(line)
            key = f"wire {undriven[1].lstrip(chr(92))} is used but has no driver" if undriven else line.strip()
            bits[key] = bits.get(key, 0) + 1
    return [f"{key} ({n} bits)" if n > 1 else key for key, n in bits.items()]


def bounded_model_check(rtl: Sequence[Path], properties: Path, depth: int, top: str) -> list[str]:
    """Problems found within ``depth`` cycles by ABC's ``bmc3`` on the AIGER model of the wrapper ``top`` in
    ``properties`` (empty if every assertion holds); one starting with UNCLASSIFIED when the engine failed.

    The design's own assertions and assumptions are removed first; a failing assertion is named by its
    line in ``properties`` and its cycle.
    """
    folder = rtl[0].parent
    with tempfile.TemporaryDirectory() as tmp:
        aiger, asserts = Path(tmp) / "model.aig", Path(tmp) / "asserts.txt"
        script = (
            f"read_verilog -formal -nopp {_files(rtl)}; chformal -remove; "
            f'read_verilog -formal "{properties.resolve()}"; '
            f"prep -top {top}; flatten; memory_map; opt -fast; techmap; opt -fast; abc -g AND; opt_clean; "
            f"async2sync; dffunmap; aigmap; opt_clean; tee -q -o {asserts} select -list t:$assert; "
            f"write_aiger -zinit {aiger}"
        )
        synth = run_tool(["yosys", "-q", "-p", script], cwd=folder,
                         readable=(folder, properties.resolve().parent), writable=(tmp,))
        if not synth.ok:
            return [f"yosys could not prepare the formal model: {synth.tail(5)}"]
        bmc = run_tool(["yosys-abc", "-c", ABC_SCRIPT.format(aiger=aiger, depth=depth)], cwd=tmp,
                       timeout=BMC_TIMEOUT, writable=(tmp,))
        names = asserts.read_text().split() if asserts.exists() else []
    problems = read_bmc(bmc.stdout if bmc.ok else None, names, properties.read_text().splitlines(), depth)
    return [f"{UNCLASSIFIED}: {bmc.tail(5)}"] if problems is None else problems


def read_bmc(stdout: str | None, asserts: Sequence[str], properties: Sequence[str], depth: int) -> list[str] | None:
    """What ABC's ``bmc3`` printed (None if it failed), read: no problem, the failing assertion (by its line of
    ``properties``, found through the assert cells' names ``asserts``) and its cycle, or None when it says
    neither."""
    if stdout is None:
        return None
    if f"No output asserted in {depth} frames" in stdout:
        return []
    found = ASSERTED.search(stdout)
    source = SOURCE_LINE.search(asserts[int(found[1])]) if found and int(found[1]) < len(asserts) else None
    if source is None or not 0 < int(source[1]) <= len(properties):
        return None
    return [f"{properties[int(source[1]) - 1].strip()} (fails in cycle {found[2]})"]


def synthesize(rtl: Sequence[Path], top: str, liberty: Path, driving_cell: str, output_load: float,
               removed_ports: Sequence[str], out: Path) -> float:
    """Map ``top`` to the cells of one ``liberty`` file into ``out/netlist.v`` and ``out/netlist.json``;
    the seconds it took. Raises SynthesisError when Yosys rejects the design, FlowUnavailable when it
    does not finish.

    ``removed_ports`` stop being outputs (the logic only they needed goes); ``abc -constr`` buffers and
    sizes for ``driving_cell`` and ``output_load`` (in the liberty's capacitance unit). The netlist is
    written with ``-simple-lhs``: OpenSTA cannot parse an ``assign`` to a concatenation. ``synth``'s own
    ABC run is preceded by a copy of the design it maps, ``out/handed-to-abc.il``, which
    :func:`equivalence_miter` proves the netlist against.
    """
    folder = rtl[0].parent
    with tempfile.TemporaryDirectory(prefix="chipgym-yosys-") as tmp:
        constraints, log = Path(tmp) / "constr", Path(tmp) / "log"
        constraints.write_text(f"set_driving_cell {driving_cell}\nset_load {output_load:g}\n")
        script = "; ".join([
            f"read_verilog -nopp {_files(rtl)}",
            f"hierarchy -check -top {top}",
            *(f"delete -output {top}/{port}" for port in removed_ports),
            f"synth -flatten -top {top} -run begin:fine",
            *FINE,
            f"write_rtlil {out / HANDED_TO_ABC}",
            "abc -fast", "opt -fast",
            "hierarchy -check", "stat", "check",  # the rest of `synth`
            f"dfflibmap -liberty {liberty}",
            f"abc -constr {constraints} -liberty {liberty}",
            "setundef -zero",
            "opt_clean -purge",
            f"write_verilog -noattr -noexpr -simple-lhs {out / 'netlist.v'}",
            f"write_json {out / 'netlist.json'}",
        ])
        result = run_tool(["yosys", "-q", "-l", str(log), "-p", script], cwd=folder, timeout=SYNTHESIS_TIMEOUT,
                          readable=(folder, liberty.parent), writable=(out, tmp))
        _raise_for(result, log)
    return result.seconds


def equivalence_miter(gold: Path, netlist: Path, liberty: Path, top: str, aiger: Path) -> None:
    """Write to ``aiger`` the miter of the design ``gold`` (RTLIL, as :func:`synthesize` saves it) and the
    ``netlist`` (Verilog of ``liberty``'s cells, read with their liberty functions; a cell without one, such as
    ASAP7's clock gates, which synthesis never maps to, is left out): one output that is 1 in a
    cycle when any output of the two differs, every flop starting at 0 as in the simulators. FlowUnavailable
    when Yosys cannot build it."""
    script = "; ".join([
        f'read_rtlil "{gold}"', f"rename {top} gold", "design -stash gold",
        f'read_liberty -ignore_miss_func "{liberty}"', f'read_verilog "{netlist}"', f"hierarchy -top {top}",
        "flatten", "techmap",
        f"rename {top} gate", "design -stash gate",
        "design -copy-from gold -as gold gold", "design -copy-from gate -as gate gate",
        "miter -equiv -flatten -make_assert gold gate miter", "hierarchy -top miter",
        "flatten", "techmap", "setundef -undriven -init -zero", "async2sync", "dffunmap", "aigmap",
        f'write_aiger -zinit "{aiger}"',
    ])
    result = run_tool(["yosys", "-q", "-p", script], cwd=aiger.parent, timeout=EQUIVALENCE_TIMEOUT,
                      readable=tuple(dict.fromkeys((gold.parent, netlist.parent, liberty.parent))),
                      writable=(aiger.parent,))
    if not result.ok:
        raise FlowUnavailable(f"yosys could not build the equivalence miter: {result.tail(3)}")


@dataclass(frozen=True)
class Proof:
    verdict: str
    """``equivalent``, ``different`` or ``undecided``"""
    frame: int | None = None
    """for ``different``: the cycle after reset in which an output first differs"""
    seconds: float = 0.0


def prove_miter(aiger: Path) -> Proof:
    """ABC's ``dprove`` (signal correspondence, induction, interpolation, PDR) on a miter of
    :func:`equivalence_miter`: whether its output can ever be 1. FlowUnavailable when ABC fails."""
    result = run_tool(["yosys-abc", "-c", PROOF_SCRIPT.format(aiger=aiger)], cwd=aiger.parent,
                      timeout=EQUIVALENCE_TIMEOUT, readable=(aiger.parent,))
    if result.timed_out:
        return Proof("undecided", seconds=result.seconds)
    if not result.ok:
        raise FlowUnavailable(f"yosys-abc failed on the equivalence miter: {result.tail(3)}")
    return read_proof(result.stdout, result.seconds)


def read_proof(stdout: str, seconds: float) -> Proof:
    """What ABC's ``dprove`` printed, read."""
    # a miter that signal correspondence empties is decided by CEC, which prints (UN)SATISFIABLE
    if "Networks are equivalent" in stdout or re.search(r"^UNSATISFIABLE", stdout, re.M):
        return Proof("equivalent", seconds=seconds)
    if ((found := _DIFFERENT.search(stdout)) or "Networks are not equivalent" in stdout
            or re.search(r"^SATISFIABLE", stdout, re.M)):
        return Proof("different", int(found[2]) if found else None, seconds)
    return Proof("undecided", seconds=seconds)


def _raise_for(result: ToolResult, log: Path) -> None:
    if result.ok:
        return
    text = _tail(log) + result.stderr
    if result.timed_out or result.returncode < 0 or "out of memory" in text.lower() or "bad_alloc" in text:
        raise FlowUnavailable(f"yosys did not finish (exit {result.returncode}): {result.tail(3)}")
    raise SynthesisError(f"yosys: {_first_error(result, log, 5)}")
