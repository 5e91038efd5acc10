"""``drc-v1`` (being assembled): its synthetic group, 510 multi-constraint tasks (12,567 hidden layouts), and its
syntax group, 230 tasks (3,181 hidden layouts) whose gold decks use 176 KLayout 0.28.5 DSL methods
(``docs/drc-v1.md``); at least 10 hidden layouts per task."""
from chipgym.tasks.drc.suite.coverage import coverage_drafts
from chipgym.tasks.drc.suite.synthetic_v1 import synthetic_v1_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (synthetic_v1_drafts, coverage_drafts), min_hidden=10)
