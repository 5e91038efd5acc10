"""Typed records for DRC-deck writing tasks.

A :class:`DrcTask` holds everything about one task, including the grading
secrets (gold deck and hidden testcases).  What an agent may see is the
:class:`DrcTaskView` returned by :meth:`DrcTask.agent_view`.

A task has three disjoint pools of labelled layouts: ``public_examples`` (shown to the agent),
``training_testcases`` (graded in the training regime, with feedback) and ``hidden_testcases`` (the
evaluation layouts: graded once, success only). A built-in dataset draws the first two anew from the task's
scenes (:mod:`chipgym.tasks.drc.suite.redraw`); a published Rule2DRC folder has no training pool.

>>> case = Testcase(name="ok", gds=b"", labels={"m1_1": 0})
>>> task = DrcTask(id="t0", title="Met1 width", description="Min width of met1 is 0.14 um.",
...                layers={"met1": (68, 20)}, rules=(("Min width of met1 is 0.14 um.", "m1_1"),),
...                categories=("m1_1",), gold_deck="...", public_examples=(case,),
...                hidden_testcases=(case,), group="sky130")
>>> view = task.agent_view()
>>> hasattr(view, "gold_deck"), len(view.public_examples)
(False, 1)
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Mapping

Group = Literal["sky130", "synthetic", "syntax", "rule2drc"]
Split = Literal["train", "test"]


@dataclass(frozen=True)
class Testcase:
    """One labelled layout: ``labels[category]`` is 1 when the gold deck flags it."""

    __test__ = False  # not a pytest test class despite its name

    name: str
    gds: bytes | Path
    labels: Mapping[str, int]
    filename: str = field(default="", compare=False)  # its row's ``filename`` when read from a labels.csv

    def gds_bytes(self) -> bytes:
        """The GDSII stream, read from disk when the testcase is file-backed."""
        return self.gds if isinstance(self.gds, bytes) else Path(self.gds).read_bytes()

    @property
    def failing(self) -> bool:
        """True when at least one category is expected to report a marker."""
        return any(self.labels.values())


@dataclass(frozen=True, kw_only=True)
class DrcTaskView:
    """The agent-visible part of a task: no gold deck, no hidden testcases."""

    id: str
    title: str
    description: str
    layers: Mapping[str, tuple[int, int]]
    rules: tuple[tuple[str, str], ...]
    categories: tuple[str, ...]
    public_examples: tuple[Testcase, ...]
    group: str
    thresholds: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class DrcTask(DrcTaskView):
    """A natural-language rule set, its gold KLayout deck and labelled layouts."""

    gold_deck: str
    hidden_testcases: tuple[Testcase, ...]  # the evaluation layouts
    training_testcases: tuple[Testcase, ...] = ()  # graded in the training regime; none in a published folder
    split: Split | None = None  # None: no split (published Rule2DRC problems), served for every split
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # GDS files of the problem's data folder with no label row (data-folder relative): the published
    # evaluator's precheck fails such a task, and so does chipgym.scoring.drc.grade
    unlabelled_layouts: tuple[str, ...] = ()
    # made by a chipgym dataset build, so its layouts are chipgym's own and may be parsed in the caller's process;
    # a folder's or a caller's layouts are parsed only in the sandbox
    built: bool = field(default=False, compare=False)

    def agent_view(self) -> DrcTaskView:
        """Drop the grading secrets (gold deck, training and evaluation layouts)."""
        return DrcTaskView(**{f.name: getattr(self, f.name) for f in fields(DrcTaskView)})
