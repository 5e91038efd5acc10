"""Verilator, sandboxed: its preprocessor, its parse tree, the build of a simulator from Verilog and a C++ harness,
and runs of the simulator it built.

>>> build_flags("cpu")[-4:]
('--top-module', 'cpu', '-CFLAGS', '-O1')
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Sequence

from chipgym.engines.tools import ToolResult, run_tool
from chipgym.errors import BuildError, PreprocessError
from chipgym.files import FileRefused, read_regular_file

WARNINGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style")
FLAGS = ("--cc", "--exe", "--build", "-j", "2", "-O1", *WARNINGS, "--prefix", "Vtop")
OWN_MACROS = ("VERILATOR", "verilator", "verilator3", "SYSTEMVERILOG", "coverage_block_off")
"""the macros Verilator defines for itself"""
PREPROCESS_TIMEOUT = 60
# Of the parse tree Verilator dumps. It prints every node with its path from the root, so a left-deep expression of
# n operands dumps about n^2 characters (a 144 KB text of three 12,000-operand ANDs took 2.5 GiB to parse here); the
# fixtures' trees are 47-137 KB, about 14 times their preprocessed text.
MAX_TREE_BYTES = 32 << 20
NO_TOP = "chipgym-parse-only"
"""a top module no design can name: Verilator stops right after linking cells, its first tree dump"""


def preprocess(root: Path, rtl: Sequence[Path], defined: Sequence[str], timeout: float = PREPROCESS_TIMEOUT,
               line_markers: bool = False) -> str:
    """The text of the ``rtl`` files of the design in ``root`` after ``verilator -E -P`` (includes from
    ``root/rtl``), with the ``defined`` macros and none of Verilator's own; PreprocessError when it fails.
    ``line_markers`` keeps the ```line`` directives (and blank lines) that ``-P`` drops."""
    argv = ["verilator", "-E", *([] if line_markers else ["-P"]), *(f"-D{m}" for m in defined),
            *(f"-U{m}" for m in OWN_MACROS), f"-I{root / 'rtl'}", *map(str, rtl)]
    result = run_tool(argv, cwd=root, timeout=timeout, readable=(root,))
    if result.timed_out:
        raise PreprocessError(f"preprocessing did not finish in {timeout} s (includes nested too deep?)")
    if not result.ok:
        raise PreprocessError(f"preprocessing: {_errors(result, 3)[0]}")
    return result.stdout


def parse_tree(design: Path, timeout: float = PREPROCESS_TIMEOUT) -> str | None:
    """Verilator's tree of the Verilog file ``design`` right after parsing and linking cells, before anything is
    elaborated: every module and every branch of every generate is in it. None when Verilator cannot parse it
    (then it cannot build it either); PreprocessError when it runs past ``timeout``."""
    with tempfile.TemporaryDirectory(prefix="chipgym-parse-") as tmp:
        argv = ["verilator", "--xml-only", "--dump-tree", *WARNINGS, "--top-module", NO_TOP, "--Mdir", tmp,
                str(design)]
        result = run_tool(argv, cwd=design.parent, timeout=timeout, readable=(design.parent,), writable=(tmp,))
        if result.timed_out:
            raise PreprocessError(f"Verilator did not parse the preprocessed design in {timeout} s")
        trees = sorted(Path(tmp).glob("*_cells.tree"))
        if not trees:
            return None
        try:
            return read_regular_file(trees[0], MAX_TREE_BYTES).decode(errors="replace")
        except FileRefused as refused:
            raise PreprocessError(f"Verilator's parse tree of the design is refused ({refused}): a design this "
                                  "large or this deeply nested is not checked") from None


def build_flags(top: str, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """Verilator's arguments for a simulator of ``top``; ``extra`` are more (e.g. ``("-CFLAGS", "-DX")``)."""
    return (*FLAGS, "--top-module", top, "-CFLAGS", "-O1", *extra)


def build(rtl: Sequence[Path], harness: Path, flags: Sequence[str], mdir: Path) -> Path:
    """Build the simulator of ``rtl`` driven by ``harness`` in the folder ``mdir``; its path, or BuildError
    with the first errors."""
    argv = ["verilator", *flags, "--Mdir", str(mdir), "-o", "sim", str(harness), *map(str, rtl)]
    result = run_tool(argv, cwd=rtl[0].parent, readable=(rtl[0].parent, harness.parent), writable=(mdir,))
    if not result.ok:
        raise BuildError("\n".join(_errors(result, 30)[:5]))
    return mdir / "sim"


def run_simulator(binary: Path, stdin: str, timeout: float) -> ToolResult:
    """One run of a built simulator on ``stdin``."""
    return run_tool([str(binary)], stdin=stdin, timeout=timeout, readable=(binary.parent,))


def _errors(result: ToolResult, tail: int) -> list[str]:
    """Verilator's ``%Error`` lines, or the last ``tail`` lines of its output."""
    return [line for line in result.stderr.splitlines() if line.startswith("%Error")] or [result.tail(tail)]
