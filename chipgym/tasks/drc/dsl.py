"""Inventory of the KLayout DRC DSL: which methods exist in 0.28.5 and which a deck uses.

``dsl_methods_0285.yaml`` was produced with :func:`chipgym.engines.klayout.probe_dsl_methods` on the
Debian KLayout 0.28.5 binary; decks in this package must stay inside it.

>>> sorted(dsl_methods_used('m1 = input(68, 20)\\nm1.width(0.14, projection).output("a", "b")'))
['input', 'output', 'projection', 'width']
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml

INVENTORY = Path(__file__).with_name("dsl_methods_0285.yaml")

FORBIDDEN = frozenset({"drc_hull", "peel", "rasterize", "size_inside", "size_outside", "hulls"})
"""Methods that are new in later KLayout versions or deliberately avoided (``split_*`` too)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_COMMENT = re.compile(r"#[^\n]*")
_WORD = re.compile(r"\b([a-z_][a-z0-9_]*[?!]?)")
_ASSIGNED = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*=[^=]", re.M)


@functools.cache
def dsl_methods() -> frozenset[str]:
    """All public DSL method names of KLayout 0.28.5 (layer methods and global functions)."""
    data = yaml.safe_load(INVENTORY.read_text())
    return frozenset(data["layer"]) | frozenset(data["engine"])


def dsl_methods_used(deck: str) -> set[str]:
    """DSL methods a deck calls (identifiers outside strings/comments, minus assigned variables)."""
    code = _COMMENT.sub("", _STRING.sub('""', deck))
    assigned = set(_ASSIGNED.findall(code))
    return {w for w in _WORD.findall(code) if w in dsl_methods() and w not in assigned}


def unsupported_methods(deck: str) -> set[str]:
    """Method-like words a deck uses that are forbidden or split_* (must be empty for our decks)."""
    code = _COMMENT.sub("", _STRING.sub('""', deck))
    return {w for w in _WORD.findall(code) if w in FORBIDDEN or w.startswith("split_")}
