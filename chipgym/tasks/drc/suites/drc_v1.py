"""``drc-v1``, synthetic group: 510 multi-constraint tasks (2-5 rules each, 53 kinds), 12,567 hidden layouts
(11 to 59 per task, mean 24.6).  The sky130 and syntax groups are merged in on main."""
from chipgym.tasks.drc.suite.synthetic_v1 import synthetic_v1_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (synthetic_v1_drafts,), min_hidden=10)
