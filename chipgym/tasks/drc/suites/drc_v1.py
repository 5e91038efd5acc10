"""``drc-v1``: 1,060 tasks at Rule2DRC's scale (320 SKY130 periphery, 510 synthetic multi-constraint, 230 syntax
coverage), 24,042 hidden layouts (at least 10 per task), gold decks using 179 KLayout 0.28.5 DSL methods
(``docs/drc-v1.md``). Frozen."""
from chipgym.tasks.drc.suite.coverage import coverage_drafts
from chipgym.tasks.drc.suite.sky130_periphery import sky130_periphery_drafts
from chipgym.tasks.drc.suite.synthetic_v1 import synthetic_v1_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (sky130_periphery_drafts, synthetic_v1_drafts, coverage_drafts),
              min_hidden=10, frozen=True,
              fingerprint="964d7c1c4aa6")
