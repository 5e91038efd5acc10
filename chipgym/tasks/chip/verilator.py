"""Build a Verilator simulator of a design with a C++ harness, cached by content hash.

The simulator is the entry ``verilator/<hash>/sim`` of :mod:`chipgym.cache`.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from chipgym.cache import default_cache, folder_digest
from chipgym.engines import verilator
from chipgym.tasks.chip.design import Design


def build(design: Design, harness: Path, extra: tuple[str, ...] = ()) -> Path:
    """Return the path of a simulator binary for ``design`` driven by ``harness`` (BuildError when Verilator
    rejects it); ``extra`` are more Verilator arguments (e.g. ``("-CFLAGS", "-DX")``)."""
    flags = verilator.build_flags(design.top, extra)
    key = design.digest(folder_digest(harness.parent), harness.name, *flags)  # all the harness's folder shows
    if (folder := default_cache().get_folder("verilator", key)) is not None:
        return folder / "sim"
    with tempfile.TemporaryDirectory() as tmp:
        sim = verilator.build(design.rtl, harness, flags, Path(tmp))
        return default_cache().put_folder("verilator", key, {"sim": sim}) / "sim"
