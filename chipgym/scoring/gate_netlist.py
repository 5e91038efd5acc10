"""A mapped netlist as plain functional Verilog that Verilator can build, with every net on one output port.

Verilator cannot compile the libraries' UDP cell models, so each cell becomes the Boolean function its liberty
gives (``assign``) or, for a flip-flop, an ``always`` block from its ``ff`` group. The extra output
``chipgym_nets`` carries every net driven by a cell or an input port (the clock included), in the order of
:attr:`FunctionalNetlist.nets`, so the trusted harness can count toggles.

>>> to_verilog_expr("(!(A B))", {"A": "n1", "B": "n2"})
'~(n1 & n2)'
>>> to_verilog_expr("A^B + C'", {"A": "a", "B": "b", "C": "c"})
'(a ^ b) | ~c'
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from chipgym.errors import UnsupportedCell
from chipgym.scoring.liberty import Library

NETS_PORT = "chipgym_nets"
CLOCK = "clk"


@dataclass(frozen=True)
class FunctionalNetlist:
    verilog: str
    nets: tuple[int, ...]
    """the yosys bit id of each bit of ``chipgym_nets``"""


def functional_netlist(module: dict, top: str, library: Library) -> FunctionalNetlist:
    """``module`` is the top module of a yosys ``write_json`` netlist mapped to ``library``'s cells."""
    lines, nets = [], []
    decls = []
    for name, port in module["ports"].items():
        width = len(port["bits"])
        decls.append(f"{'input' if port['direction'] == 'input' else 'output'} "
                     f"{f'[{width - 1}:0] ' if width > 1 else ''}{name}")
        for i, bit in enumerate(port["bits"]):
            ref = f"{name}[{i}]" if width > 1 else name
            if port["direction"] == "input":
                lines.append(f"assign n{bit} = {ref};")
                nets.append(bit)
            else:
                lines.append(f"assign {ref} = {_net(bit)};")
    for index, (name, cell) in enumerate(sorted(module["cells"].items())):
        lib_cell = library.cells.get(cell["type"])
        if lib_cell is None or lib_cell.latch:
            raise UnsupportedCell(f"cell {name} of type {cell['type']} has no functional model")
        pins = {pin: _net(bits[0]) for pin, bits in cell["connections"].items()}
        state = {}
        if lib_cell.ff:
            q = f"q{index}"
            state = {lib_cell.ff["iq"]: q, lib_cell.ff["iqn"]: f"~{q}"}
            lines += _flop(q, lib_cell.ff, pins)
        for pin, function in lib_cell.outputs.items():
            if pin not in cell["connections"]:
                continue
            bit = cell["connections"][pin][0]
            if not function:
                raise UnsupportedCell(f"cell {name}: output {pin} of {cell['type']} has no function")
            lines.append(f"assign n{bit} = {to_verilog_expr(function, {**pins, **state})};")
            nets.append(bit)
    words = (len(nets) + 31) // 32
    decls.append(f"output [31:0] {NETS_PORT} [0:{words - 1}]")
    wires = [f"wire {', '.join(f'n{b}' for b in nets[i:i + 64])};" for i in range(0, len(nets), 64)]
    # an array of 32-bit words: Verilator builds one wide vector bit by bit, in quadratic time
    slices = []
    for w in range(words):
        chunk = [f"n{b}" for b in reversed(nets[32 * w:32 * w + 32])]
        chunk = ["1'b0"] * (32 - len(chunk)) + chunk
        slices.append(f"assign {NETS_PORT}[{w}] = {{{', '.join(chunk)}}};")
    body = "\n".join([*wires, *lines, *slices])
    text = f"module {top}(\n  " + ",\n  ".join(decls) + "\n);\n" + body + "\nendmodule\n"
    return FunctionalNetlist(text, tuple(nets))


def _net(bit) -> str:
    return f"n{bit}" if isinstance(bit, int) else ("1'b1" if bit == "1" else "1'b0")


def _flop(q: str, ff: dict[str, str], pins: dict[str, str]) -> list[str]:
    lines = [f"reg {q};"]
    events, body = [], f"{q} <= {to_verilog_expr(ff['next_state'], pins)};"
    for key, value in (("clocked_on", None), ("preset", "1'b1"), ("clear", "1'b0")):
        if key not in ff:
            continue
        expr = to_verilog_expr(ff[key], pins)
        plain = re.fullmatch(r"(~?)(n\d+)", expr)  # a pin or its inverse: no derived clock for Verilator
        if plain:
            events.append(f"{'negedge' if plain.group(1) else 'posedge'} {plain.group(2)}")
        else:
            lines.append(f"wire {q}_{key} = {expr};")
            events.append(f"posedge {q}_{key}")
            expr = f"{q}_{key}"
        if value is not None:
            body = f"if ({expr}) {q} <= {value}; else {body}"
    lines.append(f"always @({' or '.join(events)}) {body}")
    return lines


_TOKENS = re.compile(r"\s*(?:([A-Za-z_][\w\[\].]*)|([01])|(.))")


def to_verilog_expr(function: str, names: dict[str, str]) -> str:
    """A liberty Boolean function (``!`` ``'`` ``*`` ``&`` juxtaposition ``+`` ``|`` ``^``) as Verilog."""
    tokens = [m for m in _TOKENS.finditer(function) if m.group(0).strip()]
    pos = 0

    def peek() -> str:
        return tokens[pos].group(0).strip() if pos < len(tokens) else ""

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1].group(0).strip()

    def binary(sub, ops: tuple[str, ...], verilog: str, juxtapose: bool = False) -> str:
        terms = [sub()]
        while peek() in ops or (juxtapose and peek()[:1] and (peek()[0].isalnum() or peek()[0] in "(!_")):
            if peek() in ops:
                take()
            terms.append(sub())
        return terms[0] if len(terms) == 1 else f" {verilog} ".join(_group(t) for t in terms)

    def unary() -> str:
        if peek() == "!":
            take()
            return "~" + _group(unary())
        if peek() == "(":
            take()
            inner = or_expr()
            if take() != ")":
                raise ValueError(f"unbalanced parentheses in {function!r}")
            out = inner
        else:
            token = take()
            if token in ("0", "1"):
                out = f"1'b{token}"
            elif token in names:
                out = names[token]
            else:
                raise ValueError(f"{function!r}: {token!r} is not a pin of the cell")
        while peek() == "'":
            take()
            out = "~" + _group(out)
        return out

    and_expr = lambda: binary(unary, ("*", "&"), "&", juxtapose=True)  # noqa: E731
    xor_expr = lambda: binary(and_expr, ("^",), "^")  # noqa: E731
    or_expr = lambda: binary(xor_expr, ("+", "|"), "|")  # noqa: E731
    result = or_expr()
    if pos != len(tokens):
        raise ValueError(f"cannot parse liberty function {function!r}")
    return result


def _group(expr: str) -> str:
    simple = re.fullmatch(r"~?[\w\[\]']+", expr) or (expr.startswith("~(") and _balanced(expr[1:]))
    return expr if simple or _balanced(expr) else f"({expr})"


def _balanced(expr: str) -> bool:
    """Whether ``expr`` is one parenthesised group."""
    if not expr.startswith("("):
        return False
    depth = 0
    for i, c in enumerate(expr):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i == len(expr) - 1
    return False
