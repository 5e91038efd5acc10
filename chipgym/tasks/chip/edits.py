"""Text edits of a design folder: ``[[edit]]`` tables (``file``, ``old``, ``new``) where ``old`` occurs exactly once.

A task's mutants (the cpu's ``mutants.py``) and generated designs (the cpu's ``generator.py``) are both a
fixture with edits applied.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "a.v").write_text("assign y = a & b;")
>>> apply_edits(folder, [Edit("a.v", "a & b", "a | b")], "demo")
>>> (folder / "a.v").read_text()
'assign y = a | b;'
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import NamedTuple


class Edit(NamedTuple):
    file: str
    """path inside the design folder"""
    old: str
    new: str


def load_edits(toml: Path, section: str | None = None) -> tuple[Edit, ...]:
    """The ``[[edit]]`` tables of a TOML file (``[[SECTION.edit]]`` with a ``section``)."""
    tables = tomllib.loads(toml.read_text())
    tables = tables.get(section, {}) if section else tables
    return tuple(Edit(e["file"], e["old"], e["new"]) for e in tables.get("edit", []))


def apply_edits(folder: Path, edits: tuple[Edit, ...] | list[Edit], label: str) -> None:
    """Apply ``edits`` in order to the files in ``folder``; ``label`` names the edits in the error of an ``old``
    that does not occur exactly once."""
    for edit in edits:
        path = folder / edit.file
        text = path.read_text()
        if text.count(edit.old) != 1:
            raise ValueError(f"{label}: {edit.old!r} occurs {text.count(edit.old)} times in {edit.file}")
        path.write_text(text.replace(edit.old, edit.new))
