"""``drc-v1`` (being assembled from three branches): so far its syntax group, 230 tasks and 3,181 hidden layouts
(at least 10 per task), whose gold decks use 176 KLayout 0.28.5 DSL methods (see ``docs/drc-v1.md``)."""
from chipgym.tasks.drc.suite.coverage import coverage_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (coverage_drafts,), min_hidden=10)
