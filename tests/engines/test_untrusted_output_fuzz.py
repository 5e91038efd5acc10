"""Every parser of what a sandboxed tool, harness, worker or timing model writes, fed random and adversarial text
(issue 28 §4): each gives a result of its schema or its one documented error, never another exception.

The parsers of the harnesses' lines are fuzzed through a real process: a "simulator" that reads the harness's
nonce from its input, as a Verilated binary does, and answers with the fuzzed lines under it.
"""
from __future__ import annotations

import random
import shlex
import string
from pathlib import Path

from chipgym.engines import opensta, qflow, yosys
from chipgym.engines.process import untrusted_json
from chipgym.engines.python import read_predictions
from chipgym.engines.pyverilator import reply_problem
from chipgym.errors import FlowUnavailable, TimingModelError

CASES = 3000
TOKENS = ['{', '}', '[', ']', ',', ':', '"', '"cycle"', '"events"', '"changes"', '"done"', '"signals"', '"error"',
          '"retire_cycles"', '"cycles"', '"retired"', '"stalls"', '"prediction"', "null", "true", "false", "NaN",
          "Infinity", "-Infinity", "1e999", "-0", "0", "7", "-1", "1.5", "18446744073709551616", "9" * 30,
          "\\u0000", "\\ud800", " ", "\n", "\t", "chipgym-slack", "Error:", "Warning: There are 3", "slack",
          "Path Type: max", "  x/CLK", "inf", "-inf", "nan", "1e308", "0x1f", "é", "\udcff", "\x00"]
"""pieces of the protocols and of the numbers that broke them"""


def texts(seed: int, count: int = CASES) -> list[str]:
    """Random texts: protocol pieces, random characters, and mutations of valid answers."""
    rng = random.Random(seed)
    valid = ['[{"retire_cycles": [3, 5], "cycles": 7, "retired": 2, "stalls": 5}]', '[{"prediction": {"a": [1]}}]',
             '{"cycle": 3, "done": null, "events": [["R", 1, 2]], "changes": {"pc": [[0, 4]]}}',
             '{"ready": true, "signals": [["pc", 32]]}', "chipgym-slack 12.5\nStartpoint: a\n"]
    out = []
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:
            out.append("".join(rng.choice(TOKENS) for _ in range(rng.randrange(1, 40))))
        elif kind == 1:
            out.append("".join(rng.choice(string.printable) for _ in range(rng.randrange(1, 200))))
        elif kind == 2:
            text = list(rng.choice(valid))
            for _ in range(rng.randrange(1, 6)):
                text.insert(rng.randrange(len(text) + 1), rng.choice(TOKENS))
            out.append("".join(text))
        else:
            depth = rng.choice((10, 1000, 100_000))
            out.append(rng.choice("[{") * depth + rng.choice(("", "]" * depth, '"a": 1')))
    return out


