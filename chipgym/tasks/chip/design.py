"""A design folder: ``design.toml`` (top module, clock period in ps), ``rtl/*.v``,
``model/timing_model.py``.

No tool reads the files themselves. They are preprocessed once into one text (:attr:`Design.text`,
:mod:`chipgym.tasks.chip.preprocess`), which only the port check reads (its messages name the design's own
wires); that text is elaborated once, by Yosys, into the one design every other tool reads (:attr:`Design.rtl`,
:mod:`chipgym.tasks.chip.canonical`): the checks' simulators, ``simulate``, the formal gate, synthesis and so the
equivalence proof. :meth:`Design.digest` hashes what they read. The timing model's sandbox
reads every file of the model's folder (a model may import a helper beside it): :meth:`Design.model_digest`
hashes them all. RTL file names are plain (letters, digits, ``_``, ``-``, ``.``), the top module's name is a
Verilog identifier, and ``design.toml`` is at most :data:`MAX_TOML` bytes.

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

from chipgym.cache import folder_digest
from chipgym.errors import DesignError, ElaborationError
from chipgym.tasks.chip.canonical import canonical
from chipgym.tasks.chip.preprocess import preprocess, with_source_lines

FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.v")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


MAX_PERIOD_PS = 1_000_000  # 1 us: slower than any profile's slowest honest core by far
MAX_TOML = 64 << 10  # bytes of design.toml


@dataclass(frozen=True)
class Design:
    root: Path
    top: str
    clock_period_ps: int
    rtl: tuple[Path, ...]
    """what the tools read: the canonical design (a synthesized netlist, for the gate-level simulator)"""
    timing_model: Path
    text: Path
    """the preprocessed text of the design's files, which the port check reads"""

    def digest(self, *extra: str) -> str:
        """Content hash of what the tools read and design.toml plus ``extra`` strings (tool flags, harness text)."""
        h = hashlib.sha256()
        for path in (self.root / "design.toml", *self.rtl):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        for e in extra:
            h.update(e.encode() + b"\0")
        return h.hexdigest()

    def model_digest(self) -> str:
        """Content hash of every file in the folder the timing model's sandbox is shown; empty when there is no
        model."""
        if not self.timing_model.is_file():
            return ""
        folder = self.timing_model.resolve().parent
        return f"{self.timing_model.resolve().relative_to(folder)}:{folder_digest(folder)}"


def load_design(path: str | Path, profile: str | None = None) -> Design:
    """The design in ``path``, with its clock period for ``profile`` (its default period if None)."""
    root = Path(path).resolve()
    top, period = _settings(root / "design.toml", profile)
    rtl = tuple(sorted((root / "rtl").glob("*.v")))
    if not rtl:
        raise DesignError(f"{root}: no rtl/*.v files")
    if folders := [p.name for p in rtl if not p.is_file()]:
        raise DesignError(f"{root}: rtl/{folders[0]} is not a file")
    for path in rtl:
        if not FILE_NAME.fullmatch(path.name):
            raise DesignError(f"{path}: unusual file name {path.name!r} (use letters, digits, '_', '-', '.')")
    text = preprocess(root, rtl)  # a PreprocessError is a DesignError
    try:
        read = canonical(text, top)
    except ElaborationError as error:
        raise ElaborationError(with_source_lines(str(error), root, rtl, text)) from None
    return Design(root, top, period, (read,), root / "model" / "timing_model.py", text)


def _settings(toml: Path, profile: str | None) -> tuple[str, int]:
    """The top module and the clock period for ``profile`` in ``toml``; DesignError naming what is wrong."""
    if not toml.is_file():
        raise DesignError(f"{toml.parent}: no design.toml")
    if (size := toml.stat().st_size) > MAX_TOML:
        raise DesignError(f"{toml}: {size:,} bytes, over the limit of {MAX_TOML:,}")
    try:
        meta = tomllib.loads(toml.read_text(encoding="utf-8", errors="replace"))
        top, period = meta["top"], meta["clock_period_ps"]
        period = meta.get("profile", {}).get(profile, {}).get("clock_period_ps", period)
    except RecursionError:
        raise DesignError(f"{toml}: nested too deeply") from None
    except (tomllib.TOMLDecodeError, KeyError, AttributeError) as e:
        raise DesignError(f"{toml}: needs top = \"...\" and clock_period_ps = N ({str(e)[:200]})") from None
    if type(period) is not int or not 0 < period <= MAX_PERIOD_PS:
        raise DesignError(f"{toml}: clock_period_ps must be an integer from 1 to {MAX_PERIOD_PS}, not "
                          f"{_shown(period)}")
    if not isinstance(top, str) or not IDENTIFIER.fullmatch(top):
        raise DesignError(f"{toml}: top {_shown(top)} is not a plain Verilog identifier")
    return top, period


def _shown(value: object) -> str:
    """A value of the agent's, short enough for a message (a TOML value can be a long or nested one)."""
    text = repr(value) if isinstance(value, (str, int, float, bool)) else f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."
