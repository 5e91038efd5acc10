"""SKY130 periphery rules for drc-v1: every rule of the public SkyWater rule tables that KLayout 0.28.5 can check.

Values, rule numbers and GDS layer/datatype numbers are the published ones (SkyWater PDK
documentation, "Periphery Rules" and "GDS layers"); implant layers (nsdm/psdm), area-id
exemptions (areaid.ce, areaid.sc, areaid.mt, areaid.ed, UHVI) and derived layers (gate = poly AND
diff, p+ diff = diff AND psdm, poly licon = licon1 AND poly, ...) are drawn and checked.  Each rule
is a task of its own, then seeded combinations of 2-4 rules of one module make up the rest.

The capm (MiM capacitor) values are those of SkyWater's table as published in the skywater-pdk repository
(``docs/rules/periphery/p036-capm_dotdash.csv``, capm.1 1 um ... capm.11 0.5 um); the rendered rule pages of some
releases list them as N/A.

Simplifications: a rule flagged P (periphery only) is exempt inside areaid.ce where the table
below says so; "poly resistor" / "prec_resistor" is poly under the poly-resistor id (66/13), except in rpm.3,
rpm.4, rpm.5 and rpm.9, whose texts name the id layer itself (polyres) and whose decks measure it; "li resistor"
is li1 under 67/13.

Left out, with the reason:

* connectivity or nets (nwell.5b, nwell.7's same-net variant, hvnwell.8/10/11, licon.16 source_diff,
  m2.3c floating metal): the DSL deck here has no netlist;
* cell-name exemptions and flows (difftap.2a, li.1a, li.3a, m1.4a, licon.11c/d, via2.1b-f, *.irdrop.*,
  copper-only CU rules such as m1.11-14, m3.7, m4.7): not visible in a layout;
* N/A values in the public table (pwbm.1-4, dnwell.3a-d, nwell.5a, m3.3a/b, m3.5, m3.5a, m4.4,
  hvdifftap.26);
* density and window rules (m*.pd.*, m*.13/14): need a tiling deck far beyond a small scene;
* huge-metal rules (m1.3a/b, m2.3a/b, m3.3c/d, m4.5a/b): need a "huge metal" derivation (width
  > 3 um ... plus the attached features) that a few-um scene cannot exercise faithfully;
* device-identification rules (poly.X.1, difftap.13, dnwell.6 RF FETs, lvtn.3b S/D direction,
  licon.10 and lvtn.10 Var_channel, rpm.1b-1k resistor bins, npc.5 slotted licons, licon.2b-d
  slotted licons, nwell.2b/npc.3/n/psd.3/hvi.2b manual merge, difftap.12 NC, licon.12 NC, li.2 NC);
* edge-topology rules (difftap.6/7 abutting edges, n/psd.6 butting-edge enclosure, licon.5b, poly.10
  inner corners of diff, capm.7 "rectangular or L-shaped", hvdifftap.15b/16/25, hvntm.3-7):
  expressible only with long chains of edge booleans whose corner cases a handful of scenes
  cannot pin down.

>>> drafts = sky130_periphery_drafts(__import__("random").Random(0))
>>> len(drafts) >= 320, drafts[0].id, drafts[0].title
(True, 'sky130-0000', 'dnwell.2')
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Callable

from chipgym.tasks.drc.suite import periphery as p
from chipgym.tasks.drc.suite.periphery import Subject, plain
from chipgym.tasks.drc.suite.rule import Rule, TaskDraft

LAYERS: dict[str, tuple[int, int]] = {
    "dnwell": (64, 18), "nwell": (64, 20), "diff": (65, 20), "tap": (65, 44), "poly": (66, 20),
    "licon1": (66, 44), "li1": (67, 20), "mcon": (67, 44), "met1": (68, 20), "via": (68, 44), "met2": (69, 20),
    "via2": (69, 44), "met3": (70, 20), "via3": (70, 44), "met4": (71, 20), "via4": (71, 44), "met5": (72, 20),
    "nsdm": (93, 44), "psdm": (94, 20), "npc": (95, 20), "capm": (89, 44), "hvi": (75, 20), "hvtp": (78, 44),
    "hvtr": (18, 20), "lvtn": (125, 44), "tunm": (80, 20), "ncm": (92, 44), "rpm": (86, 20), "hvntm": (125, 20),
    "uhvi": (74, 22), "pnp": (82, 44), "polyres": (66, 13), "diffres": (65, 13), "lires": (67, 13),
    "areaid_ce": (81, 2), "areaid_sc": (81, 4), "areaid_mt": (81, 10), "areaid_ed": (81, 19),
    "areaid_st": (81, 53),
}

CE, SC, MT, UHVI = "areaid_ce", "areaid_sc", "areaid_mt", "uhvi"
GATE = Subject("poly", copies=("diff",), words="gate (poly AND diff)")
PFET = Subject("poly", copies=("diff",), under=("nwell",), words="pfet (poly AND diff in nwell)")
NFET = Subject("poly", copies=("diff",), under=("nsdm",), words="nfet (poly AND diff AND nsdm)")
PDIFF = Subject("diff", under=("psdm",), words="p+ diff (diff AND psdm)")
NDIFF = Subject("diff", under=("nsdm",), words="n+ diff (diff AND nsdm)")
PTAP = Subject("tap", under=("psdm",), words="p+ tap (tap AND psdm)")
NTAP = Subject("tap", under=("nsdm",), words="n+ tap (tap AND nsdm)")
POLY_LICON = Subject("licon1", under=("poly",), words="poly licon (licon1 AND poly)")
DIFF_LICON = Subject("licon1", under=("diff",), words="licon on diff (licon1 AND diff)")
POLYRES = Subject("poly", under=("polyres",), words="poly resistor (poly AND polyres)")


def _z(layer: str, zone: str, mode: str = "not_inside", **kw: object) -> Subject:
    return Subject(layer, zone=zone, mode=mode, **kw)  # type: ignore[arg-type]


def _gate(zone: str, mode: str = "not_inside", under: tuple[str, ...] = (), words: str = "gate") -> Subject:
    return Subject("poly", drawn=("diff",), under=under, zone=zone, mode=mode, words=words)


Make = Callable[[random.Random, str], Rule]
R = random.Random

# (module, rule name, constructor): values from the SKY130 periphery rule tables.
TABLE: list[tuple[str, str, Make]] = [
    ("dnwell", "dnwell.2", lambda r, n: p.width(r, n, plain("dnwell"), 3.0)),
    ("dnwell", "dnwell.3", lambda r, n: p.space(r, n, _z("dnwell", UHVI), 6.3)),
    ("dnwell", "dnwell.4", lambda r, n: p.no_overlap(r, n, plain("dnwell"), "pnp")),
    ("dnwell", "dnwell.5", lambda r, n: p.straddle(r, n, PDIFF, "dnwell")),
    ("dnwell", "dnwell.7", lambda r, n: p.straddle(r, n, plain("dnwell"), "areaid_st")),
    ("nwell", "nwell.1", lambda r, n: p.width(r, n, plain("nwell"), 0.84)),
    ("nwell", "nwell.2a", lambda r, n: p.space(r, n, plain("nwell"), 1.27)),
    ("nwell", "nwell.4", lambda r, n: p.contain(r, n, plain("nwell"), "licon1", ("tap",),
                                                "metal-contacted tap (licon1 on tap)")),
    ("nwell", "nwell.5", lambda r, n: p.enclosure(r, n, _z("dnwell", UHVI), "nwell", 0.4, 3.5,
                                                                 straddles=True)),
    ("nwell", "nwell.6", lambda r, n: p.hole_enclosure(r, n, plain("dnwell"), "nwell", 1.03)),
    ("nwell", "nwell.7", lambda r, n: p.separation(r, n, plain("nwell"), "dnwell", 4.5)),
    ("hvtp", "hvtp.1", lambda r, n: p.width(r, n, plain("hvtp"), 0.38)),
    ("hvtp", "hvtp.2", lambda r, n: p.space(r, n, plain("hvtp"), 0.38)),
    ("hvtp", "hvtp.3", lambda r, n: p.enclosure(r, n, PFET, "hvtp", 0.18, 0.42)),
    ("hvtp", "hvtp.4", lambda r, n: p.separation(r, n, PFET, "hvtp", 0.18)),
    ("hvtp", "hvtp.5", lambda r, n: p.area(r, n, plain("hvtp"), 0.265, 0.38)),
    ("hvtp", "hvtp.6", lambda r, n: p.hole(r, n, plain("hvtp"), 0.265)),
    ("hvtr", "hvtr.1", lambda r, n: p.width(r, n, plain("hvtr"), 0.38)),
    ("hvtr", "hvtr.2", lambda r, n: p.separation(r, n, plain("hvtp"), "hvtr", 0.38)),
    ("lvtn", "lvtn.1a", lambda r, n: p.width(r, n, plain("lvtn"), 0.38)),
    ("lvtn", "lvtn.2", lambda r, n: p.space(r, n, plain("lvtn"), 0.38)),
    ("lvtn", "lvtn.3a", lambda r, n: p.separation(r, n, Subject("poly", copies=("diff",), zone=UHVI,
                                                                  words="gate (poly AND diff)"), "lvtn", 0.18)),
    ("lvtn", "lvtn.4b", lambda r, n: p.enclosure(r, n, Subject("poly", copies=("diff",), zone=UHVI,
                                                                 words="gate (poly AND diff)"), "lvtn", 0.18, 0.42,
                                                   straddles=True)),
    ("lvtn", "lvtn.9", lambda r, n: p.sep_no_overlap(r, n, plain("lvtn"), "hvtp", 0.38)),
    ("lvtn", "lvtn.10", lambda r, n: p.enclosure(r, n, plain("lvtn"), "nwell", 0.38, 0.5, straddles=True)),
    ("lvtn", "lvtn.12", lambda r, n: p.separation(r, n, plain("lvtn"), "nwell", 0.38, "nwell.inside(areaid_ce)",
                                                  "nwell inside areaid.ce", b_zone=CE)),
    ("lvtn", "lvtn.13", lambda r, n: p.area(r, n, plain("lvtn"), 0.265, 0.38)),
    ("lvtn", "lvtn.14", lambda r, n: p.hole(r, n, plain("lvtn"), 0.265)),
    ("ncm", "ncm.1", lambda r, n: p.width(r, n, plain("ncm"), 0.38)),
    ("ncm", "ncm.2a", lambda r, n: p.space(r, n, plain("ncm"), 0.38)),
    ("ncm", "ncm.3", lambda r, n: p.enclosure(r, n, PDIFF, "ncm", 0.18, 0.3)),
    ("ncm", "ncm.6", lambda r, n: p.sep_no_overlap(r, n, NFET, "ncm", 0.2)),
    ("ncm", "ncm.7", lambda r, n: p.area(r, n, plain("ncm"), 0.265, 0.38)),
    ("difftap", "difftap.1 (diff)", lambda r, n: p.width(r, n, _z("diff", CE), 0.15)),
    ("difftap", "difftap.1 (tap)", lambda r, n: p.width(r, n, _z("tap", CE), 0.15)),
    ("difftap", "difftap.2", lambda r, n: p.gate_length(r, n, _gate(SC), "diff", 0.42, (
        "Minimum channel width (diff AND poly) except for FETs inside areaid.sc: {v} {u}.",
        "Min channel width of a gate: {v} {u} (the length of the gate edges along poly)."))),
    ("difftap", "difftap.2b", lambda r, n: p.gate_length(r, n, _gate(SC, "inside"), "diff", 0.36, (
        "Minimum channel width (diff AND poly) for FETs inside areaid.sc: {v} {u}.",
        "Channel width of standard-cell FETs must be at least {v} {u}."))),
    ("difftap", "difftap.3 (diff)", lambda r, n: p.space(r, n, plain("diff"), 0.27)),
    ("difftap", "difftap.3 (tap)", lambda r, n: p.space(r, n, plain("tap"), 0.27)),
    ("difftap", "difftap.3 (diff to tap)", lambda r, n: p.separation(r, n, plain("diff"), "tap", 0.27,
                                                                      "tap.not_interacting(diff)",
                                                                      "non-abutting tap")),
    ("difftap", "difftap.4", lambda r, n: p.tap_bound(r, n, plain("tap"), "diff", 1, 0.29)),
    ("difftap", "difftap.5", lambda r, n: p.tap_bound(r, n, plain("tap"), "diff", 2, 0.4)),
    ("difftap", "difftap.8", lambda r, n: p.enclosure(r, n, Subject("diff", under=("psdm",), zone=UHVI,
                                                                      words="p+ diff"), "nwell", 0.18)),
    ("difftap", "difftap.9", lambda r, n: p.separation(r, n, Subject("diff", under=("nsdm",), zone=UHVI,
                                                                       words="n+ diff"), "nwell", 0.34)),
    ("difftap", "difftap.10", lambda r, n: p.enclosure(r, n, Subject("tap", under=("nsdm",), zone=UHVI,
                                                                       words="n+ tap"), "nwell", 0.18)),
    ("difftap", "difftap.11", lambda r, n: p.separation(r, n, Subject("tap", under=("psdm",), zone=UHVI,
                                                                        words="p+ tap"), "nwell", 0.13)),
    ("tunm", "tunm.1", lambda r, n: p.width(r, n, plain("tunm"), 0.41)),
    ("tunm", "tunm.2", lambda r, n: p.space(r, n, plain("tunm"), 0.5)),
    ("tunm", "tunm.3", lambda r, n: p.enclosure(r, n, GATE, "tunm", 0.095, 0.42)),
    ("tunm", "tunm.4", lambda r, n: p.separation(r, n, plain("tunm"), "poly", 0.095, "poly.and(diff).outside(tunm)",
                                                 "(poly and diff) outside tunm", b_under=("diff",))),
    ("tunm", "tunm.5", lambda r, n: p.straddle(r, n, GATE, "tunm")),
    ("tunm", "tunm.6a", lambda r, n: p.inside(r, n, plain("tunm"), "dnwell")),
    ("tunm", "tunm.7", lambda r, n: p.area(r, n, plain("tunm"), 0.672, 0.41)),
    ("tunm", "tunm.8", lambda r, n: p.inside(r, n, plain("tunm"), CE)),
    ("poly", "poly.1a", lambda r, n: p.width(r, n, plain("poly"), 0.15)),
    ("poly", "poly.1b", lambda r, n: p.gate_length(r, n, _gate("lvtn", "inside", ("psdm",), "pfet in lvtn"),
                                                   "poly", 0.35, (
        "Min channel length (poly width) for pfet overlapping lvtn: {v} {u}.",
        "{a} (poly AND diff AND psdm, inside lvtn) must have a channel length of at least {v} {u}."))),
    ("poly", "poly.2", lambda r, n: p.space(r, n, plain("poly"), 0.21)),
    ("poly", "poly.3", lambda r, n: p.width(r, n, POLYRES, 0.33)),
    ("poly", "poly.4", lambda r, n: p.separation(r, n, Subject("poly", zone="diff", mode="outside",
                                                                 words="poly on field"), "diff", 0.075,
                                                 metric="projection")),
    ("poly", "poly.5", lambda r, n: p.separation(r, n, Subject("poly", zone="tap", mode="outside",
                                                                 words="poly on field"), "tap", 0.055)),
    ("poly", "poly.6", lambda r, n: p.gate_to_tap(r, n, "poly", "diff", "tap", 0.3)),
    ("poly", "poly.7", lambda r, n: p.extension(r, n, "diff", "poly", 0.25)),
    ("poly", "poly.8", lambda r, n: p.extension(r, n, "poly", "diff", 0.13)),
    ("poly", "poly.9", lambda r, n: p.sep_no_overlap(r, n, POLYRES, "diff", 0.48)),
    ("poly", "poly.11", lambda r, n: p.bent_gate(r, n, "poly", "diff")),
    ("poly", "poly.12", lambda r, n: p.poly_on_tap(r, n, "poly", "tap", "nwell", "hvi")),
    ("poly", "poly.15", lambda r, n: p.no_overlap(r, n, plain("poly"), "diffres")),
    ("rpm", "rpm.1a", lambda r, n: p.width(r, n, plain("rpm"), 1.27)),
    ("rpm", "rpm.2", lambda r, n: p.space(r, n, plain("rpm"), 0.84)),
    ("rpm", "rpm.3", lambda r, n: p.encloses(r, n, plain("rpm"), "polyres", 0.2, 0.4)),
    ("rpm", "rpm.4", lambda r, n: p.encloses(r, n, plain("psdm"), "polyres", 0.11, 0.4)),
    ("rpm", "rpm.5", lambda r, n: p.encloses(r, n, plain("npc"), "polyres", 0.095, 0.4)),
    ("rpm", "rpm.6", lambda r, n: p.sep_no_overlap(r, n, plain("rpm"), "nsdm", 0.2)),
    ("rpm", "rpm.7", lambda r, n: p.separation(r, n, plain("rpm"), "poly", 0.2, "poly.outside(rpm)",
                                               "poly outside rpm")),
    ("rpm", "rpm.8", lambda r, n: p.straddle(r, n, plain("poly"), "rpm")),
    ("rpm", "rpm.9", lambda r, n: p.sep_no_overlap(r, n, plain("polyres"), "hvntm", 0.185)),
    ("npc", "npc.1", lambda r, n: p.width(r, n, plain("npc"), 0.27)),
    ("npc", "npc.2", lambda r, n: p.space(r, n, plain("npc"), 0.27)),
    ("npc", "npc.4", lambda r, n: p.sep_no_overlap(r, n, GATE, "npc", 0.09)),
    ("implant", "nsd.1", lambda r, n: p.width(r, n, _z("nsdm", CE), 0.38)),
    ("implant", "psd.1", lambda r, n: p.width(r, n, _z("psdm", CE), 0.38)),
    ("implant", "nsd.2", lambda r, n: p.space(r, n, _z("nsdm", CE), 0.38)),
    ("implant", "psd.2", lambda r, n: p.space(r, n, _z("psdm", CE), 0.38)),
    ("implant", "nsd.5a", lambda r, n: p.enclosure(r, n, plain("diff"), "nsdm", 0.125, 0.3, butting="tap")),
    ("implant", "psd.5a", lambda r, n: p.enclosure(r, n, plain("diff"), "psdm", 0.125, 0.3, butting="tap")),
    ("implant", "nsd.5b", lambda r, n: p.enclosure(r, n, _z("tap", CE), "nsdm", 0.125, 0.3, butting="diff")),
    ("implant", "psd.5b", lambda r, n: p.enclosure(r, n, _z("tap", CE), "psdm", 0.125, 0.3, butting="diff")),
    ("implant", "nsd.7", lambda r, n: p.separation(r, n, plain("nsdm"), "diff", 0.13, "diff.and(psdm)",
                                                   "p+ diff (diff AND psdm)", b_under=("psdm",), butting="tap")),
    ("implant", "psd.7", lambda r, n: p.separation(r, n, plain("psdm"), "tap", 0.13, "tap.and(nsdm)",
                                                   "n+ tap (tap AND nsdm)", b_under=("nsdm",), butting="diff")),
    ("implant", "n/psd.8", lambda r, n: p.opposite_implants(r, n, ("diff", "tap"), ("nsdm", "psdm"))),
    ("implant", "n/psd.9", lambda r, n: p.implant_cover(r, n, ("diff", "tap"), ("nsdm", "psdm"))),
    ("implant", "nsd.10a", lambda r, n: p.area(r, n, plain("nsdm"), 0.265, 0.38)),
    ("implant", "psd.10b", lambda r, n: p.area(r, n, plain("psdm"), 0.255, 0.38)),
    ("licon", "licon.1", lambda r, n: p.exact(r, n, _z("licon1", "rpm", words="licon1"), 0.17)),
    ("licon", "licon.2", lambda r, n: p.space(r, n, _z("licon1", CE), 0.17)),
    ("licon", "licon.4", lambda r, n: p.must_touch(r, n, plain("licon1"), ("li1",))),
    ("licon", "licon.4 (poly/diff/tap)", lambda r, n: p.must_touch(r, n, plain("licon1"), ("poly", "diff", "tap"),
                                                                   "poly, diff or tap")),
    ("licon", "licon.5a", lambda r, n: p.enclosure(r, n, _z("licon1", CE), "diff", 0.04, 0.17)),
    ("licon", "licon.5c", lambda r, n: p.adjacent(r, n, plain("licon1"), "diff", 0.06)),
    ("licon", "licon.6", lambda r, n: p.straddle(r, n, plain("licon1"), "tap")),
    ("licon", "licon.7", lambda r, n: p.adjacent(r, n, plain("licon1"), "tap", 0.12, isolated_from="diff")),
    ("licon", "licon.8", lambda r, n: p.enclosure(r, n, _z("licon1", CE), "poly", 0.05, 0.17)),
    ("licon", "licon.8a", lambda r, n: p.adjacent(r, n, plain("licon1"), "poly", 0.08)),
    ("licon", "licon.9", lambda r, n: p.sep_no_overlap(r, n, POLY_LICON, "psdm", 0.11)),
    ("licon", "licon.11", lambda r, n: p.separation(r, n, Subject("licon1", under=("diff",), zone=SC,
                                                                    words="licon on diff"), "poly", 0.055,
                                                    "poly.and(diff)", "poly on diff")),
    ("licon", "licon.11a", lambda r, n: p.separation(r, n, Subject("licon1", under=("diff",), zone=SC,
                                                                     mode="inside", words="licon on diff"),
                                                     "poly", 0.05, "poly.and(diff)", "poly on diff")),
    ("licon", "licon.13", lambda r, n: p.sep_no_overlap(r, n, DIFF_LICON, "npc", 0.09)),
    ("licon", "licon.14", lambda r, n: p.separation(r, n, POLY_LICON, "diff", 0.19)),
    ("licon", "licon.15", lambda r, n: p.enclosure(r, n, POLY_LICON, "npc", 0.1, 0.17)),
    ("licon", "licon.16", lambda r, n: p.contain(r, n, plain("tap"), "licon1")),
    ("licon", "licon.17", lambda r, n: p.overlaps_both(r, n, plain("licon1"), "poly", ("diff", "tap"), "diff or tap")),
    ("licon", "licon.18", lambda r, n: p.inside(r, n, POLY_LICON, "npc")),
    ("li", "li.1", lambda r, n: p.width(r, n, _z("li1", CE), 0.17)),
    ("li", "li.3", lambda r, n: p.space(r, n, _z("li1", CE), 0.17)),
    ("li", "li.5", lambda r, n: p.adjacent(r, n, plain("licon1"), "li1", 0.08)),
    ("li", "li.6", lambda r, n: p.area(r, n, _z("li1", CE), 0.0561, 0.17)),
    ("li", "li.7", lambda r, n: p.width(r, n, Subject("li1", under=("lires",), zone="areaid_ed",
                                                       words="li resistor (li1 AND lires)"), 0.29)),
    ("ct", "ct.1", lambda r, n: p.exact(r, n, plain("mcon"), 0.17)),
    ("ct", "ct.2", lambda r, n: p.space(r, n, plain("mcon"), 0.19)),
    ("ct", "ct.4", lambda r, n: p.inside(r, n, _z("mcon", CE), "li1")),
    ("m1", "m1.1", lambda r, n: p.width(r, n, plain("met1"), 0.14)),
    ("m1", "m1.2", lambda r, n: p.space(r, n, plain("met1"), 0.14)),
    ("m1", "m1.4", lambda r, n: p.enclosure(r, n, _z("mcon", CE), "met1", 0.03, 0.17, whole=True)),
    ("m1", "m1.5", lambda r, n: p.adjacent(r, n, _z("mcon", CE), "met1", 0.06)),
    ("m1", "m1.6", lambda r, n: p.area(r, n, plain("met1"), 0.083, 0.14)),
    ("m1", "m1.7", lambda r, n: p.hole(r, n, plain("met1"), 0.14)),
    ("via", "via.1a", lambda r, n: p.exact(r, n, _z("via", MT), 0.15)),
    ("via", "via.1b", lambda r, n: p.sizes(r, n, _z("via", MT, "inside"), (0.15, 0.23, 0.28))),
    ("via", "via.2", lambda r, n: p.space(r, n, plain("via"), 0.17)),
    ("via", "via.4a", lambda r, n: p.enclosure(r, n, plain("via"), "met1", 0.055, 0.15, whole=True)),
    ("via", "via.5a", lambda r, n: p.adjacent(r, n, plain("via"), "met1", 0.085, 0.15)),
    ("m2", "m2.1", lambda r, n: p.width(r, n, plain("met2"), 0.14)),
    ("m2", "m2.2", lambda r, n: p.space(r, n, plain("met2"), 0.14)),
    ("m2", "m2.4", lambda r, n: p.enclosure(r, n, plain("via"), "met2", 0.055, 0.15, whole=True)),
    ("m2", "m2.5", lambda r, n: p.adjacent(r, n, plain("via"), "met2", 0.085, 0.15)),
    ("m2", "m2.6", lambda r, n: p.area(r, n, plain("met2"), 0.0676, 0.14)),
    ("m2", "m2.7", lambda r, n: p.hole(r, n, plain("met2"), 0.14)),
    ("via2", "via2.1a", lambda r, n: p.exact(r, n, plain("via2"), 0.2)),
    ("via2", "via2.2", lambda r, n: p.space(r, n, plain("via2"), 0.2)),
    ("via2", "via2.4", lambda r, n: p.enclosure(r, n, plain("via2"), "met2", 0.04, whole=True)),
    ("via2", "via2.5", lambda r, n: p.adjacent(r, n, plain("via2"), "met2", 0.085, 0.2)),
    ("m3", "m3.1", lambda r, n: p.width(r, n, plain("met3"), 0.3)),
    ("m3", "m3.2", lambda r, n: p.space(r, n, plain("met3"), 0.3)),
    ("m3", "m3.4", lambda r, n: p.enclosure(r, n, plain("via2"), "met3", 0.065, whole=True)),
    ("m3", "m3.6", lambda r, n: p.area(r, n, plain("met3"), 0.24, 0.3)),
    ("via3", "via3.1", lambda r, n: p.exact(r, n, _z("via3", MT), 0.2)),
    ("via3", "via3.1a", lambda r, n: p.sizes(r, n, _z("via3", MT, "inside"), (0.2, 0.8))),
    ("via3", "via3.2", lambda r, n: p.space(r, n, plain("via3"), 0.2)),
    ("via3", "via3.4", lambda r, n: p.enclosure(r, n, plain("via3"), "met3", 0.06, whole=True)),
    ("via3", "via3.5", lambda r, n: p.adjacent(r, n, plain("via3"), "met3", 0.09, 0.2)),
    ("m4", "m4.1", lambda r, n: p.width(r, n, plain("met4"), 0.3)),
    ("m4", "m4.2", lambda r, n: p.space(r, n, plain("met4"), 0.3)),
    ("m4", "m4.3", lambda r, n: p.enclosure(r, n, plain("via3"), "met4", 0.065, whole=True)),
    ("m4", "m4.4a", lambda r, n: p.area(r, n, plain("met4"), 0.24, 0.3)),
    ("via4", "via4.1", lambda r, n: p.exact(r, n, plain("via4"), 0.8)),
    ("via4", "via4.2", lambda r, n: p.space(r, n, plain("via4"), 0.8)),
    ("via4", "via4.4", lambda r, n: p.enclosure(r, n, plain("via4"), "met4", 0.19, 0.8, whole=True)),
    ("m5", "m5.1", lambda r, n: p.width(r, n, plain("met5"), 1.6)),
    ("m5", "m5.2", lambda r, n: p.space(r, n, plain("met5"), 1.6)),
    ("m5", "m5.3", lambda r, n: p.enclosure(r, n, plain("via4"), "met5", 0.31, 0.8, whole=True)),
    ("m5", "m5.4", lambda r, n: p.area_except_square(r, n, plain("met5"), 4.0, 1.6, 1.42)),
    ("capm", "capm.1", lambda r, n: p.width(r, n, plain("capm"), 1.0)),
    ("capm", "capm.2a", lambda r, n: p.space(r, n, plain("capm"), 0.84)),
    ("capm", "capm.2b", lambda r, n: p.space(r, n, Subject("met3", under=("capm",),
                                                           words="capacitor bottom plate (met3 under capm)"), 1.2)),
    ("capm", "capm.3", lambda r, n: p.enclosure(r, n, plain("capm"), "met3", 0.14, 1.0)),
    ("capm", "capm.4", lambda r, n: p.encloses(r, n, plain("capm"), "via3", 0.14)),
    ("capm", "capm.5", lambda r, n: p.separation(r, n, plain("capm"), "via3", 0.14, "via3.outside(capm)",
                                                 "via3 outside capm")),
    ("capm", "capm.6", lambda r, n: p.aspect(r, n, plain("capm"), 20.0, 1.0)),
    ("capm", "capm.8", lambda r, n: p.sep_no_overlap(r, n, plain("via2"), "capm", 0.14)),
    ("capm", "capm.11", lambda r, n: p.separation(r, n, plain("capm"), "met3", 0.5, "met3.not_interacting(capm)",
                                                  "met3 not overlapping capm")),
    ("hvi", "hvi.1", lambda r, n: p.width(r, n, plain("hvi"), 0.6)),
    ("hvi", "hvi.2a", lambda r, n: p.space(r, n, plain("hvi"), 0.7)),
    ("hvi", "hvi.4", lambda r, n: p.no_overlap(r, n, plain("hvi"), "tunm")),
    ("hvi", "hvi.5", lambda r, n: p.separation(r, n, plain("hvi"), "nwell", 0.7)),
    ("hvi", "hvdifftap.14", lambda r, n: p.width(r, n, _z("diff", "hvi", "inside", words="diff inside hvi"), 0.29)),
    ("hvi", "hvdifftap.15a", lambda r, n: p.space(r, n, _z("diff", "hvi", "inside", words="hdiff"), 0.3)),
    ("hvi", "hvdifftap.21", lambda r, n: p.straddle(r, n, plain("diff"), "hvi")),
    ("hvi", "hvdifftap.22", lambda r, n: p.enclosure(r, n, _z("diff", UHVI, words="hdiff"), "hvi", 0.18, 0.3)),
    ("hvi", "hvdifftap.23", lambda r, n: p.separation(r, n, _z("diff", "hvi", "outside", words="diff outside hvi"),
                                                      "hvi", 0.18)),
    ("hvi", "hvpoly.13", lambda r, n: p.gate_length(r, n, _gate("hvi", "inside", words="gate inside hvi"),
                                                    "poly", 0.5, (
        "Min width of poly over diff inside Hvi: {v} {u} (channel length).",
        "Channel length of {a} must be at least {v} {u}."))),
    ("hvi", "hvpoly.14", lambda r, n: p.straddle(r, n, GATE, "hvi")),
    ("hvi", "hvntm.1", lambda r, n: p.width(r, n, plain("hvntm"), 0.7)),
    ("hvi", "hvntm.2", lambda r, n: p.space(r, n, plain("hvntm"), 0.7)),
    ("hvi", "hvntm.9", lambda r, n: p.no_overlap(r, n, plain("hvntm"), CE)),
]

MIN_TASKS = 320


def sky130_periphery_drafts(rng: random.Random, min_tasks: int = MIN_TASKS) -> list[TaskDraft]:
    """One task per rule, then seeded 2-4 rule combinations of one module, round-robin over the modules,
    until there are ``min_tasks`` tasks."""
    groups: list[list[tuple[str, str, Make]]] = [[entry] for entry in TABLE]
    modules = [m for m in dict.fromkeys(m for m, _, _ in TABLE) if sum(e[0] == m for e in TABLE) >= 3]
    seen: set[tuple[str, ...]] = set()
    while len(groups) < min_tasks:
        for module in modules:
            members = [e for e in TABLE if e[0] == module]
            pick = sorted(rng.sample(members, min(len(members), rng.choice((2, 2, 3, 4)))), key=members.index)
            key = tuple(name for _, name, _ in pick)
            if key not in seen and len(groups) < min_tasks:
                seen.add(key)
                groups.append(rng.sample(pick, len(pick)))  # the manual's order varies between tasks
    drafts = []
    for i, entries in enumerate(groups):
        rules = tuple(make(rng, name) for _, name, make in entries)
        if len(rules) > 1:  # a combination drops the just-passing probes (t + 1 dbu) to keep the suite fast
            rules = tuple(replace(r, scenes=tuple(s for s in r.scenes if not s.name.endswith("_gt"))) for r in rules)
        title = " + ".join(name for _, name, _ in entries)
        metadata = {"module": entries[0][0], "source": "SKY130 periphery rules (SkyWater PDK rule tables)"}
        drafts.append(TaskDraft(f"sky130-{i:04d}", title, "sky130", "train", LAYERS, rules, metadata))
    return drafts
