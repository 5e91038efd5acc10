"""The netlist that is scored is proven to be the design synthesis started from (issue 28 §1), with the real
Yosys and ABC: every fixture of every task is proven; a netlist changed after synthesis is shown different and
refused by the score.

The fixtures' proofs are cached by their netlists' keys (a cold run of this file takes about 2 minutes here,
most of it the pipelined core's 48 s); the tampering tests prove a netlist of their own.
"""
from __future__ import annotations

import dataclasses
import re
import shutil

import pytest

from chipgym.scoring.chip import score_design
from chipgym.scoring.equivalence import check_equivalence, stored_as_next_state
from chipgym.scoring.profile import load_profile
from chipgym.scoring.synthesis import Netlist, synthesize
from chipgym.tasks.chip.design import load_design
from chipgym.tasks.chip.registry import load_task

OSU018 = load_profile("osu018")
FIXTURES = [(task, name) for task in ("cpu", "noc") for name in sorted(load_task(task).fixtures)]


def _netlist(task: str, fixture: str) -> Netlist:
    chip_task = load_task(task)
    return synthesize(load_design(chip_task.fixtures[fixture]), OSU018, chip_task.simulation_ports)


def tamper(netlist_v, port_bit: str = r"in_ready[0]") -> None:
    """Invert ``port_bit`` of the netlist in ``netlist_v``: its driver now drives a new wire, through an inverter."""
    text = netlist_v.read_text()
    driven = f".Y({port_bit})"
    assert text.count(driven) == 1, driven
    text = text.replace(driven, ".Y(chipgym_tampered)")
    last = text.rindex("endmodule")
    netlist_v.write_text(text[:last] + f"  wire chipgym_tampered;\n  INVX1 chipgym_tamper (.A(chipgym_tampered), "
                         f".Y({port_bit}));\n" + text[last:])


@pytest.mark.parametrize("task, fixture", FIXTURES)
def test_every_fixture_is_proven_equivalent(task, fixture):
    result = check_equivalence(_netlist(task, fixture), OSU018)
    assert result.proven and result.detail == "proven equivalent (ABC dprove)", result


def test_a_netlist_changed_after_synthesis_is_shown_different(tmp_path):
    netlist = _netlist("noc", "crossbar")
    shutil.copytree(netlist.folder, tmp_path / "tampered")
    tamper(tmp_path / "tampered" / "netlist.v")
    result = check_equivalence(dataclasses.replace(netlist, folder=tmp_path / "tampered"), OSU018)
    assert not result.proven
    assert re.fullmatch(r"the synthesized netlist is not the design synthesis started from: an output differs"
                        r" in cycle \d+ \(ABC dprove\)", result.detail), result.detail


def test_the_score_refuses_a_netlist_not_proven(tmp_path, monkeypatch):
    # a synthesis that wrote another netlist than the one it was handed: here, its cached result changed
    monkeypatch.setenv("CHIPGYM_CACHE", str(tmp_path / "cache"))
    tamper(_netlist("noc", "crossbar").verilog)
    score = score_design(load_task("noc").fixtures["crossbar"], task="noc", profile="osu018")
    assert score.status == "failed" and score.reward == 0.0
    [(check, detail)] = score.failures
    assert check == "equivalence" and "is not the design synthesis started from" in detail
    assert score.A_um2 is None and not score.workloads  # nothing measured on it is reported


def test_a_flop_that_stores_its_complement_is_read_as_storing_its_state():
    # ASAP7's ASYNC_DFFHx1: the stored variable, clear and preset (and their both-active values) change places
    asap7 = """ff (IQN,IQNN) {
      clear : "!SETN";
      clear_preset_var1 : L;
      clear_preset_var2 : H;
      clocked_on : "CLK";
      next_state : "!D";
      preset : "!RESETN";
    }"""
    assert stored_as_next_state(asap7) == """ff (IQNN,IQN) {
      preset : "!SETN";
      clear_preset_var2 : L;
      clear_preset_var1 : H;
      clocked_on : "CLK";
      next_state : "D";
      clear : "!RESETN";
    }"""
    assert stored_as_next_state('ff (IQ,IQN) { next_state : "!(D&E)"; }') == 'ff (IQN,IQ) { next_state : "(D&E)"; }'
    assert stored_as_next_state('ff (IQ,IQN) { next_state : "!D&E"; }') == 'ff (IQN,IQ) { next_state : "!(!D&E)"; }'
    one_line = 'ff (IQ,IQN) { clear : "R"; next_state : "!D"; preset : "S"; }'
    assert stored_as_next_state(one_line) == 'ff (IQN,IQ) { preset : "R"; next_state : "D"; clear : "S"; }'
    osu018 = 'ff (DS0000,P0002) { next_state : "D" ; clocked_on : "CLK" ; }'
    assert stored_as_next_state(osu018) == osu018
