"""SKY130 periphery rules (public SkyWater PDK rule table) as tasks.

Values and GDS layer/datatype numbers are the published ones; implant layers
(nsdm/psdm) and area-id exemptions are omitted, so "diff" stands for any diffusion.
Each rule is a task of its own, plus seeded combinations of 2-3 rules of one module.

>>> rules = sky130_rules(__import__("random").Random(0))
>>> len(rules) >= 60, rules[0].category
(True, 'difftap_1_diff')
"""
from __future__ import annotations

import random
from typing import Callable

from chipgym.tasks.drc.suite import checks
from chipgym.tasks.drc.suite.rule import Rule, TaskDraft

LAYERS: dict[str, tuple[int, int]] = {
    "nwell": (64, 20), "diff": (65, 20), "tap": (65, 44), "poly": (66, 20), "licon": (66, 44),
    "li1": (67, 20), "mcon": (67, 44), "met1": (68, 20), "via": (68, 44), "met2": (69, 20),
    "via2": (69, 44), "met3": (70, 20), "via3": (70, 44), "met4": (71, 20), "via4": (71, 44), "met5": (72, 20),
}

Make = Callable[[random.Random, str], Rule]

# (module, rule name, constructor) -- values from the SKY130 periphery rule table.
TABLE: list[tuple[str, str, Make]] = [
    ("difftap", "difftap.1 diff", lambda r, c: checks.width_rule(r, c, "diff", 0.15)),
    ("difftap", "difftap.1 tap", lambda r, c: checks.width_rule(r, c, "tap", 0.15)),
    ("difftap", "difftap.3 diff", lambda r, c: checks.space_rule(r, c, "diff", 0.27)),
    ("difftap", "difftap.3 tap", lambda r, c: checks.space_rule(r, c, "tap", 0.27)),
    ("difftap", "difftap.8", lambda r, c: checks.enclosure_rule(r, c, "diff", "nwell", 0.18)),
    ("difftap", "difftap.9",
     lambda r, c: checks.separation_rule(r, c, "diff", "nwell", 0.34, "outside", "nwell", "diffusion outside N-well")),
    ("difftap", "difftap.10", lambda r, c: checks.enclosure_rule(r, c, "tap", "nwell", 0.18)),
    ("difftap", "difftap.11",
     lambda r, c: checks.separation_rule(r, c, "tap", "nwell", 0.13, "outside", "nwell", "tap outside N-well")),
    ("nwell", "nwell.1", lambda r, c: checks.width_rule(r, c, "nwell", 0.84)),
    ("nwell", "nwell.2a", lambda r, c: checks.space_rule(r, c, "nwell", 1.27)),
    ("poly", "poly.1a", lambda r, c: checks.width_rule(r, c, "poly", 0.15)),
    ("poly", "poly.2", lambda r, c: checks.space_rule(r, c, "poly", 0.21)),
    ("poly", "poly.4",
     lambda r, c: checks.separation_rule(r, c, "poly", "diff", 0.075, "outside", "diff", "poly on field",
                                         "projection")),
    ("poly", "poly.5",
     lambda r, c: checks.separation_rule(r, c, "poly", "tap", 0.055, "outside", "tap", "poly on field")),
    ("poly", "poly.7", lambda r, c: checks.extension_rule(r, c, "diff", "poly", 0.25)),
    ("poly", "poly.8", lambda r, c: checks.extension_rule(r, c, "poly", "diff", 0.13)),
    ("licon", "licon.1", lambda r, c: checks.exact_rule(r, c, "licon", 0.17)),
    ("licon", "licon.2", lambda r, c: checks.space_rule(r, c, "licon", 0.17)),
    ("licon", "licon.4", lambda r, c: checks.interact_rule(r, c, "licon", "li1")),
    ("licon", "licon.5a", lambda r, c: checks.enclosure_rule(r, c, "licon", "diff", 0.04, 0.17)),
    ("licon", "licon.8", lambda r, c: checks.enclosure_rule(r, c, "licon", "poly", 0.05, 0.17)),
    ("licon", "licon.11",
     lambda r, c: checks.separation_rule(r, c, "licon", "poly", 0.055, "inside", "diff", "licon on diffusion")),
    ("licon", "licon.14",
     lambda r, c: checks.separation_rule(r, c, "licon", "diff", 0.19, "inside", "poly", "poly licon")),
    ("li", "li.1", lambda r, c: checks.width_rule(r, c, "li1", 0.17)),
    ("li", "li.3", lambda r, c: checks.space_rule(r, c, "li1", 0.17)),
    ("li", "li.3 notch", lambda r, c: checks.notch_rule(r, c, "li1", 0.17)),
    ("li", "li.6", lambda r, c: checks.area_rule(r, c, "li1", 0.0561, 0.17)),
    ("ct", "ct.1", lambda r, c: checks.exact_rule(r, c, "mcon", 0.17)),
    ("ct", "ct.2", lambda r, c: checks.space_rule(r, c, "mcon", 0.19)),
    ("ct", "ct.4", lambda r, c: checks.inside_rule(r, c, "mcon", "li1")),
    ("m1", "m1.1", lambda r, c: checks.width_rule(r, c, "met1", 0.14)),
    ("m1", "m1.2", lambda r, c: checks.space_rule(r, c, "met1", 0.14)),
    ("m1", "m1.2 notch", lambda r, c: checks.notch_rule(r, c, "met1", 0.14)),
    ("m1", "m1.4", lambda r, c: checks.enclosure_rule(r, c, "mcon", "met1", 0.03, 0.17, whole=True)),
    ("m1", "m1.4 inside", lambda r, c: checks.inside_rule(r, c, "mcon", "met1")),
    ("m1", "m1.6", lambda r, c: checks.area_rule(r, c, "met1", 0.083, 0.14)),
    ("m1", "m1.7", lambda r, c: checks.hole_rule(r, c, "met1", 0.14)),
    ("via", "via.1a", lambda r, c: checks.exact_rule(r, c, "via", 0.15)),
    ("via", "via.2", lambda r, c: checks.space_rule(r, c, "via", 0.17)),
    ("via", "via.4a", lambda r, c: checks.enclosure_rule(r, c, "via", "met1", 0.055, 0.15, whole=True)),
    ("via", "via.4a inside", lambda r, c: checks.inside_rule(r, c, "via", "met1")),
    ("m2", "m2.1", lambda r, c: checks.width_rule(r, c, "met2", 0.14)),
    ("m2", "m2.2", lambda r, c: checks.space_rule(r, c, "met2", 0.14)),
    ("m2", "m2.2 notch", lambda r, c: checks.notch_rule(r, c, "met2", 0.14)),
    ("m2", "m2.4", lambda r, c: checks.enclosure_rule(r, c, "via", "met2", 0.055, 0.15, whole=True)),
    ("m2", "m2.6", lambda r, c: checks.area_rule(r, c, "met2", 0.0676, 0.14)),
    ("m2", "m2.7", lambda r, c: checks.hole_rule(r, c, "met2", 0.14)),
    ("via2", "via2.1a", lambda r, c: checks.exact_rule(r, c, "via2", 0.2)),
    ("via2", "via2.2", lambda r, c: checks.space_rule(r, c, "via2", 0.2)),
    ("via2", "via2.4", lambda r, c: checks.enclosure_rule(r, c, "via2", "met2", 0.04, whole=True)),
    ("via2", "via2.4 inside", lambda r, c: checks.inside_rule(r, c, "via2", "met2")),
    ("m3", "m3.1", lambda r, c: checks.width_rule(r, c, "met3", 0.3)),
    ("m3", "m3.2", lambda r, c: checks.space_rule(r, c, "met3", 0.3)),
    ("m3", "m3.2 notch", lambda r, c: checks.notch_rule(r, c, "met3", 0.3)),
    ("m3", "m3.4", lambda r, c: checks.enclosure_rule(r, c, "via2", "met3", 0.065, whole=True)),
    ("m3", "m3.6", lambda r, c: checks.area_rule(r, c, "met3", 0.24, 0.3)),
    ("via3", "via3.1", lambda r, c: checks.exact_rule(r, c, "via3", 0.2)),
    ("via3", "via3.2", lambda r, c: checks.space_rule(r, c, "via3", 0.2)),
    ("via3", "via3.4", lambda r, c: checks.enclosure_rule(r, c, "via3", "met3", 0.06, whole=True)),
    ("m4", "m4.1", lambda r, c: checks.width_rule(r, c, "met4", 0.3)),
    ("m4", "m4.2", lambda r, c: checks.space_rule(r, c, "met4", 0.3)),
    ("m4", "m4.3", lambda r, c: checks.enclosure_rule(r, c, "via3", "met4", 0.065, whole=True)),
    ("m4", "m4.4a", lambda r, c: checks.area_rule(r, c, "met4", 0.24, 0.3)),
    ("via4", "via4.1", lambda r, c: checks.exact_rule(r, c, "via4", 0.8)),
    ("via4", "via4.2", lambda r, c: checks.space_rule(r, c, "via4", 0.8)),
    ("via4", "via4.4", lambda r, c: checks.enclosure_rule(r, c, "via4", "met4", 0.19, 0.8, whole=True)),
    ("via4", "via4.4 inside", lambda r, c: checks.inside_rule(r, c, "via4", "met4")),
    ("m5", "m5.1", lambda r, c: checks.width_rule(r, c, "met5", 1.6)),
    ("m5", "m5.2", lambda r, c: checks.space_rule(r, c, "met5", 1.6)),
    ("m5", "m5.3", lambda r, c: checks.enclosure_rule(r, c, "via4", "met5", 0.31, 0.8, whole=True)),
    ("m5", "m5.4", lambda r, c: checks.area_rule(r, c, "met5", 4.0, 1.6)),
]


