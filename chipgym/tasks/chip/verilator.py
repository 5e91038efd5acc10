"""Build a Verilator simulator of a design with a C++ harness, cached by content hash.

The simulator is the entry ``verilator/<hash>/sim`` of :mod:`chipgym.cache`.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from chipgym.tasks.chip.design import Design
from chipgym.cache import default_cache
from chipgym.engines.tools import run_tool

FLAGS = ("--cc", "--exe", "--build", "-j", "2", "-O1", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--prefix", "Vtop")


class BuildError(RuntimeError):
    """Verilator rejected the design; the message holds the first errors."""


def build(design: Design, harness: Path, extra: tuple[str, ...] = ()) -> Path:
    """Return the path of a simulator binary for ``design`` driven by ``harness``; ``extra`` are more
    Verilator arguments (e.g. ``("-CFLAGS", "-DX")``)."""
    flags = (*FLAGS, "--top-module", design.top, "-CFLAGS", "-O1", *extra)
    key = design.digest(harness.read_text(), *flags)
    if (folder := default_cache().get_folder("verilator", key)) is not None:
        return folder / "sim"
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["verilator", *flags, "--Mdir", tmp, "-o", "sim", str(harness), *map(str, design.rtl)]
        result = run_tool(argv, cwd=design.folder, readable=(design.folder, harness.parent), writable=(tmp,))
        if not result.ok:
            errors = [l for l in result.stderr.splitlines() if l.startswith("%Error")] or [result.tail()]
            raise BuildError("\n".join(errors[:5]))
        return default_cache().put_folder("verilator", key, {"sim": Path(tmp) / "sim"}) / "sim"
