"""Deck mutants and mutation scores: do the hidden layouts catch plausibly-wrong decks?

Operators (on the code part of a deck, never inside strings or comments):

* ``threshold``   every numeric literal +-1 dbu (0.001) and +-10 %, integers +-1;
* ``operation``   a check replaced by a related one (width<->space, enclosing<->overlap, ...);
* ``swap_layers`` the two layers of a two-layer operation exchanged;
* ``metric``      each distance check under each other metric (euclidian, projection, square);
* ``drop_rule``   one ``.output`` line, or one operand of ``.or(...)`` / ``(a + b)``, removed;
* ``category``    one output category renamed.

A mutant is *killed* when its verdict (>= 1 marker or none, per category) differs from
the gold deck's on some hidden layout, *equivalent* when it agrees with gold on the
hidden, public and extra layouts (extra: probes around the task's thresholds where the metrics, line
ends and extensions disagree (:func:`probe_scenes`), and every shape of every testcase shifted by
+-1 dbu in x and y, and whole layouts scaled by 0.9 / 1.1), *invalid* when it raises
an error where gold does not, and *survived* otherwise.  The score of a set of tasks
is killed / (killed + survived).

>>> deck = 'source($input)\\nreport("t", $output)\\nm1 = input(68, 20)\\nm1.width(0.14).output("a", "x")\\n'
>>> sorted({m.operator for m in mutants(deck)})
['category', 'metric', 'operation', 'threshold']
"""
from __future__ import annotations

import itertools
import math
import random
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal, Sequence

from chipgym.tasks.drc.runner import RunDecks, Verdict
from chipgym.tasks.drc.suite.layouts import Scene, Shape, gds_scene, rect, scene_gds
from chipgym.tasks.drc.task import DrcTask

Status = Literal["killed", "survived", "equivalent", "invalid"]

SWAPS = {
    "width": "space", "space": "width", "notch": "space", "isolated": "space", "iso": "notch",
    "separation": "enclosing", "sep": "enc", "enclosing": "overlap", "enc": "sep", "overlap": "enclosing",
    "enclosed": "overlap", "inside": "interacting", "not_inside": "not_interacting", "interacting": "inside",
    "not_interacting": "not_inside", "outside": "not_interacting", "not_outside": "interacting",
    "covering": "overlapping", "overlapping": "covering", "not_covering": "not_overlapping",
    "not_overlapping": "not_covering", "in": "inside", "not_in": "not_inside", "and": "or", "or": "and",
    "not": "and", "xor": "not", "with_area": "without_area", "without_area": "with_area",
    "with_holes": "without_holes", "non_rectangles": "non_squares", "non_squares": "non_rectangles",
    "with_angle": "without_angle", "without_angle": "with_angle", "extended_out": "extended_in",
    "extended_in": "extended_out", "inside_part": "outside_part", "outside_part": "inside_part",
    "pull_interacting": "pull_inside", "pull_inside": "pull_interacting", "pull_overlapping": "pull_interacting",
    "with_bbox_min": "with_bbox_max", "with_bbox_max": "with_bbox_min", "with_bbox_width": "with_bbox_height",
    "with_bbox_height": "with_bbox_width", "with_length": "without_length",
}
TWO_LAYER = (
    "enclosing", "enc", "enclosed", "overlap", "inside", "not_inside", "interacting",
    "not_interacting", "outside", "not_outside", "covering", "not_covering", "overlapping", "not_overlapping",
    "in", "not_in", "not", "pull_interacting", "pull_inside", "pull_overlapping",
)
"""Asymmetric two-layer operations (swapping the operands of ``and``/``or``/``xor``/``join``/``separation``
changes no verdict, so those are not mutated)."""
METRIC_CHECKS = ("width", "space", "notch", "isolated", "iso", "separation", "sep", "enclosing", "enc", "enclosed",
                 "overlap")
METRICS = ("euclidian", "projection", "square")


@dataclass(frozen=True)
class Mutant:
    """A modified deck and how it was made."""

    operator: str
    description: str
    deck: str