def category(rule_name: str) -> str:
    """``"difftap.1 diff"`` -> ``"difftap_1_diff"`` (plain characters, safe in lyrdb)."""
    return rule_name.replace(".", "_").replace(" ", "_")


def sky130_rules(rng: random.Random) -> list[Rule]:
    """Every table rule, worded with ``rng``."""
    return [make(rng, category(name)) for _, name, make in TABLE]


def sky130_drafts(rng: random.Random, combos_per_module: int = 2) -> list[TaskDraft]:
    """One task per rule, then ``combos_per_module`` seeded 2-3 rule combinations per module."""
    singles = [(module, name, make) for module, name, make in TABLE]
    groups: list[list[tuple[str, str, Make]]] = [[entry] for entry in singles]
    modules = sorted({m for m, _, _ in TABLE})
    for module in modules:
        members = [e for e in TABLE if e[0] == module]
        if len(members) < 3:
            continue
        for _ in range(combos_per_module):
            groups.append(sorted(rng.sample(members, rng.choice((2, 3))), key=members.index))
    drafts = []
    for i, entries in enumerate(groups):
        rules = tuple(make(rng, category(name)) for _, name, make in entries)
        title = " + ".join(name for _, name, _ in entries)
        metadata = {"module": entries[0][0], "source": "SKY130 periphery rules (simplified: no implant layers)"}
        drafts.append(TaskDraft(f"sky130-{i:04d}", title, "sky130", "train", LAYERS, rules, metadata))
    return drafts
