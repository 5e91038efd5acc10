"""``drc-v0``: 331 tasks (99 SKY130, 103 synthetic, 129 syntax), 5,041 hidden layouts. Frozen."""
from chipgym.tasks.drc.suite.sky130 import sky130_drafts
from chipgym.tasks.drc.suite.syntax import syntax_drafts
from chipgym.tasks.drc.suite.synthetic import synthetic_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v0", 20250101, (sky130_drafts, synthetic_drafts, syntax_drafts), frozen=True,
              fingerprint="9f614427cb26")
