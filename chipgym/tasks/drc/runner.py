"""The deck-running callables the task code is written against, served by the engine's DrcPool.

Labelling and mutation scoring need only verdict counts per layout, so they take a ``RunDeck`` or
``RunDecks`` callable; :class:`VerdictPool` is a :class:`~chipgym.engines.klayout.DrcPool` that is both.

>>> with VerdictPool(workers=1) as pool:                                       # doctest: +SKIP
...     pool.run_deck('source($input)\\nreport("t", $output)\\n', ["a.gds"])
[{}]
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from chipgym.engines.klayout import DrcJob, DrcPool, DrcResult
from chipgym.errors import DeckError

Verdict = dict[str, int] | Exception
"""Per layout: category -> marker count, or the error the deck raised on it."""

RunDeck = Callable[[str, Sequence[Path]], list[Verdict]]
"""``run_deck(deck_text, layouts)``: one verdict per layout, in order."""

RunDecks = Callable[[Sequence[str], Sequence[Path]], list[list[Verdict]]]
"""``run_decks(decks, layouts)``: ``result[i][j]`` is deck ``i`` on layout ``j``."""


def verdict(result: DrcResult) -> Verdict:
    return result.counts if result.ok else DeckError(f"{result.status.value}: {result.error}")


class VerdictPool(DrcPool):
    """A DrcPool callable as ``RunDecks`` and with a ``RunDeck`` method."""

    def run_deck(self, deck: str, layouts: Sequence[Path]) -> list[Verdict]:
        return [verdict(r) for r in self.run(deck, layouts)]

    def __call__(self, decks: Sequence[str], layouts: Sequence[Path]) -> list[list[Verdict]]:
        return [[verdict(r) for r in job] for job in self.run_batch([DrcJob(d, layouts) for d in decks])]
