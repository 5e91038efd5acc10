"""Grading secrets against hostile designs (issue 28): no sandbox shows the grading seed or the held-out programs
(§0b), and a held-out failure says only that the held-out set failed and which check (§2).

A spy searches its sandbox's whole view for them: every visible process's environment and command line, and
every readable regular file (outside /proc and /sys; under /usr, whatever changed since the test began). It
runs in each kind of sandbox: a tool's (Yosys, Verilator, OpenSTA and the simulators run in it), a timing
model's (in a graded check, in both its processes) and the pyverilator worker's that ``simulate`` steps a
design in. The spy is the sandbox's most capable tenant: a timing model can do as much, a design's own code
(its ``$c`` escapes, its system tasks) at most as much. Before issue 28, bubblewrap's own process, the pid 1
of every sandbox, kept the grader's environment, and ``/proc/1/environ`` held ``CHIPGYM_GRADING_SEED``.
"""
from __future__ import annotations

import json
import random
import shutil
import time

import pytest

from chipgym.engines.python import PYTHON
from chipgym.engines.pyverilator import Session
from chipgym.engines.tools import run_tool
from chipgym.tasks.chip import check_design
from chipgym.tasks.chip.cpu.heldout import heldout_programs
from chipgym.tasks.chip.cpu.workloads import KERNELS, programs
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.pysim import library
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.grading_seed import SEED_ENV

CPU = load_task("cpu")
FIXTURES = CPU.folder / "fixtures"

SEED = random.Random().randrange(1 << 40, 1 << 41)  # thirteen digits: nothing else in a sandbox spells it
MARKER = "SPY-CAN-SEE-" + "THIS"  # in a file each sandbox is meant to show: a clean search is not a blind one
MODEL = "model/timing_model.py"

SPY = r'''
import json, os

def spy(encoded, since, marker):
    """Where this process's view shows the needles (each XOR 0x5A, so that no file holding this code spells
    one; the first two are the seed's), how many files it read, and whether it found ``marker``."""
    needles = [bytes(b ^ 0x5A for b in n) for n in encoded]
    found, files, seen, secret = set(), 0, False, False

    def search(where, data):
        nonlocal seen, secret
        found.update(f"{where}: {n.decode()}" for n in needles if n in data)
        seen = seen or marker.encode() in data
        secret = secret or any(n in data for n in needles[:2])

    for pid in filter(str.isdigit, os.listdir("/proc")):
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    search(f"/proc/{pid}/{name}", f.read())
            except OSError:
                pass
    for root, dirs, names in os.walk("/"):
        if root == "/":
            dirs[:] = [d for d in dirs if d not in ("proc", "sys")]
        for name in names:
            path = os.path.join(root, name)
            try:
                st = os.stat(path, follow_symlinks=False)
                if not os.path.isfile(path) or os.path.islink(path) or st.st_size > 1 << 28:
                    continue
                if path.startswith("/usr/") and max(st.st_mtime, st.st_ctime) < since:
                    continue
                with open(path, "rb") as f:
                    search(path, f.read())
                files += 1
            except OSError:
                pass
    return {"found": sorted(found), "files": files, "seen": seen, "secret": secret}
'''


def needles(seed: int) -> list[str]:
    """What would give the secret or the held-out programs away: the seed (in decimal and hex), the names of
    the held-out programs, and each one's first instruction words as the harness reads them (hex) and as a
    timing model's input holds them (JSON); none of them spelled by a public program."""
    public = {" ".join(f"{w:x}" for w in p.imem) + " " + json.dumps(list(p.imem)) for p in programs()}
    out = [str(seed), f"{seed:x}", *(f"heldout-{i}-{k}" for i in range(8) for k in [*KERNELS, "random"])]
    for program in heldout_programs(seed):
        words = program.imem[:6]
        out += [" ".join(f"{w:x}" for w in words), json.dumps(list(words))[1:-1]]
    return [n for n in out if not any(n in text for text in public)]


def spy_call(seed: int, since: float) -> str:
    """Python code calling the spy with the needles of ``seed`` encoded."""
    encoded = [[b ^ 0x5A for b in n.encode()] for n in needles(seed)]
    return f"{SPY}\nREPORT = spy({encoded!r}, {since!r}, {MARKER!r})\n"


@pytest.fixture
def graded(monkeypatch):
    """The grader's process as during grading: the secret in its environment."""
    monkeypatch.setenv(SEED_ENV, str(SEED))
    return time.time() - 1


