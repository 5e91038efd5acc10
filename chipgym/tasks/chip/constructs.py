"""What a design's preprocessed text may not hold: code that runs outside the simulated design, and what one
tool honours and another ignores.

Two readings of the one text (:mod:`chipgym.tasks.chip.preprocess`):

- **Lexical** (:func:`lexical_findings`, a scanner that knows strings, escaped identifiers and comments):
  every comment left after ``verilator -E -P`` (it keeps only Verilator's metacomments, ``/*verilator public*/``
  and the like, and turns ``// verilator ...`` into them), every attribute instance ``(* ... *)`` and every
  compiler directive but the plain ones. Verilator ignores attributes and Yosys honours them, so an attribute
  is a place where the two read different designs; and Verilator ends one at its first ``*)``, even inside a
  string, where Yosys does not, so the text between the two ends would be code to one tool and an attribute
  to the other.
- **Verilator's own parse** (:func:`tree_findings`, on the tree Verilator dumps right after parsing and linking
  cells, before it elaborates anything, so every branch of every generate and every module is in it whatever a
  tool makes of their conditions): ``$c`` and its forms, DPI imports and exports, ``$system``, file I/O
  (``$fopen``, displays to a file, ``$fread``, ``$readmem``/``$writemem``, ``$dumpfile`` ...), plusargs and
  SystemC sections, all of which run outside the model, in the harness's process or the host; and ``x`` or ``z``
  values outside a case item's pattern, which Verilator simulates as one value where synthesis may choose any.

>>> [str(f) for f in lexical_findings('(* keep = (1), full_case *) wire w;\\nalways @(*) w = "(*";\\n')]
['line 1: the attribute (* keep = (1), full_case *): Verilator ignores attributes and Yosys honours them']
"""
from __future__ import annotations

import re
from dataclasses import dataclass

PLAIN_DIRECTIVES = {"timescale", "default_nettype", "resetall", "celldefine", "endcelldefine"}
SHOWN = 60
"""characters of the design's text a finding shows"""

OUTSIDE = "it runs outside the simulated design"
ESCAPES = {
    "UCSTMT": "$c", "UCFUNC": "$c", "SYSTEMT": "$system", "SYSTEMF": "$system", "DPIEXPORT": "a DPI export",
    "FOPEN": "$fopen", "FOPENMCD": "$fopen", "FCLOSE": "$fclose", "FFLUSH": "$fflush", "FEOF": "$feof",
    "FERROR": "$ferror", "FGETC": "$fgetc", "FGETS": "$fgets", "FREAD": "$fread", "FREWIND": "$rewind",
    "FSCANF": "$fscanf", "FSEEK": "$fseek", "FTELL": "$ftell", "FUNGETC": "$ungetc", "READMEM": "$readmem",
    "WRITEMEM": "$writemem", "DUMPCTL": "$dumpfile/$dumpvars", "TESTPLUSARGS": "$test$plusargs",
    "VALUEPLUSARGS": "$value$plusargs", "SCHDR": "`systemc_header", "SCIMP": "`systemc_implementation",
    "SCIMPHDR": "`systemc_imp_header", "SCINT": "`systemc_interface", "SCCTOR": "`systemc_ctor",
    "SCDTOR": "`systemc_dtor",
}
"""Verilator's node types that reach C++ or the host, and what the design wrote"""
_TREE_LINE = re.compile(r"^\s*((?:\d+:)+) (\w+) 0x[0-9a-f]+ \{([a-z]+)(\d+)[a-z]*\}(.*)$")
_UNKNOWN_BITS = re.compile(r"'s?[bodh]?[0-9a-f_]*[xz?]", re.I)
_DISPLAY_FILE = 2  # a DISPLAY's second operand is its file: $fdisplay, $fwrite, $fstrobe, $fmonitor
_CASE_PATTERN = 1  # a CASEITEM's first operand holds its patterns, where casez/casex wildcards belong


@dataclass(frozen=True)
class Finding:
    line: int
    """in the preprocessed text, from 1"""
    what: str
    why: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}: {self.why}"


