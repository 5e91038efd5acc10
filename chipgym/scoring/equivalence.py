"""The proof that the netlist that is scored is the design that synthesis started from.

Yosys's word-level passes (``proc``, ``fsm``, ``alumacc``, ``share``, ``memory`` and the ``opt`` passes, where
it settles its own don't-cares) turn the checked text into the design ``synth`` hands to ABC; synthesis
keeps a copy (:attr:`~chipgym.scoring.synthesis.Netlist.handed_to_abc`). Everything after it is proven here:
the two ABC mappings, flop mapping, the library's cells (read with their liberty functions), the stripped
ports and the netlist as written to ``netlist.v`` and read back, which is what timing and gate-level energy
read. Both sides go into one miter (:func:`chipgym.engines.yosys.equivalence_miter`), whose output is 1
in a cycle in which any output of the two differs, every flop starting at 0 as in the simulators; ABC's
``dprove`` shows it can never be 1 (signal correspondence matches the flops, then induction), for every
input sequence and every number of cycles. A netlist shown different, or not proven in time, is refused.

What the proof cannot see is a difference between Verilator's and Yosys's reading of the one text; that is
why the text may hold no attribute, metacomment, ``x`` or ``z`` (:mod:`chipgym.tasks.chip.constructs`), and
why the gate-level runs still compare the netlist with the checked RTL's runs. Verdicts are cached by the
netlist's own key.

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
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines.yosys import EQUIVALENCE_TIMEOUT, PROOF_SCRIPT, equivalence_miter, prove_miter
from chipgym.errors import SynthesisError
from chipgym.scoring.profile import Profile
from chipgym.scoring.synthesis import Netlist, synthesis_liberty

EQUIVALENCE_VERSION = "1"


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
        equivalence_miter(netlist.handed_to_abc, netlist.verilog, synthesis_liberty(profile), netlist.top, miter)
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
                                    f"synthesis started from within {EQUIVALENCE_TIMEOUT} s (ABC dprove)", seconds)
    if proof.verdict != "undecided":
        default_cache().put_json("equivalence", f"{key}.json", asdict(result))
    return result


def require_equivalence(netlist: Netlist, profile: Profile) -> None:
    """Raise NotEquivalent unless ``netlist`` is proven to be the design synthesis started from."""
    if not (result := check_equivalence(netlist, profile)).proven:
        raise NotEquivalent(result.detail)