def test_a_tool_sandbox_shows_neither_the_seed_nor_the_heldout_programs(graded, tmp_path):
    shown = tmp_path / "shown"
    shown.mkdir()
    (shown / "readme.txt").write_text(MARKER)
    result = run_tool([PYTHON, "-I", "-c", spy_call(SEED, graded) + "print(json.dumps(REPORT))"],
                      readable=(shown,), timeout=300)
    report = json.loads(result.stdout)
    assert report["seen"] and report["files"] > 0 and report["found"] == [], report


def test_a_timing_model_sees_no_secret_in_either_of_its_processes(graded, tmp_path):
    """The model's process for the public programs reports what it found in its error text (shown for public
    programs); its process for the held-out ones, which must see those programs, fails only if it found the seed
    or could not see its own file."""
    design = shutil.copytree(FIXTURES / "multicycle", tmp_path / "design")
    spying = f'''
# {MARKER}
{spy_call(SEED, graded)}
_honest = predict
def predict(run, latency):
    if not run.program.name.startswith("heldout"):
        raise RuntimeError("SPY " + json.dumps(REPORT))
    return _honest(run, latency) if REPORT["seen"] and not REPORT["secret"] else {{}}
'''
    (design / MODEL).write_text((design / MODEL).read_text() + spying)
    report = check_design(design, workloads=programs(range(2)), formal=False)
    assert {check for check, _ in report.failures} == {"lockstep"}, report.summary()
    assert "held-out" not in report.summary(), report.summary()
    for _, detail in report.failures:
        seen = json.loads(detail.partition("timing model raised RuntimeError: SPY ")[2])
        assert seen["seen"] and seen["files"] > 0 and seen["found"] == [], seen


def test_the_simulate_worker_shows_neither_the_seed_nor_the_heldout_programs(graded, tmp_path):
    bench = tmp_path / "bench.py"
    bench.write_text(f'''# {MARKER}
{spy_call(SEED, graded)}
class Bench:
    def __init__(self, model, job):
        self.events, self.done = [], None

    def cycle(self, n):
        self.events.append(["SPY", json.dumps(REPORT)])
        self.done = "spied"
''')
    with Session(library(load_design(FIXTURES / "multicycle")), bench) as session:
        session.start()
        session.request({"op": "reset", "job": {}}, timeout=300)  # the bench, and the spy with it, runs here
        reply = session.request({"op": "run", "until": 1, "trace_from": 0, "signals": []}, timeout=300)
    [[tag, text]] = reply["events"]
    report = json.loads(text)
    assert report["seen"] and report["files"] > 0 and report["found"] == [], report


# -- §2 a held-out failure says that the held-out set failed, and which check: nothing per program -------------
def model_diverging_on(kind: str) -> str:
    """Lines that make a timing model one cycle late on every held-out program of ``kind`` (a kernel's name, or
    "" for all): the attack that decoded the kinds of all eight held-out programs in three graded submits."""
    return f'''
_honest = predict
def predict(run, latency):
    p = _honest(run, latency)
    if run.program.name.startswith("heldout") and "{kind}" in run.program.name:
        p["cycles"] += 1
    return p
'''


def test_a_timing_model_choosing_which_heldout_programs_fail_learns_one_bit(tmp_path):
    first = heldout_programs(SEED)[0].name.split("-", 2)[2]  # a kind that is among them, and one that is not
    outcomes = {}
    for kind in ("", first, "no-such-kind"):
        design = shutil.copytree(FIXTURES / "multicycle", tmp_path / f"design-{kind or 'all'}")
        (design / MODEL).write_text((design / MODEL).read_text() + model_diverging_on(kind))
        outcomes[kind] = check_design(design, workloads=[], grading_seed=SEED, formal=False).failures
    # before issue 28: "held-out program N" for each N it chose. Now every model that fails on some held-out
    # program gets the same answer, however many and whichever it chose: one bit per graded check
    assert outcomes[""] == outcomes[first] == [("lockstep", "held-out programs")], outcomes
    assert outcomes["no-such-kind"] == []


def test_a_design_failing_every_heldout_program_gets_one_failure(tmp_path):
    design = CPU.mutants["wrong_stall_counter"].materialize(tmp_path / "design")
    report = check_design(design, workloads=[], grading_seed=SEED, formal=False)
    assert report.failures == [("functional", "held-out programs")], report.summary()  # was one per program
