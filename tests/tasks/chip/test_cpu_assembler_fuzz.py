"""The assembler reads what an agent writes (``simulate``'s assembly text, ``chipgym chip sim``): fed random lines
of mnemonics, registers, numbers, labels and punctuation, it gives words or its one error, AsmError, naming the
line, never another exception (issue 40 §3: ``.word`` with no value raised IndexError out of ``env.step``)."""
from __future__ import annotations

import random

import pytest

from chipgym.errors import AsmError
from chipgym.tasks.chip.cpu.assembler import assemble
from chipgym.tasks.chip.cpu.isa import load_isa

CASES = 3000


def lines(seed: int) -> list[str]:
    rng = random.Random(seed)
    isa = load_isa()
    mnemonics = list(isa.instructions) + [".word", ".WORD", "label:", "x:", ".byte", ""]
    operands = ["r0", "r1", "r15", "r16", "r99", "r-1", "rx", "0", "-1", "0x7fffffff", "0xffffffffffff", "1_000",
                "9" * 5000, "start", "x", "nowhere", "", " ", ",", ",,", "#", ":", "1e3", "0b101", "0o17", "-0x8000"]
    out = []
    for _ in range(CASES):
        text = []
        for _ in range(rng.randint(1, 4)):
            head = rng.choice(mnemonics)
            count = rng.randint(0, 4)
            text.append(f"{head} " + rng.choice([", ", ",", " "]).join(rng.choice(operands) for _ in range(count)))
        out.append("\n".join(text))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_random_assembly_is_words_or_an_asm_error(seed):
    for source in lines(seed):
        try:
            words = assemble(source)
        except AsmError as error:
            assert str(error).startswith("line ") or "label" in str(error), (source, error)
            continue
        assert all(isinstance(w, int) and 0 <= w < 1 << 32 for w in words), source


def test_a_word_without_a_value_is_an_asm_error():
    with pytest.raises(AsmError, match="line 1: '.word': .word takes one value"):
        assemble(".word")
