"""One preprocessing of a design's RTL, read by every tool: the checks, synthesis, formal and the port check.

Verilator's preprocessor (:func:`chipgym.engines.verilator.preprocess`, sandboxed) resolves every
`` `include ``, `` `define `` and `` `ifdef `` once, with one macro set: ``CHIPGYM_RETIRE`` defined and
Verilator's own tool macros
(``VERILATOR``, ``SYSTEMVERILOG``, ...) undefined. The text that comes out holds no conditional left for a
tool's predefined macro (Yosys's ``SYNTHESIS``, ``FORMAL``) to flip, and no comment left for a pragma
(``// synopsys translate_off``); it is what cache keys hash, included files and all.

The text is then refused if it holds anything of :mod:`chipgym.tasks.chip.constructs`: a construct that runs
outside the simulated design (``$c``, DPI, ``$system``, file I/O, plusargs; found in Verilator's own parse tree,
every generate branch included), a Verilator metacomment, an attribute, a leftover directive or an ``x``/``z``
value. The refusal names the file and line each came from. An accepted text is stored by its content hash under
``$CHIPGYM_CACHE/preprocessed``, so each text is checked once.

>>> from pathlib import Path
>>> fixture = Path(__file__).parent / "cpu" / "fixtures" / "multicycle"
>>> text = preprocess(fixture, tuple(sorted((fixture / "rtl").glob("*.v")))).read_text()
>>> "`ifdef" in text, "ret_valid" in text
(False, True)
"""
from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import astuple
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines import verilator
from chipgym.errors import PreprocessError
from chipgym.tasks.chip.constructs import Finding, lexical_findings, tree_findings

DEFINED = ("CHIPGYM_RETIRE",)
MAX_CHARS = 16 << 20
"""a preprocessed design larger than this (say, an include repeated exponentially) is refused"""
CHECKS = "constructs-1"
"""the version of what a text is checked for, part of its cache key: a text stored before is checked again"""
SHOWN_FINDINGS = 5
_LINE_MARKER = re.compile(r'\s*`line (\d+) "([^"]*)" \d\s*$')
_TEXT_LINE = re.compile(r"\bdesign\.v:(\d+):")


def preprocess(root: Path, rtl: tuple[Path, ...]) -> Path:
    """The one preprocessed text of the ``rtl`` files of the design in ``root``; PreprocessError (a DesignError)
    when it cannot be made or holds a refused construct."""
    text = verilator.preprocess(root, rtl, DEFINED)
    if len(text) > MAX_CHARS:
        raise PreprocessError(f"the preprocessed design holds {len(text):,} characters, over {MAX_CHARS:,}")
    key, cache = hashlib.sha256(f"{CHECKS}\0{text}".encode()).hexdigest()[:32], default_cache()
    if (folder := cache.get_folder("preprocessed", key)) is not None:
        return folder / "design.v"
    # a refused text is not scanned again: its findings, or why its parse tree was refused, are stored
    if (refused := cache.get_json("refused", f"constructs-{key}.json")) is None:
        try:
            refused = [astuple(finding) for finding in refused_constructs(text)]
        except PreprocessError as error:
            refused = str(error)
        if refused:
            cache.put_json("refused", f"constructs-{key}.json", refused)
    if isinstance(refused, str):
        raise PreprocessError(refused)
    if findings := [Finding(*finding) for finding in refused]:
        origins = source_lines(root, rtl, text)
        shown = [f"{origins.get(f.line, f'line {f.line} of the preprocessed design')}: {f.what} ({f.why})"
                 for f in findings[:SHOWN_FINDINGS]]
        more = f"; and {len(findings) - SHOWN_FINDINGS} more" if len(findings) > SHOWN_FINDINGS else ""
        raise PreprocessError(f"refused: {'; '.join(shown)}{more}")
    return cache.put_folder("preprocessed", key, {"design.v": text.encode()}) / "design.v"


def refused_constructs(text: str) -> list[Finding]:
    """What :mod:`chipgym.tasks.chip.constructs` refuses in a preprocessed ``text``, in line order."""
    found = lexical_findings(text)
    with tempfile.TemporaryDirectory(prefix="chipgym-constructs-") as tmp:
        design = Path(tmp) / "design.v"
        design.write_text(text)
        tree = verilator.parse_tree(design)
    if tree is not None:  # a text Verilator cannot parse fails the port check and the build, as before
        found += tree_findings(tree)
    return sorted(set(found), key=lambda f: (f.line, f.what))


def source_lines(root: Path, rtl: tuple[Path, ...], text: str) -> dict[int, str]:
    """``{line of text: "rtl/x.v line N"}`` for the lines of the preprocessed ``text``, from a second
    preprocessing that keeps Verilator's ```line`` markers; empty if the two do not line up."""
    marked, origins, file, number = verilator.preprocess(root, rtl, DEFINED, line_markers=True), [], "", 0
    for raw in marked.splitlines():
        if (marker := _LINE_MARKER.match(raw)):
            file, number = _shown_path(root, marker[2]), int(marker[1])
            continue
        if raw.strip():  # the two differ in blank lines and in the white space around a metacomment
            origins.append((raw.strip(), f"{file} line {number}"))
        number += 1
    kept = [(index, raw.strip()) for index, raw in enumerate(text.splitlines(), 1) if raw.strip()]
    if [raw for _, raw in kept] != [raw for raw, _ in origins]:
        return {}
    return {index: origin for (index, _), (_, origin) in zip(kept, origins)}


def with_source_lines(message: str, root: Path, rtl: tuple[Path, ...], text: Path) -> str:
    """``message`` of a tool that read the preprocessed ``text`` by its name, each ``design.v:N:`` in it shown
    as the file and line the text's line N came from."""
    if not _TEXT_LINE.search(message):
        return message
    origins = source_lines(root, rtl, text.read_text())
    return _TEXT_LINE.sub(lambda m: origins.get(int(m[1]), f"line {m[1]} of the preprocessed design") + ":",
                          message)


def _shown_path(root: Path, path: str) -> str:
    """``path`` relative to the design folder ``root`` when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return Path(path).name
