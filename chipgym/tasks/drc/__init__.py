"""DRC-deck writing tasks: Rule2DRC-format data, the built-in ``drc-v0`` suite, mutation scoring.

>>> from chipgym.tasks.drc import SUITE_SEED, generate_drafts
>>> draft = generate_drafts(SUITE_SEED)[0]
>>> draft.id, draft.group
('sky130-0000', 'sky130')

Labelled tasks need KLayout (``klayout`` 0.28.5 binary on PATH)::

    from chipgym.tasks.drc import VerdictPool, build_suite
    with VerdictPool() as pool:
        tasks = build_suite(run_deck=pool.run_deck)   # cached under ~/.cache/chipgym/drc
    view = tasks[0].agent_view()                       # no gold deck, no hidden layouts
"""
from chipgym.errors import DeckError, Rule2DrcFormatError
from chipgym.tasks.drc.mutate import Mutant, MutantOutcome, mutants, mutation_scores, score_task
from chipgym.tasks.drc.rule2drc import Issue, Rule2DrcFolder, load_rule2drc, write_rule2drc
from chipgym.tasks.drc.runner import RunDeck, RunDecks, Verdict, VerdictPool
from chipgym.tasks.drc.suite import SUITE_NAME, SUITE_SEED, build_suite, generate_drafts, label_draft
from chipgym.tasks.drc.task import DrcTask, DrcTaskView, Testcase

__all__ = [
    "DeckError", "DrcTask", "DrcTaskView", "Issue", "Mutant", "MutantOutcome", "Rule2DrcFolder", "Rule2DrcFormatError",
    "RunDeck", "RunDecks", "SUITE_NAME", "SUITE_SEED", "Testcase", "Verdict", "VerdictPool", "build_suite",
    "generate_drafts", "label_draft", "load_rule2drc", "mutants", "mutation_scores", "score_task", "write_rule2drc",
]
