"""The one reading of a design: its preprocessed text elaborated once, by Yosys, into a design in which no value
is left for a later tool to choose, which every check, ``simulate``, the formal gate and synthesis read.

Verilator and Yosys read plain Verilog differently wherever the standard leaves a value undefined or the two
disagree (a quotient by zero, a bit-select past a vector's end, a ``z`` in a plain ``case`` item, an incomplete
sensitivity list), so a design read by both could be checked as one circuit and scored as another. Here Yosys
lowers the text as ``synth -flatten`` does before ABC (:data:`chipgym.engines.yosys.FINE`): every operator to
single-bit gates, every memory to flops, every value it leaves undefined to 0; the result is written back as
Verilog. Each gate and flop means one thing to every tool, so whatever Yosys chose for the text is what the checks
run, what synthesis maps and what the equivalence proof ties the netlist to. The text that Yosys refuses is the
design's failure (:class:`~chipgym.errors.ElaborationError`). Designs are stored by their text's hash under
``$CHIPGYM_CACHE/canonical``, and why Yosys refused a text under ``refused``: no text is elaborated twice.

>>> from chipgym.tasks.chip.design import load_design
>>> from chipgym.tasks.chip.registry import load_task
>>> design = load_design(load_task("cpu").fixtures["multicycle"])
>>> text = design.rtl[0].read_text()
>>> " * " in text, "always @(posedge clk)" in text
(False, True)
"""
from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines import yosys
from chipgym.errors import ElaborationError

CANONICAL_FORMAT = "canonical-1"
"""the version of the lowering, part of its cache key: a design lowered before is lowered again"""
MAX_BYTES = 256 << 20
"""of the elaborated design's Verilog (the cpu fixtures': under 1 MiB)"""


def canonical(text: Path, top: str) -> Path:
    """The canonical design of the preprocessed ``text`` with top module ``top``; ElaborationError when Yosys
    refuses the text."""
    digest = hashlib.sha256(f"{CANONICAL_FORMAT}\0{top}\0".encode() + text.read_bytes()).hexdigest()[:32]
    cache = default_cache()
    if (folder := cache.get_folder("canonical", digest)) is not None:
        return folder / "design.v"
    if (refused := cache.get_json("refused", f"elaboration-{digest}.json")) is not None:
        raise ElaborationError(refused)  # a text Yosys refused is not elaborated again
    with tempfile.TemporaryDirectory(prefix="chipgym-canonical-") as tmp:
        out = Path(tmp) / "design.v"
        if (problem := yosys.canonicalize(text, top, out)) is not None:
            refused = f"the design could not be elaborated: {problem}"
        elif (size := out.stat().st_size) > MAX_BYTES:
            refused = f"the design elaborated to {size:,} bytes of Verilog, over {MAX_BYTES:,}"
        else:
            return cache.put_folder("canonical", digest, {"design.v": out}) / "design.v"
    cache.put_json("refused", f"elaboration-{digest}.json", refused)
    raise ElaborationError(refused)