@dataclass(frozen=True)
class MutantOutcome:
    task_id: str
    group: str
    mutant: Mutant
    status: Status


def _mask(deck: str) -> str:
    """The deck with string literals and comments blanked (same length), for code-only matching."""
    out = list(deck)
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|#[^\n]*', deck):
        out[m.start() : m.end()] = " " * (m.end() - m.start())
    return "".join(out)


def _closing(code: str, open_at: int) -> int:
    """Index of the parenthesis closing the one at ``open_at``."""
    depth = 0
    for i in range(open_at, len(code)):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if depth == 0:
            return i
    raise ValueError("unbalanced parentheses")


def _opening(code: str, inside: int) -> int:
    """Index of the innermost parenthesis enclosing position ``inside``."""
    depth = 0
    for i in range(inside - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(code[i], 0)
        if depth < 0:
            return i
    raise ValueError("no enclosing parenthesis")


def _splice(deck: str, start: int, end: int, text: str) -> str:
    return deck[:start] + text + deck[end:]


def _fmt(x: float) -> str:
    text = f"{x:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def threshold_mutants(deck: str) -> list[Mutant]:
    code, found = _mask(deck), []
    for m in re.finditer(r"(?<![\w.])(\d+\.\d+|\d+)(?![\w.])", code):
        literal = m.group(1)
        if re.search(r"input\([^)]*$", code[: m.start()]):
            continue  # a layer/datatype number, not a threshold
        x = float(literal)
        if "." in literal:
            values = {round(x + 0.001, 4), round(x - 0.001, 4), round(x * 1.1, 3), round(x * 0.9, 3)}
            texts = sorted({_fmt(v) for v in values if v > 0 and v != x})
        else:
            if int(literal) >= 1000:
                continue
            texts = sorted({str(v) for v in (int(literal) + 1, int(literal) - 1) if v >= 0})
        found += [Mutant("threshold", f"{literal} -> {t} at {m.start()}", _splice(deck, m.start(), m.end(), t))
                  for t in texts]
    return found


def operation_mutants(deck: str) -> list[Mutant]:
    code = _mask(deck)
    return [
        Mutant("operation", f".{m.group(1)} -> .{SWAPS[m.group(1)]} at {m.start()}",
               _splice(deck, m.start(1), m.end(1), SWAPS[m.group(1)]))
        for m in re.finditer(r"\.(\w+)\(", code)
        if m.group(1) in SWAPS
    ]


def swap_layer_mutants(deck: str) -> list[Mutant]:
    code = _mask(deck)
    layers = set(re.findall(r"^\s*([a-z_]\w*)\s*=\s*input\(", code, re.M))
    pattern = r"\b([a-z_]\w*)\.(" + "|".join(TWO_LAYER) + r")\(([a-z_]\w*)(?=[,)])"
    out = []
    for m in re.finditer(pattern, code):
        a, b = m.group(1), m.group(3)
        if a in layers and b in layers and a != b:
            text = f"{b}.{m.group(2)}({a}"
            out.append(Mutant("swap_layers", f"{a}.{m.group(2)}({b}) swapped", _splice(deck, m.start(), m.end(), text)))
    return out


def metric_mutants(deck: str) -> list[Mutant]:
    """Each distance check under each other metric (no metric argument means euclidian)."""
    code, out = _mask(deck), []
    for m in re.finditer(r"\.(" + "|".join(METRIC_CHECKS) + r")\(", code):
        close = _closing(code, m.end() - 1)
        args = code[m.end() : close]
        current = next((metric for metric in METRICS if re.search(rf"\b{metric}\b(?!_)", args)), None)
        for new in METRICS:
            if new == (current or "euclidian"):
                continue
            new_args = re.sub(rf"\b{current}\b(?!_)", new, args, count=1) if current else f"{args}, {new}"
            out.append(Mutant("metric", f".{m.group(1)}({args}) -> ({new_args})",
                              _splice(deck, m.end(), close, new_args)))
    return out


def drop_rule_mutants(deck: str) -> list[Mutant]:
    code, out = _mask(deck), []
    output_lines = [m for m in re.finditer(r"^.*\.output\(.*$\n?", code, re.M)]
    if len(output_lines) > 1:
        out += [Mutant("drop_rule", f"line {code[: m.start()].count(chr(10)) + 1} dropped",
                       _splice(deck, m.start(), m.end(), "")) for m in output_lines]
    for m in re.finditer(r"\.or\(", code):
        out.append(Mutant("drop_rule", f".or(...) at {m.start()} dropped",
                          _splice(deck, m.start(), _closing(code, m.end() - 1) + 1, "")))
    for m in re.finditer(r" \+ ", code):
        close = _closing(code, _opening(code, m.start()))
        out.append(Mutant("drop_rule", f"'+' operand at {m.start()} dropped", _splice(deck, m.start(), close, "")))
    return out


def category_mutants(deck: str) -> list[Mutant]:
    return [
        Mutant("category", f"category {m.group(1)!r} renamed", _splice(deck, m.start(1), m.end(1), m.group(1) + "_x"))
        for m in re.finditer(r'\.output\("([^"]+)"', deck)
    ]


def mutants(deck: str) -> list[Mutant]:
    """Every mutant of a deck (deduplicated, never equal to the deck itself)."""
    seen, out = {deck}, []
    for make in (threshold_mutants, operation_mutants, swap_layer_mutants, metric_mutants, drop_rule_mutants,
                 category_mutants):
        for mutant in make(deck):
            if mutant.deck not in seen:
                seen.add(mutant.deck)
                out.append(mutant)
    return out


def jitter(scene: Scene) -> list[Scene]:
    """Each shape moved by +-1 dbu in x and in y (one at a time), and the scene scaled by 0.9 / 1.1."""
    out = []
    for i, shape in enumerate(scene.shapes):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            moved = Shape(shape.layer, tuple((x + dx, y + dy) for x, y in shape.points), shape.cell)
            out.append(Scene(f"{scene.name}_j{i}_{dx}_{dy}", scene.shapes[:i] + (moved,) + scene.shapes[i + 1 :]))
    for f in (0.9, 1.1):
        scaled = tuple(Shape(s.layer, tuple((round(x * f), round(y * f)) for x, y in s.points), s.cell)
                       for s in scene.shapes)
        out.append(Scene(f"{scene.name}_s{f}", scaled))
    return out


def probe_scenes(task: DrcTask, lengths: int = 2, layers: int = 3) -> list[Scene]:
    """Layouts on which the distance metrics, line ends and extensions disagree, around the task's length
    thresholds (the first ``lengths`` of 5 nm to 2 um) on its first ``layers`` layers and their ordered pairs:
    shapes facing corner to corner, two squares pinched at a corner, a line end facing a wide shape, one
    layer covering another with a margin just under the threshold on one side, and one crossing another."""
    names = list(task.layers)[:layers]
    found = sorted({round(v * 1000) for v in task.thresholds.values() if 0.005 <= v <= 2})[:lengths]
    scenes = []
    for t in found:
        diagonal = (round(t / math.sqrt(2)) - 2, round(t / math.sqrt(2)) + 2, t - 2)
        for a, b in [(a, a) for a in names] + list(itertools.permutations(names, 2)):
            scenes += [Scene(f"p{t}_{a}_{b}_corner{g}", _corner_pair(a, b, g)) for g in diagonal]
            scenes += [Scene(f"p{t}_{a}_{b}_pinch{o}", _corner_pair(a, b, -o)) for o in diagonal + (t + 2,)]
            if a == b:
                line = max(t // 2, 10)
                scenes += [Scene(f"p{t}_{a}_eol{g}", rect(a, 0, 0, line, 1000) + rect(a, -600, 1000 + g, 600, 1600))
                           for g in (t - 2, t + 2)]
                continue
            scenes.append(Scene(f"p{t}_{a}_{b}_cover", rect(a, 0, 0, 400, 400)
                                + rect(b, -t - 2, -t + 2, 400 + t + 2, 400 + t + 2)))
            scenes += [Scene(f"p{t}_{a}_{b}_cross{e}", rect(b, 0, 0, 1000, 1000) + rect(a, 300, -e, 500, 1000 + e))
                       for e in (t - 2, t + 2)]
    return scenes


def _corner_pair(a: str, b: str, gap: int) -> tuple[Shape, ...]:
    """A 600 nm square of ``a`` and one of ``b`` off its top-right corner by ``gap`` in x and y (< 0: overlapping)."""
    return rect(a, 0, 0, 600, 600) + rect(b, 600 + gap, 600 + gap, 1200 + gap, 1200 + gap)


def extra_layouts(task: DrcTask, limit: int, seed: int = 0) -> list[tuple[str, bytes]]:
    """Up to ``limit`` layouts beyond the task's own: a third are :func:`probe_scenes`, the rest jittered
    variants of its testcases (a deterministic sample of each)."""
    if limit <= 0:
        return []
    rng = random.Random(seed)
    probes = probe_scenes(task)
    probes = rng.sample(probes, min(limit // 3, len(probes)))
    jittered = [s for case in task.public_examples + task.hidden_testcases
                for s in jitter(gds_scene(case.name, case.gds_bytes()))]
    scenes = probes + rng.sample(jittered, min(limit - len(probes), len(jittered)))
    layers = {s.layer: tuple(map(int, s.layer.split("/"))) for scene in scenes for s in scene.shapes
              if s.layer not in task.layers}
    return [(s.name, scene_gds(s, {**task.layers, **layers})) for s in scenes]


def _verdict(v: Verdict, categories: Sequence[str]) -> tuple[int, ...] | None:
    return None if isinstance(v, Exception) else tuple(int(v.get(c, 0) > 0) for c in categories)


def score_task(task: DrcTask, run_decks: RunDecks, extra: int = 200, seed: int = 0) -> list[MutantOutcome]:
    """Classify every mutant of the task's gold deck (see module docstring)."""
    muts = mutants(task.gold_deck)
    hidden = [(c.name, c.gds_bytes()) for c in task.hidden_testcases]
    others = [(c.name, c.gds_bytes()) for c in task.public_examples] + extra_layouts(task, extra, seed)
    with tempfile.TemporaryDirectory(prefix="chipgym-mut-") as tmp:
        paths = []
        for i, (_, data) in enumerate(hidden + others):
            path = Path(tmp) / f"l{i}.gds"
            path.write_bytes(data)
            paths.append(path)
        results = run_decks([task.gold_deck] + [m.deck for m in muts], paths)
    gold = [_verdict(v, task.categories) for v in results[0]]
    n_hidden = len(hidden)
    outcomes = []
    for mutant, verdicts in zip(muts, results[1:]):
        mine = [_verdict(v, task.categories) for v in verdicts]
        if any(m is None and g is not None for m, g in zip(mine, gold)):
            status: Status = "invalid"
        elif mine[:n_hidden] != gold[:n_hidden]:
            status = "killed"
        elif mine == gold:
            status = "equivalent"
        else:
            status = "survived"
        outcomes.append(MutantOutcome(task.id, task.group, mutant, status))
    return outcomes


def mutation_scores(outcomes: Iterable[MutantOutcome]) -> dict[str, dict[str, float]]:
    """Per group: counts per status and ``score`` = killed / (killed + survived)."""
    by_group: dict[str, Counter[str]] = {}
    for o in outcomes:
        by_group.setdefault(o.group, Counter())[o.status] += 1
    report = {}
    for group, counts in sorted(by_group.items()):
        live = counts["killed"] + counts["survived"]
        report[group] = {**{s: float(counts[s]) for s in ("killed", "survived", "equivalent", "invalid")},
                         "score": counts["killed"] / live if live else 1.0}
    return report