def lexical_findings(text: str) -> list[Finding]:
    """Comments, attribute instances and directives other than the plain ones, outside strings."""
    found = []
    for line, kind, source in _tokens(text):
        shown = source if len(source) <= SHOWN else source[:SHOWN] + "..."
        if kind == "comment":
            found.append(Finding(line, f"the Verilator metacomment {shown}", "Verilator acts on it, no other tool"))
        elif kind == "attribute":
            found.append(Finding(line, f"the attribute {shown}", "Verilator ignores attributes and Yosys honours them"))
        elif source[1:].strip() not in PLAIN_DIRECTIVES:
            found.append(Finding(line, f"the directive {shown}", "it is left after preprocessing"))
    return found


def _tokens(text: str):
    """(line, kind, source) of each comment, attribute instance and directive of ``text``, outside strings."""
    i, line, n = 0, 1, len(text)

    def past_string(i: int) -> int:  # from an opening quote past its closing one, or to the end of its line
        i += 1
        while i < n and text[i] not in '"\n':
            i += 2 if text[i] == "\\" else 1
        return min(i + 1, n) if i < n and text[i] == '"' else i

    while i < n:
        start, c = i, text[i]
        if c == '"':
            i = past_string(i)
        elif c == "\\":  # an escaped identifier holds anything up to white space, quotes and (* included
            i = m.start() if (m := re.compile(r"\s").search(text, i)) else n
        elif text.startswith("//", i):
            i = n if (end := text.find("\n", i)) < 0 else end
            yield line, "comment", text[start:i]
        elif text.startswith("/*", i):
            i = n if (end := text.find("*/", i + 2)) < 0 else end + 2
            yield line, "comment", text[start:i]
        elif text.startswith("(*", i) and not re.match(r"\(\*\s*\)", text[i:i + 64]):  # not @(*)
            i += 2
            while i < n and not text.startswith("*)", i):
                i = past_string(i) if text[i] == '"' else i + 1
            i = min(i + 2, n)
            yield line, "attribute", " ".join(text[start:i].split())
        elif c == "`":
            i = re.compile(r"`\s*\w*").match(text, i).end()
            yield line, "directive", text[start:i]
        else:
            i += 1
        line += text.count("\n", start, i)


@dataclass(frozen=True)
class _Node:
    path: str
    """the operand slots from the root, ``1:2:3:``"""
    kind: str
    file: str
    line: int
    rest: str
    parent: int | None

    @property
    def slot(self) -> int:
        return int(self.path.rstrip(":").rsplit(":", 1)[-1])


def tree_findings(tree: str) -> list[Finding]:
    """What :data:`ESCAPES` names, DPI imports, displays to a file and unknown bits outside case patterns, in a
    Verilator tree dump (a ``.tree`` file), in the design's own file."""
    nodes = _nodes(tree)
    design = next((node.file for node in nodes if node.kind == "MODULE" and node.file != "a"), None)
    found = []
    for index, node in enumerate(nodes):
        parent = nodes[node.parent] if node.parent is not None else None
        if node.file != design:
            continue
        if node.kind in ESCAPES:
            found.append(Finding(node.line, ESCAPES[node.kind], OUTSIDE))
        elif node.kind in ("FUNC", "TASK") and "[DPI" in node.rest:
            found.append(Finding(node.line, f"the DPI import of {_name(node.rest)}", OUTSIDE))
        elif parent and parent.kind == "DISPLAY" and node.slot == _DISPLAY_FILE:
            found.append(Finding(parent.line, "a display to a file ($fdisplay, $fwrite, ...)", OUTSIDE))
        elif (node.kind == "CONST" and _UNKNOWN_BITS.search(node.rest.split()[-1])
              and not (parent and parent.kind == "CASEITEM" and node.slot == _CASE_PATTERN)):
            found.append(Finding(node.line, f"the value {node.rest.split()[-1]}",
                                 "Verilator simulates an x or z as one value, synthesis may choose any"))
    return found


def _nodes(tree: str) -> list[_Node]:
    """The nodes of a pre-order tree dump, each with the index of its parent."""
    nodes: list[_Node] = []
    stack: list[int] = []
    for m in filter(None, map(_TREE_LINE.match, tree.splitlines())):
        path = m[1]
        while stack and not (path.startswith(nodes[stack[-1]].path) and len(path) > len(nodes[stack[-1]].path)):
            stack.pop()
        nodes.append(_Node(path, m[2], m[3], int(m[4]), m[5], stack[-1] if stack else None))
        stack.append(len(nodes) - 1)
    return nodes


def _name(rest: str) -> str:
    """The name in what a tree line says after a node's location (its type, then the name, then flags)."""
    return next((word for word in rest.split() if word[0] not in "@[("), "a function")
