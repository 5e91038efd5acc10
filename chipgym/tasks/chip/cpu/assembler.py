"""Two-pass assembler and disassembler driven by the encodings in ``isa.xml``.

Syntax: one instruction per line, operands in the order of the format's ``syntax`` attribute,
``label:`` definitions, ``.word VALUE`` for raw words, ``#`` comments. A pc-relative
immediate may be a label (encoded as a word offset); any immediate may be an integer.

>>> words = assemble('''
... start: ADDI r1, r0, 5
...        BNE  r1, r0, start
...        HALT''')
>>> [disassemble(w) for w in words]
['ADDI r1, r0, 5', 'BNE r1, r0, -1', 'HALT']
"""
from __future__ import annotations

import re

from chipgym.errors import AsmError
from chipgym.tasks.chip.cpu.isa import Isa, load_isa


def _int(token: str) -> int:
    return int(token.replace("_", ""), 0)


def _operand(name: str, token: str, pc: int, labels: dict[str, int], pcrel: bool) -> int:
    if name.startswith("r"):
        if not re.fullmatch(r"r\d+", token):
            raise AsmError(f"expected a register for {name}, got {token!r}")
        return int(token[1:])
    if token in labels:
        return (labels[token] - pc) // 4 if pcrel else labels[token]
    return _int(token)


def _lines(source: str):
    for lineno, raw in enumerate(source.splitlines(), 1):
        line = raw.split("#")[0].strip()
        while (m := re.match(r"([A-Za-z_]\w*):\s*(.*)", line)):
            yield lineno, m.group(1), None
            line = m.group(2)
        if line:
            yield lineno, None, line


def assemble(source: str, isa: Isa | None = None) -> list[int]:
    """Assemble ``source`` into instruction words starting at address 0."""
    isa = isa or load_isa()
    labels, pc = {}, 0
    for lineno, label, line in _lines(source):
        if label:
            if label in labels:
                raise AsmError(f"line {lineno}: duplicate label {label}")
            labels[label] = pc
        else:
            pc += 4
    words: list[int] = []
    for lineno, label, line in _lines(source):
        if label:
            continue
        mnemonic, _, rest = line.partition(" ")
        tokens = [t.strip() for t in rest.split(",") if t.strip()]
        try:
            if mnemonic == ".word":
                if len(tokens) != 1:
                    raise AsmError(".word takes one value")
                words.append(_int(tokens[0]) & 0xFFFFFFFF)
                continue
            insn = isa[mnemonic]
            fmt = insn.format
            if len(tokens) != len(fmt.syntax):
                raise AsmError(f"{mnemonic} takes {', '.join(fmt.syntax) or 'no operands'}")
            ops = {
                n: _operand(n, t, 4 * len(words), labels, fmt.fields[n].pcrel)
                for n, t in zip(fmt.syntax, tokens)
            }
            words.append(insn.encode(**ops))
        except (AsmError, KeyError, ValueError) as e:
            raise AsmError(f"line {lineno}: {line!r}: {e}") from None
    return words


def disassemble(word: int, isa: Isa | None = None) -> str:
    """Render one word, e.g. ``'ADD r1, r2, r3'``; illegal opcodes render as ``.word``."""
    insn, ops = (isa or load_isa()).decode(word)
    if insn is None:
        return f".word 0x{word:08x}"
    args = [f"r{ops[n]}" if n.startswith("r") else str(ops[n]) for n in insn.format.syntax]
    return " ".join([insn.mnemonic, ", ".join(args)]).strip()
