"""Instruction set loaded from ``isa.xml``: formats, fields and opcodes.

>>> isa = load_isa()
>>> isa["ADD"].opcode, isa["ADD"].format.syntax
(1, ('rd', 'rs1', 'rs2'))
>>> isa.decode(isa["ADDI"].encode(rd=1, rs1=2, imm=-1))[0].mnemonic
'ADDI'
"""
from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ISA_XML = Path(__file__).with_name("isa.xml")


@dataclass(frozen=True)
class Field:
    """A bit field of an instruction word."""

    name: str
    lsb: int
    width: int
    signed: bool = False
    pcrel: bool = False

    def extract(self, word: int) -> int:
        value = (word >> self.lsb) & ((1 << self.width) - 1)
        if self.signed and value >> (self.width - 1):
            value -= 1 << self.width
        return value

    def insert(self, value: int) -> int:
        lo, hi = (-(1 << (self.width - 1)), 1 << (self.width - 1)) if self.signed else (0, 1 << self.width)
        if not lo <= value < hi:
            raise ValueError(f"field {self.name}={value} outside [{lo}, {hi})")
        return (value & ((1 << self.width) - 1)) << self.lsb


@dataclass(frozen=True)
class Format:
    name: str
    syntax: tuple[str, ...]
    fields: dict[str, Field]


@dataclass(frozen=True)
class Instruction:
    mnemonic: str
    opcode: int
    format: Format
    semantics: str
    opcode_field: Field

    def encode(self, **operands: int) -> int:
        """Encode with operands named as in the format, e.g. ``encode(rd=1, rs1=2, imm=3)``."""
        word = self.opcode_field.insert(self.opcode)
        for name in self.format.syntax:
            word |= self.format.fields[name].insert(operands[name])
        return word


@dataclass(frozen=True)
class Isa:
    registers: int
    opcode_field: Field
    instructions: dict[str, Instruction]

    def __getitem__(self, mnemonic: str) -> Instruction:
        return self.instructions[mnemonic.upper()]

    def decode(self, word: int) -> tuple[Instruction | None, dict[str, int]]:
        """Return the instruction (None if the opcode is illegal) and its operand values."""
        opcode = self.opcode_field.extract(word)
        insn = next((i for i in self.instructions.values() if i.opcode == opcode), None)
        if insn is None:
            return None, {}
        return insn, {n: f.extract(word) for n, f in insn.format.fields.items()}


@functools.cache
def load_isa(path: Path = ISA_XML) -> Isa:
    root = ET.parse(path).getroot()
    opcode_field = Field("opcode", int(root.get("opcode_lsb")), int(root.get("opcode_width")))
    formats = {}
    for f in root.iter("format"):
        fields = {
            x.get("name"): Field(
                x.get("name"), int(x.get("lsb")), int(x.get("width")),
                x.get("signed") == "true", x.get("pcrel") == "true",
            )
            for x in f.iter("field")
        }
        syntax = tuple(s.strip() for s in f.get("syntax").split(",") if s.strip())
        formats[f.get("name")] = Format(f.get("name"), syntax, fields)
    instructions = {
        i.get("mnemonic"): Instruction(
            i.get("mnemonic"), int(i.get("opcode"), 0), formats[i.get("format")],
            " ".join(i.findtext("semantics").split()), opcode_field,
        )
        for i in root.iter("instruction")
    }
    return Isa(int(root.get("registers")), opcode_field, instructions)
