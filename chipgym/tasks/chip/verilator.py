"""Build a Verilator simulator of a design with a C++ harness, cached by content hash.

The simulator is the entry ``verilator/<hash>/sim`` of :mod:`chipgym.cache`.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from chipgym.cache import default_cache, folder_digest
from chipgym.engines import verilator
from chipgym.tasks.chip.design import Design

# Every design built here is gates and flops (the canonical design or a netlist): its C++ compiles in 60% of the
# time at -O0 and runs as fast (the multicycle fixture's check build: 7.3 s at -O1, 4.4 s at -O0; its runs ~3.5 s).
GATE_LEVEL_BUILD = ("-MAKEFLAGS", "OPT_FAST=-O0", "-MAKEFLAGS", "OPT_SLOW=-O0", "-CFLAGS", "-O0")


def build(design: Design, harness: Path, extra: tuple[str, ...] = ()) -> Path:
    """Return the path of a simulator binary for ``design`` driven by ``harness`` (BuildError when Verilator
    rejects it); ``extra`` are more Verilator arguments (e.g. ``("-CFLAGS", "-DX")``)."""
    flags = verilator.build_flags(design.top, (*GATE_LEVEL_BUILD, *extra))
    key = design.digest(folder_digest(harness.parent), harness.name, *flags)  # all the harness's folder shows
    if (folder := default_cache().get_folder("verilator", key)) is not None:
        return folder / "sim"
    with tempfile.TemporaryDirectory() as tmp:
        sim = verilator.build(design.rtl, harness, flags, Path(tmp))
        return default_cache().put_folder("verilator", key, {"sim": sim}) / "sim"
