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

from chipgym.tasks.drc.suite.checks import nm
from chipgym.tasks.drc.suite.draws import free
from chipgym.tasks.drc.suite.layouts import Scene, rect
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


def butting_edges_exempt(rule: Rule) -> Rule:
    """An enclosure rule whose gold deck leaves out the inner shape's edges that butt another layer, as the rule
    table says ("except for butting edge": a diff's edge on a tap, where the implant changes), with scenes that
    tell the two apart (issue 27 §2): butting and flush (passes), butting and short elsewhere (fails), flush one
    step away from the other layer (fails). Apply it before :func:`covered_enclosures`."""
    e = rule.enclosure
    if e is None or e.butting is None or e.drawn is None:
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "butting")
    w, h, other, m = f.size(600, grid=10), f.size(400, grid=10), f.size(300, grid=10), v + f.size(100)
    inner, butted = rect(e.drawn, 0, 0, w, h), rect(e.butting, w, 0, w + other, h)
    scenes = (Scene(f"{rule.category}_butt_flush", inner + butted + rect(e.outer, -m, -m, w, h + m)),
              Scene(f"{rule.category}_butt_short", inner + butted + rect(e.outer, -m, -m, w, h + v - 1)),
              Scene(f"{rule.category}_butt_apart", inner + rect(e.butting, w + 10, 0, w + 10 + other, h)
                    + rect(e.outer, -m, -m, w, h + m)))
    return _revised(rule, f"{e.outer}.enclosing({e.inner}, ",
                    f"{e.outer}.edges.enclosing(({e.inner}).edges.not({e.butting}.edges), ", e.butting, scenes,
                    f" Edges of a {e.inner_words} that butt {e.butting} are exempt.")


def isolated_outer(rule: Rule) -> Rule:
    """An enclosure rule the table states for an isolated outer shape only (``licon.7``: a licon in a tap that
    butts no diff), whose published deck checked every one (issue 27 §2: on real cells, every tap it flagged
    butts a diff). Adds the scene that tells them apart: the failing margins in a tap that butts a diff (passes)."""
    e = rule.enclosure
    if e is None or e.isolated_from is None or e.drawn is None:
        return rule
    v, f = nm(rule.thresholds[rule.category]), free(rule.category, "isolated")
    size, big, short = f.size(170, grid=10), v + f.size(200), v + f.offsets(v)[0][0]
    outer = rect(e.outer, -short, -short, size + big, size + big) + rect(e.drawn, 0, 0, size, size)
    butted = rect(e.isolated_from, size + big, -short, size + big + f.size(300), size + big)
    scenes = (Scene(f"{rule.category}_iso_butted", outer + butted),
              Scene(f"{rule.category}_iso_alone", outer))
    return _revised(rule, f"{rule.category}_e = {e.outer}.enclosing(",
                    f"{rule.category}_e = {e.outer}.not_interacting({e.isolated_from}).enclosing(", e.isolated_from,
                    scenes, f" Only a {e.outer} that butts no {e.isolated_from} (an isolated {e.outer}) is checked.")


def _revised(rule: Rule, opening: str, rewritten: str, layer: str, scenes: tuple[Scene, ...], said: str) -> Rule:
    """``rule`` with its deck's ``opening`` rewritten, ``layer`` read, ``scenes`` added and ``said`` in its text; a
    deck that does not open so was not made by the generator the revision fixes."""
    if not rule.deck.startswith(opening):
        raise ValueError(f"{rule.category}: this revision needs a deck that starts {opening!r}")
    return replace(rule, deck=rewritten + rule.deck[len(opening):], text=rule.text + said,
                   layers=tuple(dict.fromkeys(rule.layers + (layer,))), scenes=rule.scenes + scenes)
