"""``drc-v1`` (this branch: the SKY130 group only): 320 SKY130 periphery tasks (184 single rules, 136
combinations of 2-4 rules of one module), 8,035 hidden layouts (10 to 68 per task, 25.1 on average)."""
from chipgym.tasks.drc.suite.sky130_periphery import sky130_periphery_drafts
from chipgym.tasks.drc.suites import Suite

SUITE = Suite("drc-v1", 20261201, (sky130_periphery_drafts,), min_hidden=10)
