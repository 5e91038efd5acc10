"""Build a Verilator simulator of a design with a C++ harness, cached by content hash.

The cache lives in ``$CHIPGYM_CACHE`` (default ``~/.cache/chipgym``)/verilator/<hash>/sim.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from chipgym.cache import cache_dir
from chipgym.engines import verilator
from chipgym.tasks.chip.design import Design


def build(design: Design, harness: Path, extra: tuple[str, ...] = ()) -> Path:
    """Return the path of a simulator binary for ``design`` driven by ``harness`` (BuildError when Verilator
    rejects it); ``extra`` are more Verilator arguments (e.g. ``("-CFLAGS", "-DX")``)."""
    flags = verilator.build_flags(design.top, extra)
    binary = cache_dir("verilator") / design.digest(harness.read_text(), *flags) / "sim"
    if binary.exists():
        return binary
    with tempfile.TemporaryDirectory() as tmp:
        sim = verilator.build(design.rtl, harness, flags, Path(tmp))
        binary.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(sim, binary.with_suffix(".tmp"))
        os.replace(binary.with_suffix(".tmp"), binary)
    return binary
