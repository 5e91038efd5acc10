"""One preprocessing of a design's RTL, read by every tool: the checks, synthesis, formal and the port check.

Verilator's preprocessor (:func:`chipgym.engines.verilator.preprocess`, sandboxed) resolves every
`` `include ``, `` `define `` and `` `ifdef `` once, with one macro set: ``CHIPGYM_RETIRE`` defined and
Verilator's own tool macros
(``VERILATOR``, ``SYSTEMVERILOG``, ...) undefined. The text that comes out holds no conditional left for a
tool's predefined macro (Yosys's ``SYNTHESIS``, ``FORMAL``) to flip, and no comment left for a pragma
(``// synopsys translate_off``); it is what cache keys hash, included files and all. The attributes
``full_case`` and ``parallel_case``, which only synthesis honours, are refused. The text is stored by its
content hash under ``$CHIPGYM_CACHE/preprocessed``.

>>> from pathlib import Path
>>> fixture = Path(__file__).parent / "cpu" / "fixtures" / "multicycle"
>>> text = preprocess(fixture, tuple(sorted((fixture / "rtl").glob("*.v")))).read_text()
>>> "`ifdef" in text, "ret_valid" in text
(False, True)
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines import verilator
from chipgym.errors import PreprocessError

DEFINED = ("CHIPGYM_RETIRE",)
MAX_CHARS = 16 << 20
"""a preprocessed design larger than this (say, an include repeated exponentially) is refused"""
PLAIN_DIRECTIVES = {"timescale", "default_nettype", "resetall", "celldefine", "endcelldefine"}
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_DIRECTIVE = re.compile(r"`\s*(\w+)")
_SYNTHESIS_ONLY = re.compile(r"\(\*[^)]*?\b(full_case|parallel_case)\b")


def preprocess(root: Path, rtl: tuple[Path, ...]) -> Path:
    """The one preprocessed text of the ``rtl`` files of the design in ``root``."""
    text = verilator.preprocess(root, rtl, DEFINED)
    if len(text) > MAX_CHARS:
        raise PreprocessError(f"the preprocessed design holds {len(text):,} characters, over {MAX_CHARS:,}")
    code = _STRING.sub('""', text)
    leftover = sorted({m.group(1) for m in _DIRECTIVE.finditer(code)} - PLAIN_DIRECTIVES)
    if leftover:
        raise PreprocessError(f"directives left after preprocessing: {', '.join('`' + d for d in leftover)}")
    if (attribute := _SYNTHESIS_ONLY.search(code)):
        raise PreprocessError(f"the attribute {attribute.group(1)} is refused: only synthesis would honour it")
    key, cache = hashlib.sha256(text.encode()).hexdigest()[:32], default_cache()
    folder = cache.get_folder("preprocessed", key) or cache.put_folder("preprocessed", key, {"design.v": text.encode()})
    return folder / "design.v"
