"""Workloads: random hazard programs, named kernels, held-out kernels and the grading secret."""
import re
import subprocess
from pathlib import Path

import pytest

from chipgym.errors import ConfigurationError
from chipgym.tasks.chip.cpu.assembler import disassemble
from chipgym.tasks.chip.cpu.heldout import heldout_programs
from chipgym.tasks.chip.cpu.reference import execute
from chipgym.tasks.chip.cpu.workloads import KERNELS, kernel, random_program
from chipgym.tasks.grading_seed import SEED_ENV

REPO = Path(__file__).resolve().parents[3]


def test_random_programs_are_deterministic_and_terminate():
    assert random_program(5) == random_program(5)
    runs = [execute(random_program(s)) for s in range(100)]
    faults = sum(r.final.fault != 0 for r in runs)
    assert all(r.final.halted or r.final.fault for r in runs)
    assert 8 <= faults <= 35


def test_random_programs_contain_hazards():
    text = [[disassemble(w) for w in random_program(s).imem] for s in range(20)]
    flat = [line for prog in text for line in prog]
    assert any(line.startswith("ADD") and " r0," in line.split(",")[0] + "," for line in flat)  # writes to r0
    assert any("-131072" in line or "131071" in line for line in flat)  # boundary immediates
    load_use = 0
    for prog in text:
        for a, b in zip(prog, prog[1:]):
            if a.startswith("LW ") and a.split()[1].rstrip(",") in b.split(",", 1)[-1]:
                load_use += 1
    assert load_use >= 10
    after_halt = [prog[prog.index("HALT") + 1:] for prog in text if "HALT" in prog]
    assert any(tail for tail in after_halt)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernels_retire_10k_to_16k(name):
    run = execute(kernel(name))
    assert run.final.halted and 10_000 <= len(run.retirements) <= 16_000


def test_kernel_results():
    fib = execute(kernel("fibonacci", n=10))
    assert fib.final.dmem[0] == 55
    words = kernel("bubble_sort", n=20)
    values = [execute(words).final.dmem.get(256 + 4 * i, 0) for i in range(20)]
    signed = [v - (1 << 32) if v >> 31 else v for v in values]
    assert signed == sorted(signed)


def test_heldout_needs_a_seed(monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)
    with pytest.raises(ConfigurationError, match=SEED_ENV):
        heldout_programs()
    monkeypatch.setenv(SEED_ENV, "77")
    progs = heldout_programs(count=3)
    assert [p.imem for p in progs] == [p.imem for p in heldout_programs(seed=77, count=3)]
    assert progs[0].imem != heldout_programs(seed=78, count=3)[0].imem
    for p in progs[:-1]:
        assert 10_000 <= len(execute(p).retirements) <= 16_000


def test_no_grading_seed_is_committed():
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    pattern = re.compile(SEED_ENV + r"\s*[=:]\s*['\"]?\d")
    leaks = [f for f in files if (REPO / f).is_file() and pattern.search((REPO / f).read_text(errors="ignore"))]
    assert not leaks, f"a grading seed is committed in {leaks}"
