"""Test layouts for selection, with the verdicts their generator expects: in the env's ``add_test`` JSON.

A :class:`TestGenerator` gives a batch of tests for a task (``batch``), or one test meant to split a few
decks that disagree (``split``). Its labels are its own reading of the rule, so they can be wrong; a test
labels only the category it was drawn for.

:class:`GeometricTests` (offline) reads each category's sentence as the heuristic policy does (the check, its
layers, its threshold) and places shapes around the threshold: just below and above it, half and one and a
half of it, on it (and a few more), corner to corner (where the euclidian and projection metrics differ), and
for the checks without a threshold, the topologies (inside, partly over, touching, apart; a square, a
rectangle, an L, a triangle). To split decks it first tries the midpoints between the thresholds the decks
themselves write. :class:`LlmTests` asks the model for shapes in ``add_test`` JSON, never for code to run here.

>>> from chipgym.tasks.drc.task import DrcTaskView
>>> task = DrcTaskView(id="t", title="width", description="", layers={"met1": (68, 20)},
...                    rules=(("met1 must be at least 0.14 um wide.", "m1"),), categories=("m1",),
...                    public_examples=(), group="sky130")
>>> [(t.name, dict(t.expected)) for t in GeometricTests().batch(task, 3, seed=0)]
[('m1-width-0.133', {'m1': 1}), ('m1-width-0.147', {'m1': 0}), ('m1-width-0.07', {'m1': 1})]
>>> decks = ["x.width(0.14).output('m1', 'm1')", "x.width(0.15).output('m1', 'm1')"]
>>> GeometricTests().split(task, decks, [], seed=0).name                  # between the two thresholds
'm1-width-0.145'
>>> [dict(t.expected) for t in GeometricTests(label_noise=1.0).batch(task, 2, seed=0)]   # every label flipped
[{'m1': 0}, {'m1': 1}]
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

from chipgym.baselines.drc_policies import HeuristicPolicy
from chipgym.baselines.llm import LlmConfig
from chipgym.baselines.selection.prompt import ask, decks_text, task_rng, task_text
from chipgym.envs import chat, drc_actions
from chipgym.envs.json_action import ActionError
from chipgym.tasks.drc.rule_text import rule_numbers
from chipgym.tasks.drc.task import DrcTaskView, Testcase
from chipgym.wrappers.drc_template import CHECK_NAMES, MAX_LAYERS

Shapes = list[dict]


@dataclass(frozen=True)
class GeneratedTest:
    """One test layout: ``action`` is the env's ``add_test`` JSON, ``gds`` the layout it makes, ``expected`` the
    generator's verdicts (only for the categories it labels; the public examples' are the task's own)."""

    name: str
    action: str
    gds: bytes
    expected: Mapping[str, int]
    origin: str  # "public example", "batch", "split", "llm"


def test_from_action(action: str, categories: Sequence[str], origin: str) -> GeneratedTest:
    """The test of an ``add_test`` action, read as the env reads it; ActionError names what is wrong.
    The labels kept are those given, of the task's categories."""
    parsed = drc_actions.parse(action)
    if not isinstance(parsed, drc_actions.AddTest):
        raise ActionError("op: expected add_test")
    if unknown := [c for c in parsed.expected if c not in categories]:
        raise ActionError(f"expected.{unknown[0][:64]}: not a category of this task ({', '.join(categories)})")
    return GeneratedTest(parsed.name or "test", action, parsed.gds, dict(parsed.expected), origin)


def public_tests(task: DrcTaskView) -> list[GeneratedTest]:
    """The task's public examples as tests, with their true labels."""
    return [_from_case(i, case) for i, case in enumerate(task.public_examples)]


def _from_case(index: int, case: Testcase) -> GeneratedTest:
    gds = case.gds_bytes()
    return GeneratedTest(f"example{index + 1}", drc_actions.add_test(gds, case.labels), gds, dict(case.labels),
                         "public example")


class TestGenerator(Protocol):
    def batch(self, task: DrcTaskView, count: int, seed: int) -> list[GeneratedTest]:
        """Up to ``count`` tests of the task."""

    def split(self, task: DrcTaskView, decks: Sequence[str], tried: Sequence[GeneratedTest],
              seed: int) -> GeneratedTest | None:
        """A test (not among ``tried``) on which ``decks`` may disagree, or None when there is none left."""


