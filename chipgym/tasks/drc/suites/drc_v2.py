"""``drc-v2``: drc-v1's groups at its scale under a seed of its own, with public examples and training layouts drawn
from each task's generators independently of its evaluation scenes (issue 39), and fixes to classes of gold decks
(issue 27, :mod:`chipgym.tasks.drc.suite.gold`). Frozen: its content is pinned in ``drc-v2.sha256``."""
from chipgym.tasks.drc.suite.coverage import coverage_drafts
from chipgym.tasks.drc.suite.gold import (
    abutting_edges_exempt,
    butting_edges_exempt,
    covered_enclosures,
    fet_keyed_exemption,
    field_part_to_tap,
    isolated_outer,
    overlap_not_spacing,
    overlap_not_touch,
    precision_resistor_exemption,
    short_sides_meet,
    touching_outside_checked,
    whole_bottom_plates,
)
from chipgym.tasks.drc.suite.sky130_periphery import sky130_periphery_drafts
from chipgym.tasks.drc.suite.synthetic_v1 import synthetic_v1_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v2", 20261205, (sky130_periphery_drafts, synthetic_v1_drafts, coverage_drafts),
              min_hidden=10, pools="drawn", frozen=True, fingerprint="8aa7ed11c81b",
              revisions=(butting_edges_exempt, isolated_outer, abutting_edges_exempt, covered_enclosures,
                         field_part_to_tap, touching_outside_checked, overlap_not_touch, whole_bottom_plates,
                         fet_keyed_exemption, short_sides_meet, overlap_not_spacing, precision_resistor_exemption))
