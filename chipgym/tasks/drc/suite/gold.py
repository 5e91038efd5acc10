"""Gold-deck revisions: fixes to a class of gold decks that a later suite applies to the same generators, so that a
frozen suite (drc-v0, drc-v1) keeps its published answers and the new version (drc-v2) has the right ones.

>>> from chipgym.tasks.drc.suite.rule import Enclosure, Rule
>>> via = Rule("via_4a", "via must be enclosed by met1 by at least 0.055 um.",
...            'met1.enclosing(via, 0.055).output("via_4a", "via_4a: enclosure")', ("via", "met1"), {}, (),
...            Enclosure("via", "met1", "via", "met1", whole=True))
>>> print(covered_enclosures(via).deck)
met1.enclosing(via, 0.055).output("via_4a", "via_4a: enclosure")
(via).not(met1).output("via_4a", "via_4a: via outside met1")
"""
from __future__ import annotations

from dataclasses import replace

from chipgym.tasks.drc.suite.rule import Rule


def covered_enclosures(rule: Rule) -> Rule:
    """An enclosure rule whose gold deck also flags the part of an inner shape outside the outer one (issue 27 §1).

    ``enclosing`` measures only the inner shape's edges that lie inside the outer one, so a via half off its metal
    (or wholly off, for a rule whose inner shape needs the outer one: ``Enclosure.whole``) passed. The rule's text
    says which reading it takes; the second ``.output`` to the same category is one category in the report."""
    e = rule.enclosure
    if e is None:
        return rule
    inner = f"({e.inner})" if e.whole else f"({e.inner}).overlapping({e.outer})"
    what = f"{rule.category}: {e.inner_words} outside {e.outer_words}"
    line = f'{inner}.not({e.outer}).output("{rule.category}", "{what}")'
    said = (f" Every {e.inner_words} must lie inside {e.outer_words}: one wholly or partly outside it is a violation."
            if e.whole else f" A {e.inner_words} partly outside {e.outer_words} is a violation too.")
    return replace(rule, deck=f"{rule.deck}\n{line}", text=rule.text + said)
