"""Build a Verilator simulator of a design with a C++ harness, cached by content hash.

The cache lives in ``$CHIPGYM_CACHE`` (default ``~/.cache/chipgym``)/verilator/<hash>/sim.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from chipgym.cache import cache_dir
from chipgym.errors import BuildError
from chipgym.tasks.chip.design import Design
from chipgym.engines.tools import run_tool

FLAGS = ("--cc", "--exe", "--build", "-j", "2", "-O1", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--prefix", "Vtop")


def build(design: Design, harness: Path, extra: tuple[str, ...] = ()) -> Path:
    """Return the path of a simulator binary for ``design`` driven by ``harness``; ``extra`` are more
    Verilator arguments (e.g. ``("-CFLAGS", "-DX")``)."""
    flags = (*FLAGS, "--top-module", design.top, "-CFLAGS", "-O1", *extra)
    binary = cache_dir("verilator") / design.digest(harness.read_text(), *flags) / "sim"
    if binary.exists():
        return binary
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["verilator", *flags, "--Mdir", tmp, "-o", "sim", str(harness), *map(str, design.rtl)]
        result = run_tool(argv, cwd=design.folder, readable=(design.folder, harness.parent), writable=(tmp,))
        if not result.ok:
            errors = [l for l in result.stderr.splitlines() if l.startswith("%Error")] or [result.tail()]
            raise BuildError("\n".join(errors[:5]))
        binary.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(Path(tmp) / "sim", binary.with_suffix(".tmp"))
        os.replace(binary.with_suffix(".tmp"), binary)
    return binary
