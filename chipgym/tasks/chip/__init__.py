"""Chip-design tasks: an agent writes RTL under a fixed contract; checks run it against a reference.

>>> from chipgym.tasks.chip import check_design  # check_design("my_design", task="cpu").passed
"""
from chipgym.tasks.chip.check import check_design
from chipgym.tasks.chip.report import CheckReport

__all__ = ["CheckReport", "check_design"]
