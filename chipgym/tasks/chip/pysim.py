"""A design built for stepping from Python (pyverilator, sandboxed), cached by content hash.

The library is the entry ``pyverilator/<hash>/design.so`` of :mod:`chipgym.cache`; only a sandboxed worker
of :mod:`chipgym.engines.pyverilator` ever loads it.

>>> from chipgym.tasks.chip.design import load_design
>>> library(load_design("chipgym/tasks/chip/cpu/fixtures/multicycle")).name  # doctest: +SKIP
'design.so'
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines import pyverilator
from chipgym.tasks.chip.design import Design


def library(design: Design) -> Path:
    """The path of ``design``'s pyverilator library, built once per content (BuildError when Verilator or the
    compiler rejects it)."""
    key = design.digest("pyverilator", pyverilator.version(), pyverilator.BUILD)
    if (folder := default_cache().get_folder("pyverilator", key)) is not None:
        return folder / pyverilator.LIBRARY
    with tempfile.TemporaryDirectory(prefix="chipgym-pysim-") as tmp:
        built = pyverilator.build(design.rtl[0], design.top, Path(tmp))
        return default_cache().put_folder("pyverilator", key, {pyverilator.LIBRARY: built}) / pyverilator.LIBRARY