def plain(value) -> bool:
    """Only what untrusted_json may give: bounded integers, text, booleans, null, lists and objects of them."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v) for v in value)
    return value is None or isinstance(value, (str, bool)) or (type(value) is int and abs(value) < 1 << 64)


def test_untrusted_json_gives_plain_values_or_a_value_error():
    for text in texts(1):
        try:
            value = untrusted_json(text)
        except ValueError:
            continue
        assert plain(value), text


def test_timing_model_answers_are_the_protocol_or_a_timing_model_error():
    for text in texts(2):
        try:
            answers = read_predictions(text, 1)
        except TimingModelError:
            continue
        [answer] = answers
        assert set(answer) in ({"error"}, {"prediction"}), text
        if "error" in answer:
            assert isinstance(answer["error"], str) and len(answer["error"]) <= 2000
        else:
            assert plain(answer["prediction"]), text


def test_worker_replies_are_checked_without_raising():
    for text in texts(3):
        try:
            reply = untrusted_json(text)
        except ValueError:
            continue
        problem = reply_problem(reply)
        assert problem is None or isinstance(problem, str)
        if problem is None and "cycle" in reply:
            assert type(reply["cycle"]) is int and reply["cycle"] >= 0


def test_opensta_logs_give_a_report_or_flow_unavailable():
    for text in texts(4) + [f"chipgym-slack {t}\n" for t in ("inf", "-inf", "nan", "1e999", "12..5", "x", "")]:
        try:
            report = opensta.read_report(text, text)
        except FlowUnavailable:
            continue
        assert isinstance(report.slack_ps, float) and report.slack_ps == report.slack_ps  # a number, not NaN
        assert all(isinstance(items, list) for _, items in report.setup_warnings)


def test_qflow_files_give_numbers_or_a_value_error(tmp_path):
    stages = tmp_path / "stages"
    for text in texts(5, 1000) + ["place 1.5 2.5\ncells 99999999999999999999\nroute 1.2.3 4\n"]:
        stages.write_text(text, errors="surrogateescape")
        assert all(isinstance(v, float) for v in qflow._stage_seconds(stages).values())
        assert qflow._cells(stages) is None or qflow._cells(stages) >= 0
        slack = qflow.worst_slack("Path Type: max\n" + text + " slack")
        assert slack is None or isinstance(slack, float)
        try:
            qflow._areas(text)
        except ValueError:
            pass


def test_yosys_and_abc_logs_give_their_reading_or_none():
    # the texts mix in the lines each reader looks for, with names a design chooses (wires, assert cells)
    lines = ["Output 0 of miter \"m\" was asserted in frame 3.", "Output 99 of miter x was asserted in frame 1e999",
             "No output asserted in 20 frames", "Networks are equivalent", "SATISFIABLE", "UNSATISFIABLE",
             "Warning: Wire top.\\w [3] is used but has no driver.", "found logic loop in module t:",
             "multiple conflicting drivers for top.\\x"]
    rng = random.Random(6)
    for text in texts(6) + ["\n".join(rng.choices(lines, k=rng.randrange(1, 6))) for _ in range(500)]:
        problems = yosys.read_bmc(text, ["$assert$formal.sv:2$7", "$assert$formal.sv:99$8"], ["", "assert(a);"], 20)
        assert problems is None or (isinstance(problems, list) and all(isinstance(p, str) for p in problems))
        assert yosys.read_proof(text, 1.0).verdict in ("equivalent", "different", "undecided")
        assert all(isinstance(p, str) and p for p in yosys.fatal_problems(text))


# -- the harnesses' lines, through a real process ------------------------------------------------------------
def fake_simulator(path: Path, lines: list[str]) -> Path:
    """A "simulator" that reads the harness's nonce from its input, as a Verilated binary does, and writes
    ``lines`` under it."""
    path.parent.mkdir(exist_ok=True)
    body = "".join(f"printf '%s %s\\n' \"$nonce\" {shlex.quote(line)}\n" for line in lines)
    path.write_text(f"#!/bin/sh\nread nonce rest\n{body}")
    path.chmod(0o755)
    return path


def harness_lines(rng: random.Random, tags: tuple[str, ...]) -> list[str]:
    words = [*tags, *tags, "0", "1", "7", "99", "-5", "ff", "zz", "1" * 40, "0x10", "1e999", "nan", "\u00e9", "%s"]
    return [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 14))) for _ in range(rng.randrange(1, 30))]


def test_cpu_harness_lines_are_a_run_or_its_error(tmp_path):
    from chipgym.tasks.chip.cpu.arch import load_arch
    from chipgym.tasks.chip.cpu.program import Program
    from chipgym.tasks.chip.cpu.testbench import simulate

    arch, rng = load_arch(), random.Random(6)
    for batch in range(40):
        binary = fake_simulator(tmp_path / f"cpu-{batch}" / "sim", harness_lines(rng, ("R", "E", "END", "A", "M")))
        run = simulate(binary, Program("fuzz", (0,)), arch, {"imem": 1, "dmem": 1}, 100)
        assert run.error is None or isinstance(run.error, str)


def test_noc_harness_lines_are_a_run_or_its_error(tmp_path):
    # before issue 28: a delivery to endpoint 99 raised KeyError out of the check
    from chipgym.tasks.chip.noc.arch import load_arch
    from chipgym.tasks.chip.noc.testbench import divergence, simulate
    from chipgym.tasks.chip.noc.traffic import Packet, Trace

    arch, rng = load_arch(), random.Random(7)
    trace = Trace("fuzz", (Packet(0, 3, 0, (0x43,)),))
    for batch in range(40):
        lines = harness_lines(rng, ("D", "E", "END", "A")) + (["D 5 99 43 1"] if batch == 0 else [])
        run = simulate(fake_simulator(tmp_path / f"noc-{batch}" / "sim", lines), trace, arch=arch)
        assert run.error is None or isinstance(run.error, str)
        assert set(run.deliveries) == set(range(arch.endpoints))
        assert divergence(trace, run, arch) is None or isinstance(divergence(trace, run, arch), str)
