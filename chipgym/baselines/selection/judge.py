"""Judges: given the rule, a few finalist decks and only the tests where they disagree (with each finalist's
output, and the generator's expected verdicts unless labels are withheld), pick one.

:class:`OfflineJudge` counts the expected verdicts each finalist agrees with on those tests; on a tie, or with
no evidence (a judge without execution), it prefers the deck that writes the rule's numbers and names its
layers, then the earlier finalist. :class:`LlmJudge` asks the model and reads ``FINAL: k`` from its reply.

>>> from chipgym.tasks.drc.task import DrcTaskView
>>> task = DrcTaskView(id="t", title="w", description="", layers={"met1": (68, 20)},
...                    rules=(("met1 width is at least 0.14 um.", "m1"),), categories=("m1",),
...                    public_examples=(), group="sky130")
>>> test = GeneratedTest("thin", "", b"", {"m1": 1}, "split")
>>> OfflineJudge().choose(task, ["deck a", "deck b"], [Evidence(test, ((0,), (1,)))]).index
1
>>> OfflineJudge().choose(task, ["l0.width(0.15)", "l0 = input(68, 20)\\nl0.width(0.14)"], []).index
1
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Protocol, Sequence

from chipgym.baselines.llm import LlmConfig
from chipgym.baselines.selection.bench import Output, passes
from chipgym.baselines.selection.generated_tests import GeneratedTest, deck_thresholds
from chipgym.baselines.selection.prompt import ask, decks_text, task_text
from chipgym.tasks.drc.rule_text import rule_numbers
from chipgym.tasks.drc.task import DrcTaskView


@dataclass(frozen=True)
class Evidence:
    """One test where the finalists disagree, and each finalist's output on it."""

    test: GeneratedTest
    outputs: tuple[Output, ...]


@dataclass(frozen=True)
class Verdict:
    index: int  # into the finalists
    reason: str


class Judge(Protocol):
    def choose(self, task: DrcTaskView, finalists: Sequence[str], evidence: Sequence[Evidence],
               labels: bool = True) -> Verdict:
        """The finalist to keep; ``labels=False`` hides the generator's expected verdicts."""


def reading_score(task: DrcTaskView, deck: str) -> int:
    """How many of the rule's numbers a deck writes, plus how many of the task's layers it reads."""
    numbers = {round(v, 6) for v in rule_numbers(" ".join(text for text, _ in task.rules))}
    written = {round(v, 6) for v in deck_thresholds(deck)}
    layers = sum(f"input({layer}, {datatype})" in deck for layer, datatype in task.layers.values())
    return len(numbers & written) + layers


class OfflineJudge:
    """The offline judge of the module doc."""

    def choose(self, task: DrcTaskView, finalists: Sequence[str], evidence: Sequence[Evidence],
               labels: bool = True) -> Verdict:
        agreed = [sum(passes(e.outputs[i], e.test, task.categories) for e in evidence if labels and e.test.expected)
                  for i in range(len(finalists))]
        read = [reading_score(task, deck) for deck in finalists]
        best = min(range(len(finalists)), key=lambda i: (-agreed[i], -read[i], i))
        return Verdict(best, f"agrees with {agreed[best]} expected verdicts, reading score {read[best]}")


JUDGE_SYSTEM = ("You judge KLayout DRC decks. Given a design rule, a few candidate decks and test layouts where "
                "they disagree, decide which deck implements the rule. End your reply with FINAL: k, k the deck's "
                "number.")
_FINAL = re.compile(r"FINAL:\s*(\d+)")


class LlmJudge:
    """The model of ``config`` as a judge; an unreadable or out-of-range answer keeps the first finalist (the
    best-scored one), and the verdict says so."""

    def __init__(self, config: LlmConfig):
        self.config = config

    def choose(self, task: DrcTaskView, finalists: Sequence[str], evidence: Sequence[Evidence],
               labels: bool = True) -> Verdict:
        tests = "\n\n".join(_evidence_text(e, labels) for e in evidence) or "(no tests: judge from the decks alone)"
        content = ask(self.config, JUDGE_SYSTEM,
                      f"{task_text(task)}\n\n## decks\n{decks_text(finalists)}\n\n## tests\n{tests}")
        found = _FINAL.findall(content or "")
        if found and 1 <= int(found[-1]) <= len(finalists):
            return Verdict(int(found[-1]) - 1, "llm: " + content[-300:])
        return Verdict(0, "llm: no FINAL: k in range in the reply; kept the first finalist")


def _evidence_text(evidence: Evidence, labels: bool) -> str:
    shapes = json.loads(evidence.test.action).get("shapes", "(a GDS layout)")
    lines = [f"test {evidence.test.name}: shapes {json.dumps(shapes)}"]
    if labels and evidence.test.expected:
        lines.append(f"expected: {json.dumps(dict(evidence.test.expected))}")
    lines += [f"deck {i + 1} output: {json.dumps(o)}" for i, o in enumerate(evidence.outputs)]
    return "\n".join(lines)