@dataclass(frozen=True)
class Reading:
    """How the generator reads one category's sentence: the check, its layers and threshold."""

    category: str
    check: str
    a: tuple[int, int]
    b: tuple[int, int]
    threshold: float | None
    metric: str


def readings(task: DrcTaskView) -> list[Reading]:
    names = list(task.layers)[:MAX_LAYERS]
    numbers = rule_numbers(" ".join(text for text, _ in task.rules))
    found = []
    for text, category in task.rules:
        values = HeuristicPolicy().slot(text, names, numbers)
        check = CHECK_NAMES[values["check"]]
        a, b = (task.layers[names[values[f]]] for f in ("primary", "secondary"))
        stated = rule_numbers(text)
        found.append(Reading(category, check, tuple(a), tuple(b), stated[0] if stated else None,
                             "projection" if values["metric"] == 1 else "euclidian"))
    return found


# -- geometry: (shapes, the value measured) for a check family, with every other dimension generous ------------
def _box(layer, x0, y0, x1, y1) -> dict:
    return drc_actions.box(layer, *(round(v, 4) for v in (x0, y0, x1, y1)))


def _generous(t: float) -> float:
    return round(max(1.0, 4 * t), 3)


def _width(r: Reading, v: float) -> Shapes:
    return [_box(r.a, 0, 0, v, _generous(r.threshold))]


def _space(r: Reading, v: float, other=None, diagonal=False) -> Shapes:
    g = _generous(r.threshold)
    dx = v / math.sqrt(2) if diagonal else v
    return [_box(r.a, 0, 0, g, g), _box(other or r.a, g + dx, g + dx if diagonal else 0, 2 * g + dx,
                                        2 * g + dx if diagonal else g)]


def _notch(r: Reading, v: float) -> Shapes:
    g = _generous(r.threshold)
    points = [[0, 0], [2 * g + v, 0], [2 * g + v, 2 * g], [g + v, 2 * g], [g + v, g], [g, g], [g, 2 * g], [0, 2 * g]]
    return [drc_actions.polygon(r.a, [[round(x, 4), round(y, 4)] for x, y in points])]


def _enclosure(r: Reading, v: float, outer, inner) -> Shapes:
    g = _generous(r.threshold)
    return [_box(inner, 0, 0, g, g), _box(outer, -v, -g, 2 * g, 2 * g)]


def _overlap(r: Reading, v: float) -> Shapes:
    g = _generous(r.threshold)
    return [_box(r.a, 0, 0, g, g), _box(r.b, g - v, 0, 2 * g, g)]


def _extension(r: Reading, v: float) -> Shapes:
    g = _generous(r.threshold)
    return [_box(r.b, 0, 0, g, g), _box(r.a, -g, g / 3, g + v, 2 * g / 3)]


def _frame(r: Reading, v: float) -> Shapes:
    s, w = math.sqrt(v), _generous(math.sqrt(r.threshold))
    return [_box(r.a, 0, 0, w, 2 * w + s), _box(r.a, w + s, 0, 2 * w + s, 2 * w + s),
            _box(r.a, w, 0, w + s, w), _box(r.a, w, w + s, w + s, 2 * w + s)]


BUILDERS: dict[str, Callable[[Reading, float], Shapes]] = {
    "width": _width, "short_edges": _width, "space": _space, "isolated": _space, "notch": _notch,
    "separation": lambda r, v: _space(r, v, other=r.b),
    "enclosing": lambda r, v: _enclosure(r, v, r.a, r.b), "enclosed": lambda r, v: _enclosure(r, v, r.b, r.a),
    "overlap": _overlap, "extension": _extension, "holes": _frame,
    "area": lambda r, v: [_box(r.a, 0, 0, math.sqrt(v), math.sqrt(v))],
    "perimeter": lambda r, v: [_box(r.a, 0, 0, v / 4, v / 4)],
    "square_size": lambda r, v: [_box(r.a, 0, 0, v, v)],
}
DIAGONAL = {"space": lambda r, v: _space(r, v, diagonal=True),
            "isolated": lambda r, v: _space(r, v, diagonal=True),
            "separation": lambda r, v: _space(r, v, other=r.b, diagonal=True)}

