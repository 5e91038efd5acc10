"""``drc-v1``: the synthetic group so far (510 multi-constraint tasks); sky130 and syntax groups are merged in."""
from chipgym.tasks.drc.suite.synthetic_v1 import synthetic_v1_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (synthetic_v1_drafts,), min_hidden=10)
