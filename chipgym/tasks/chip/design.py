"""A design folder: ``design.toml`` (top module, clock period in ps), ``rtl/*.v``,
``model/timing_model.py``.

Every tool reads the design as one preprocessed text (:mod:`chipgym.tasks.chip.preprocess`), never the files
themselves: :attr:`Design.rtl` is that text, and :meth:`Design.digest` hashes it. RTL file names are plain
(letters, digits, ``_``, ``-``, ``.``) and the top module's name is a Verilog identifier.

A design declares one clock period per scoring profile: ``clock_period_ps``, or the one in a
``[profile.NAME]`` table of ``design.toml`` for that profile (cells of different libraries differ in speed
by an order of magnitude). That one period drives everything checked and scored under the profile.

>>> from pathlib import Path
>>> d = load_design(Path(__file__).parent / "cpu" / "fixtures" / "multicycle")
>>> d.top, d.clock_period_ps > 0, len(d.digest()) == 64
('chipgym_cpu', True, True)
>>> load_design(d.root, profile="asap7").clock_period_ps < d.clock_period_ps
True
"""
from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from chipgym.errors import DesignError
from chipgym.tasks.chip.preprocess import preprocess

FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.v")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


MAX_PERIOD_PS = 1_000_000  # 1 us: slower than any profile's slowest honest core by far


@dataclass(frozen=True)
class Design:
    root: Path
    top: str
    clock_period_ps: int
    rtl: tuple[Path, ...]
    """what the tools read: the preprocessed text of the design's files"""
    timing_model: Path

    @property
    def folder(self) -> Path:
        """The folder of what the tools read: the only one of the design's that they see."""
        return self.rtl[0].parent

    def digest(self, *extra: str) -> str:
        """Content hash of the preprocessed RTL and design.toml plus ``extra`` strings (tool flags, harness text)."""
        h = hashlib.sha256()
        for path in (self.root / "design.toml", *self.rtl):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        for e in extra:
            h.update(e.encode() + b"\0")
        return h.hexdigest()


def load_design(path: str | Path, profile: str | None = None) -> Design:
    """The design in ``path``, with its clock period for ``profile`` (its default period if None)."""
    root = Path(path).resolve()
    toml = root / "design.toml"
    if not toml.is_file():
        raise DesignError(f"{root}: no design.toml")
    try:
        meta = tomllib.loads(toml.read_text(encoding="utf-8", errors="replace"))
        top, period = str(meta["top"]), meta["clock_period_ps"]
        period = meta.get("profile", {}).get(profile, {}).get("clock_period_ps", period)
    except (tomllib.TOMLDecodeError, KeyError, AttributeError) as e:
        raise DesignError(f"{toml}: needs top = \"...\" and clock_period_ps = N ({e})") from None
    if type(period) is not int or not 0 < period <= MAX_PERIOD_PS:
        raise DesignError(f"{toml}: clock_period_ps must be an integer from 1 to {MAX_PERIOD_PS}, not {period!r}")
    if not IDENTIFIER.fullmatch(top):
        raise DesignError(f"{toml}: top {top!r} is not a plain Verilog identifier")
    rtl = tuple(sorted((root / "rtl").glob("*.v")))
    if not rtl:
        raise DesignError(f"{root}: no rtl/*.v files")
    if folders := [p.name for p in rtl if not p.is_file()]:
        raise DesignError(f"{root}: rtl/{folders[0]} is not a file")
    for path in rtl:
        if not FILE_NAME.fullmatch(path.name):
            raise DesignError(f"{path}: unusual file name {path.name!r} (use letters, digits, '_', '-', '.')")
    text = preprocess(root, rtl)  # a PreprocessError is a DesignError
    return Design(root, top, period, (text,), root / "model" / "timing_model.py")