# two-layer topologies (a against b) and which of them each relational check flags
TOPOLOGIES = {
    "inside": lambda r: [_box(r.b, 0, 0, 3, 3), _box(r.a, 1, 1, 2, 2)],
    "partly over": lambda r: [_box(r.b, 0, 0, 3, 3), _box(r.a, 2, 1, 4, 2)],
    "touching": lambda r: [_box(r.b, 0, 0, 3, 3), _box(r.a, 3, 1, 4, 2)],
    "apart": lambda r: [_box(r.b, 0, 0, 3, 3), _box(r.a, 4, 1, 5, 2)],
}
FLAGGED = {
    "not_inside": {"partly over", "touching", "apart"}, "inside": {"inside"}, "outside": {"touching", "apart"},
    "not_outside": {"inside", "partly over"}, "interacting": {"inside", "partly over", "touching"},
    "not_interacting": {"apart"}, "overlapping": {"inside", "partly over"},
    "not_overlapping": {"touching", "apart"}, "covering": set(), "not_covering": set(TOPOLOGIES),
    "and": {"inside", "partly over"}, "not": {"partly over", "touching", "apart"}, "xor": set(TOPOLOGIES),
}
FIGURES = {  # one-layer figures and the checks that flag them
    "square": (lambda r: [_box(r.a, 0, 0, 1, 1)], set()),
    "rectangle": (lambda r: [_box(r.a, 0, 0, 2, 1)], {"non_squares"}),
    "L": (lambda r: [drc_actions.polygon(r.a, [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]])],
          {"non_squares", "non_rectangles"}),
    "triangle": (lambda r: [drc_actions.polygon(r.a, [[0, 0], [2, 0], [0, 2]])],
                 {"non_squares", "non_rectangles", "non_rectilinear"}),
}


def _snap(value: float) -> float:
    return round(value, 3)


def _values(t: float) -> list[float]:
    """Values around a threshold: just below and above, half and one and a half of it, on it, then a tenth
    below and above, a quarter and twice it."""
    step = max(0.001, _snap(0.05 * t))
    chosen = (t - step, t + step, 0.5 * t, 1.5 * t, t, 0.9 * t, 1.1 * t, 0.25 * t, 2 * t)
    return list(dict.fromkeys(v for v in map(_snap, chosen) if v > 0))


def _label(reading: Reading, value: float, diagonal: bool = False) -> int:
    """The generator's verdict: a violation when the measured value is below the threshold (a square of
    another size for square_size); corner to corner, only under the euclidian metric."""
    if reading.check == "square_size":
        return int(abs(value - reading.threshold) > 1e-9)
    if diagonal and reading.metric == "projection":
        return 0
    return int(value < reading.threshold - 1e-9)


def _proposal(reading: Reading, shapes: Shapes, label: int, what: str, origin: str) -> GeneratedTest:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{reading.category}-{what}")[:64]
    action = drc_actions.add_test(shapes, {reading.category: label}, name)
    return test_from_action(action, [reading.category], origin)


def proposals(reading: Reading, values: Sequence[float] = (), origin: str = "batch") -> list[GeneratedTest]:
    """The tests of one reading, in the order they are drawn: ``values`` (or those around the threshold) with
    the check's shapes, then corner-to-corner ones, then the topologies and figures."""
    found = []
    build = BUILDERS.get(reading.check)
    if build is not None and reading.threshold:
        chosen = list(values) or _values(reading.threshold)
        found += [_proposal(reading, build(reading, v), _label(reading, v), f"{reading.check}-{v:g}", origin)
                  for v in chosen]
        if reading.check in DIAGONAL:
            found += [_proposal(reading, DIAGONAL[reading.check](reading, v), _label(reading, v, True),
                                f"{reading.check}-corner-{v:g}", origin) for v in chosen[:2]]
    if reading.check in FLAGGED or build is None:
        found += [_proposal(reading, shapes(reading), int(name in FLAGGED.get(reading.check, ())),
                            f"{name.replace(' ', '_')}", origin) for name, shapes in TOPOLOGIES.items()]
    found += [_proposal(reading, shapes(reading), int(reading.check in flagging), name, origin)
              for name, (shapes, flagging) in FIGURES.items() if build is None and reading.check not in FLAGGED]
    return found


_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])")


def deck_thresholds(deck: str) -> list[float]:
    """The lengths a deck's checks write, in um (an integer literal is database units, 1 nm), outside the
    lines that read layers or open the report."""
    found = []
    for line in deck.splitlines():
        if "input(" in line or "report(" in line:
            continue
        for literal in _NUMBER.findall(line):
            value = float(literal) if "." in literal else int(literal) / 1000
            if 0 < value < 100:
                found.append(value)
    return found


