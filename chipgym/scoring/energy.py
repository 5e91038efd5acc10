"""Energy of a gate-level run from its toggle counts and the liberty's power data.

E = sum over nets of toggles x (internal energy of the driving cell's output at the net's load
    + internal energy of every input pin the net drives + 1/2 C V^2)
  + leakage power of every cell x T

The nets are all of them, the clock port's and every other net of the clock tree included: the harness samples
them after each clock edge, so the clock net toggles twice per cycle and charges every clock pin on it twice.
Model and limits: toggles are counted with zero delay, so glitches are not counted (real cell delays add about
a third more toggles on a CPU like ours); internal energy is read from the liberty tables at the profile's
nominal input slew and the net's pin load; wire capacitance is not modelled (no placement), nor is a
synthesized clock tree (the clock net's load is the sum of its pins). Each cell's ``when``-conditioned power
groups are averaged.

>>> from chipgym.scoring.liberty import load_library
>>> lib = load_library(["/usr/share/qflow/tech/osu018/osu018_stdcells.lib"])
>>> module = {"ports": {"a": {"direction": "input", "bits": [3]}, "y": {"direction": "output", "bits": [4]}},
...           "cells": {"inv": {"type": "INVX1", "connections": {"A": [3], "Y": [4]}}}}
>>> model = energy_model(module, nets=(3, 4), library=lib, input_slew_s=100e-12, output_load_f=10e-15)
>>> joules = model.energy(toggles=[1000, 1000], seconds=1e-5)
>>> 1e-12 < joules < 1e-10
True
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from chipgym.scoring.liberty import EnergyTable, Library


@dataclass(frozen=True)
class EnergyModel:
    per_toggle: np.ndarray
    """J per toggle of each net of the gate-level run, in its ``chipgym_nets`` order"""
    leakage_w: float

    def energy(self, toggles: Sequence[int], seconds: float) -> float:
        """Joules of a run with ``toggles`` per net lasting ``seconds``."""
        counts = np.asarray(toggles[: len(self.per_toggle)], dtype=float)
        return float(counts @ self.per_toggle) + self.leakage_w * seconds


def energy_model(module: dict, nets: Sequence[int], library: Library, input_slew_s: float,
                 output_load_f: float) -> EnergyModel:
    """The energy of one toggle of each of ``nets`` (yosys bit ids) in a mapped ``module``."""
    load = defaultdict(float)  # F on each net
    sink_energy = defaultdict(float)  # J of internal energy of the input pins a net drives
    drivers: dict[int, tuple[list[EnergyTable], str]] = {}
    leakage = 0.0
    for cell in module["cells"].values():
        lib_cell = library.cells[cell["type"]]
        leakage += lib_cell.leakage_w
        for pin, bits in cell["connections"].items():
            bit = bits[0]
            if not isinstance(bit, int):
                continue
            if pin in lib_cell.inputs:
                load[bit] += lib_cell.inputs[pin]
                sink_energy[bit] += _mean(lib_cell.input_energy.get(pin, []), input_slew_s, 0.0)
            elif pin in lib_cell.outputs:
                drivers[bit] = (lib_cell.output_energy.get(pin, []), pin)
    for port in module["ports"].values():
        if port["direction"] == "output":
            for bit in port["bits"]:
                if isinstance(bit, int):
                    load[bit] += output_load_f
    half_cv2 = 0.5 * library.voltage**2
    per_toggle = np.array([
        half_cv2 * load[bit] + sink_energy[bit] + _mean(drivers.get(bit, ([], ""))[0], input_slew_s, load[bit])
        for bit in nets
    ])
    return EnergyModel(per_toggle, leakage)


def _mean(tables: list[EnergyTable], slew: float, load: float) -> float:
    return sum(t.at(slew, load) for t in tables) / len(tables) if tables else 0.0
