"""The proof that the netlist that is scored is the design that synthesis started from.

Yosys's word-level passes (``proc``, ``fsm``, ``alumacc``, ``share``, ``memory`` and the ``opt`` passes, where
it settles its own don't-cares) turn the checked text into the design ``synth`` hands to ABC; synthesis
keeps a copy (:attr:`~chipgym.scoring.synthesis.Netlist.handed_to_abc`). Everything after it is proven here:
the two ABC mappings, flop mapping, the library's cells (read with their liberty functions), the stripped
ports and the netlist as written to ``netlist.v`` and read back, which is what timing and gate-level energy
read. Both sides go into one miter (:func:`chipgym.engines.yosys.equivalence_miter`), whose output is 1
in a cycle in which any output of the two differs, every flop starting at 0 as in the simulators (a library
flop that stores its complement is read as storing its state, :func:`stored_as_next_state`); ABC's
``dprove`` shows it can never be 1 (signal correspondence matches the flops, then induction), for every
input sequence and every number of cycles. A netlist shown different, or not proven, is refused.

Synthesis starts from the canonical design the checks ran (:mod:`chipgym.tasks.chip.canonical`), already
lowered to gates by Yosys, so the proof ties the netlist to what was checked; the gate-level runs still
compare the netlist with the checked design's runs. Verdicts are cached by the netlist's own key.

>>> from chipgym.scoring.profile import load_profile
>>> from chipgym.scoring.synthesis import synthesize
>>> from chipgym.tasks.chip.design import load_design
>>> from chipgym.tasks.chip.registry import load_task
>>> task, osu018 = load_task("noc"), load_profile("osu018")
>>> netlist = synthesize(load_design(task.fixtures["crossbar"]), osu018, task.simulation_ports)  # doctest: +SKIP
>>> check_equivalence(netlist, osu018).proven                                                   # doctest: +SKIP
True
"""
from __future__ import annotations

import hashlib
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines.yosys import EQUIVALENCE_TIMEOUT, PROOF_SCRIPT, equivalence_miter, prove_miter
from chipgym.errors import SynthesisError
from chipgym.scoring.profile import Profile
from chipgym.scoring.synthesis import Netlist, synthesis_liberty

EQUIVALENCE_VERSION = "3"


class NotEquivalent(SynthesisError):
    """The synthesized netlist was shown to differ from the design synthesis started from, or not proven."""


@dataclass(frozen=True)
class Equivalence:
    proven: bool
    detail: str
    seconds: float
    """wall time of the miter and the proof"""


def check_equivalence(netlist: Netlist, profile: Profile) -> Equivalence:
    """Whether ``netlist`` (synthesized for ``profile``) is proven to be the design synthesis handed to ABC."""
    key = hashlib.sha256(f"{netlist.folder.name}\0{EQUIVALENCE_VERSION}\0{PROOF_SCRIPT}".encode()).hexdigest()
    if (cached := default_cache().get_json("equivalence", f"{key}.json")) is not None:
        return Equivalence(**cached)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="chipgym-equivalence-") as tmp:
        miter = Path(tmp) / "miter.aig"
        equivalence_miter(netlist.handed_to_abc, netlist.verilog, equivalence_liberty(profile), netlist.top, miter)
        proof = prove_miter(miter)
    seconds = round(time.monotonic() - start, 3)
    if proof.verdict == "equivalent":
        result = Equivalence(True, "proven equivalent (ABC dprove)", seconds)
    elif proof.verdict == "different":
        when = f" in cycle {proof.frame}" if proof.frame is not None else ""
        result = Equivalence(False, f"the synthesized netlist is not the design synthesis started from: an "
                                    f"output differs{when} (ABC dprove)", seconds)
    else:
        result = Equivalence(False, f"the synthesized netlist could not be proven equivalent to the design "
                                    f"synthesis started from: ABC dprove stopped undecided after {seconds:.0f} s "
                                    f"(its limit is {EQUIVALENCE_TIMEOUT} s)", seconds)
    if proof.verdict != "undecided":
        default_cache().put_json("equivalence", f"{key}.json", asdict(result))
    return result


_FLOP = re.compile(r"\bff\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{([^{}]*)\}")
_NEXT_STATE = re.compile(r'(\bnext_state\s*:\s*)"!([^"]*)"')
_EXCHANGED = {"clear": "preset", "preset": "clear", "clear_preset_var1": "clear_preset_var2",
              "clear_preset_var2": "clear_preset_var1"}
_EXCHANGED_KEY = re.compile(r"((?:^|[{;])\s*)(clear_preset_var1|clear_preset_var2|clear|preset)(\s*:)", re.M)


def stored_as_next_state(liberty: str) -> str:
    """``liberty`` with every flop that stores the complement of its next state (ASAP7's ``ff (IQN,IQNN)`` with
    ``next_state : "!D"``) rewritten to store the state itself: its two variables, its clear and its preset
    exchanged. Each cell is the same at every pin; only what its flop holds at 0 changes, to what the
    design's flop holds at 0 (otherwise a flop no reset sets would start at 1 in the netlist and 0 in the
    design, and induction could not pair the two)."""
    def rewrite(flop: re.Match) -> str:
        body = flop[3]
        if not (state := _NEXT_STATE.search(body)):
            return flop[0]
        expression = state[2] if _operand(state[2]) else f"!(!{state[2]})"
        body = body[:state.start()] + f'{state[1]}"{expression}"' + body[state.end():]
        body = _EXCHANGED_KEY.sub(lambda m: m[1] + _EXCHANGED[m[2]] + m[3], body)
        return f"ff ({flop[2]},{flop[1]}) {{{body}}}"
    return _FLOP.sub(rewrite, liberty)


def _operand(expression: str) -> bool:
    """Whether ``expression`` is one name or one parenthesised group, so that ``!`` applies to all of it."""
    if re.fullmatch(r"\w+", expression):
        return True
    depth = 0
    for i, c in enumerate(expression):
        depth += (c == "(") - (c == ")")
        if depth == 0 and i < len(expression) - 1:
            return False
    return expression.startswith("(") and depth == 0


def equivalence_liberty(profile: Profile) -> Path:
    """The synthesis liberty of ``profile`` as :func:`stored_as_next_state` rewrites it (cached)."""
    liberty = synthesis_liberty(profile)
    key = f"{liberty.parent.name}-{EQUIVALENCE_VERSION}"
    if (folder := default_cache().get_folder("equivalence-liberty", key)) is not None:
        return folder / "cells.lib"
    text = stored_as_next_state(liberty.read_text()).encode()
    return default_cache().put_folder("equivalence-liberty", key, {"cells.lib": text}) / "cells.lib"


def require_equivalence(netlist: Netlist, profile: Profile) -> None:
    """Raise NotEquivalent unless ``netlist`` is proven to be the design synthesis started from."""
    if not (result := check_equivalence(netlist, profile)).proven:
        raise NotEquivalent(result.detail)