class GeometricTests:
    """The offline test generator of the module doc; with ``label_noise`` p, each label is also flipped with
    probability p (drawn from the seed, the task and the test), errors of a model that are independent of its
    reading of the rule."""

    def __init__(self, label_noise: float = 0.0):
        if not 0.0 <= label_noise <= 1.0:
            raise ValueError(f"label_noise: expected a probability, got {label_noise}")
        self.label_noise = label_noise

    def batch(self, task: DrcTaskView, count: int, seed: int) -> list[GeneratedTest]:
        queues = [proposals(r) for r in readings(task)]
        chosen: list[GeneratedTest] = []
        while len(chosen) < count and any(queues):
            for queue in queues:
                if queue and len(chosen) < count:
                    chosen.append(queue.pop(0))
        return [self._noisy(task, test, seed) for test in chosen]

    def split(self, task: DrcTaskView, decks: Sequence[str], tried: Sequence[GeneratedTest],
              seed: int) -> GeneratedTest | None:
        seen = {test.gds for test in tried}
        written = sorted({_snap(v) for deck in decks for v in deck_thresholds(deck)})
        ordered: list[GeneratedTest] = []
        for reading in readings(task):
            if reading.threshold:
                values = sorted(set(written) | {reading.threshold})
                between = [_snap((x + y) / 2) for x, y in zip(values, values[1:]) if _snap((x + y) / 2) not in values]
                ordered += proposals(reading, between, "split")
        for reading in readings(task):
            ordered += proposals(reading, origin="split")
        test = next((test for test in ordered if test.gds not in seen), None)
        return None if test is None else self._noisy(task, test, seed)

    def _noisy(self, task: DrcTaskView, test: GeneratedTest, seed: int) -> GeneratedTest:
        if not self.label_noise:
            return test
        rng = task_rng(seed, task.id, f"labels/{test.name}")
        expected = {c: 1 - v if rng.random() < self.label_noise else v for c, v in test.expected.items()}
        action = json.dumps({**json.loads(test.action), "expected": expected})
        return GeneratedTest(test.name, action, test.gds, expected, test.origin)


TEST_SYSTEM = ("You write test layouts for KLayout DRC decks. Reply with JSON only, in a fenced ```json block: "
               'add_test actions {"op": "add_test", "shapes": [{"layer": [L, D], "box": [x0, y0, x1, y1]} or '
               '{"layer": [L, D], "polygon": [[x, y], ...]}], "expected": {CATEGORY: 1 or 0}, "name": NAME}, '
               "coordinates in um; expected is 1 where the rule is violated. Never write code.")


class LlmTests:
    """Tests from the model of ``config``: a JSON list of ``add_test`` actions for a batch, one for a split
    (shown the decks that disagree); what does not parse as an ``add_test`` is dropped."""

    def __init__(self, config: LlmConfig):
        self.config = config

    def batch(self, task: DrcTaskView, count: int, seed: int) -> list[GeneratedTest]:
        request = f"Write {count} test layouts that tell a correct deck from wrong ones: a JSON list of add_test."
        return self._tests(task, request)[:count]

    def split(self, task: DrcTaskView, decks: Sequence[str], tried: Sequence[GeneratedTest],
              seed: int) -> GeneratedTest | None:
        request = (f"These decks disagree somewhere:\n\n{decks_text(decks)}\n\nWrite one test layout on which they "
                   f"give different verdicts, as one add_test action; {len(tried)} tests were written already.")
        seen = {test.gds for test in tried}
        return next((test for test in self._tests(task, request) if test.gds not in seen), None)

    def _tests(self, task: DrcTaskView, request: str) -> list[GeneratedTest]:
        return actions_in_reply(ask(self.config, TEST_SYSTEM, f"{task_text(task)}\n\n{request}"), task.categories)


def actions_in_reply(content: str, categories: Sequence[str]) -> list[GeneratedTest]:
    """The ``add_test`` actions of a reply (a JSON object or list, fenced or bare) that the env would accept."""
    blocks = [body for language, body in chat.fenced_blocks(content or "") if language in ("", "json")]
    found = []
    for block in blocks or [content or ""]:
        try:
            data = json.loads(block)
        except (ValueError, RecursionError):
            continue
        for item in data if isinstance(data, list) else [data]:
            try:
                found.append(test_from_action(json.dumps(item), categories, "llm"))
            except (ActionError, TypeError):
                continue
    return found
