"""``drc-v1`` (being assembled): so far its syntax-coverage group, 232 tasks."""
from chipgym.tasks.drc.suite.coverage import coverage_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (coverage_drafts,), min_hidden=10)
