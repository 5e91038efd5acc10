"""The ceiling of ``chipgym/DrcTemplate-v0``: the fraction of each drc-v0 group whose gold behaviour some template
action reproduces on the hidden layouts, graded by the real grader.

Slot ``i`` writes category ``i`` and the grader scores each category on its own, so a task is expressible when
each of its categories is, by some slot. For each category this searches the slot values:

1. guided: the slots whose check the gold deck's text names (``.width(``, ``.enclosing(``, ...), every layer,
   number, metric and region of them;
2. exhaustive: every other slot value (every check, layer, number, metric, region and region layer the
   task has; values beyond them compile to these), for the categories stage 1 did not express.

Candidates run many at a time (one deck, one output per candidate) first on a few discriminating hidden
layouts, the survivors then on all of them; a candidate expresses a category when its verdict (any
marker, or none) equals the label on every hidden layout. Every task claimed expressible is then verified:
its action is compiled by the wrapper and graded by :func:`chipgym.scoring.drc.grade` on the hidden
layouts. The figure is exact when stage 2 ran for every category left (``--budget`` seconds bound it; a
task whose search was cut is counted as not expressible and the figure is a lower bound). "in mask"
counts the tasks with a verified action that the env's mask allows.

Run: CHIPGYM_CACHE=... .venv/bin/python benchmarks/drc_template_ceiling.py [--budget 3600] [--workers 2]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np

from chipgym.engines.klayout import DrcJob, DrcPool, DrcResult
from chipgym.scoring.drc import grade
from chipgym.tasks.drc.rule_text import rule_text
from chipgym.tasks.drc.suite import build_suite
from chipgym.tasks.drc.task import DrcTask
from chipgym.wrappers.drc_template import (
    CHECKS,
    MAX_LAYERS,
    METRICS,
    NVEC,
    REGIONS,
    SLOT_FIELDS,
    SLOTS,
    Template,
    action_mask,
    compile_deck,
    deck,
    slot_expression,
)

CHUNK = 300  # candidates per deck
ALIASES = {"isolated": (".iso(", "isolated"), "separation": (".sep(", "separation"),
           "enclosing": (".enc(", "enclosing"),
           "extension": (".edges.enclosing(",), "area": ("with_area", "area"), "holes": ("holes",),
           "perimeter": ("perimeter",), "square_size": ("non_squares",), "short_edges": ("with_length", "length")}


@dataclass(frozen=True)
class Candidate:
    values: tuple[tuple[str, int], ...]  # slot field: value
    expression: str
    layers: frozenset[int]


def candidates(template: Template) -> list[Candidate]:
    """Every distinct expression one slot can write for the task (the whole space, masked or not)."""
    n_layers, n_numbers = min(len(template.layers), MAX_LAYERS), max(len(template.numbers), 1)
    seen: dict[str, Candidate] = {}
    for index, check in enumerate(CHECKS):
        metric = "METRIC" in check.expression("a", "b", "t", "METRIC")
        for a, b, number, m in itertools.product(range(n_layers), range(n_layers if check.layers == 2 else 1),
                                                 range(n_numbers if check.threshold else 1),
                                                 range(len(METRICS) if metric else 1)):
            regions = [(0, 0)] + [(r, c) for r in range(1, len(REGIONS)) for c in range(n_layers) if c != a]
            for region, c in regions:
                values = {"check": index, "primary": a, "secondary": b, "number": number, "metric": m,
                          "region": region, "region_layer": c}
                if (compiled := slot_expression(template, values)) is not None and compiled[0] not in seen:
                    seen[compiled[0]] = Candidate(tuple(values.items()), compiled[0], frozenset(compiled[1]))
    return list(seen.values())


def named_by_gold(candidate: Candidate, gold: str) -> bool:
    name = CHECKS[dict(candidate.values)["check"]].name
    return any(token in gold for token in ALIASES.get(name, (f".{name}(", f".{name}\n", f".{name}.")))


def verdicts(pool: DrcPool, template: Template, pending: list[Candidate], layouts: list) -> list[list[int] | None]:
    """Per candidate, its verdict on each layout (None where it fails to run), many candidates per deck."""
    chunks = [pending[i:i + CHUNK] for i in range(0, len(pending), CHUNK)]
    jobs = [DrcJob(deck(template, [(f"k{i}", c.expression, set(c.layers)) for i, c in enumerate(chunk)]), layouts)
            for chunk in chunks]
    found: list[list[int] | None] = []
    for chunk, results in zip(chunks, pool.run_batch(jobs)):
        if all(r.ok for r in results):
            found += [[int(_count(r, f"k{i}") > 0) for r in results] for i in range(len(chunk))]
        elif len(chunk) == 1:
            found.append(None)
        else:  # one candidate fails: find it by halves
            found += verdicts(pool, template, chunk[:len(chunk) // 2], layouts)
            found += verdicts(pool, template, chunk[len(chunk) // 2:], layouts)
    return found


def _count(result: DrcResult, category: str) -> int:
    return result.counts.get(category, 0)


def search(pool: DrcPool, task: DrcTask, template: Template, pending: list[Candidate], category: str
           ) -> list[Candidate]:
    """The candidates whose verdicts equal the labels of ``category`` on every hidden layout."""
    cases = task.hidden_testcases
    failing = [i for i, c in enumerate(cases) if c.labels[category]][:2]
    passing = [i for i, c in enumerate(cases) if not c.labels[category]][:2]
    first = failing + passing
    survivors = pending
    for picked in (first, [i for i in range(len(cases)) if i not in first]):
        if not survivors or not picked:
            continue
        labels = [cases[i].labels[category] for i in picked]
        got = verdicts(pool, template, survivors, [cases[i].gds for i in picked])
        survivors = [c for c, v in zip(survivors, got) if v == labels]
    return survivors


def action_of(choices: list[Candidate]) -> np.ndarray:
    action = np.zeros(len(NVEC), np.int64)
    for slot, candidate in enumerate(choices):
        for name, value in candidate.values:
            action[slot * len(SLOT_FIELDS) + SLOT_FIELDS.index(name)] = value
    return action


def in_mask(action: np.ndarray, mask: np.ndarray) -> bool:
    offsets = np.concatenate([[0], np.cumsum(NVEC)[:-1]])
    return bool(all(mask[offset + value] for offset, value in zip(offsets, action)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds for stage 2 (exhaustive)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--groups", nargs="*", default=["sky130", "synthetic", "syntax"])
    args = parser.parse_args()
    start = time.perf_counter()
    tasks = [t for t in build_suite("drc-v0") if t.group in args.groups]
    templates = {t.id: Template(dict(t.layers), tuple(t.categories), rule_text(t)) for t in tasks}
    found: dict[tuple[str, str], list[Candidate]] = {}
    spaces = {t.id: candidates(templates[t.id]) for t in tasks}
    cut: set[str] = set()
    with DrcPool(workers=args.workers, timeout=120.0) as pool:
        for task in tasks:  # stage 1: guided by the gold deck's text
            gold = task.gold_deck
            named = [c for c in spaces[task.id] if named_by_gold(c, gold)]
            for category in task.categories[:SLOTS]:
                found[task.id, category] = search(pool, task, templates[task.id], named, category)
        print(f"stage 1 (guided) done at {time.perf_counter() - start:.0f} s", flush=True)
        stage2 = time.perf_counter()
        for task in tasks:  # stage 2: the rest of the space, for the categories not expressed yet
            left = [c for c in task.categories[:SLOTS] if not found[task.id, c]]
            if len(task.categories) > SLOTS or not left:
                continue
            if time.perf_counter() - stage2 > args.budget:
                cut.add(task.id)
                continue
            gold = task.gold_deck
            rest = [c for c in spaces[task.id] if not named_by_gold(c, gold)]
            for category in left:
                found[task.id, category] = search(pool, task, templates[task.id], rest, category)
        print(f"stage 2 (exhaustive) done at {time.perf_counter() - start:.0f} s; {len(cut)} tasks cut by "
              f"the budget", flush=True)
        rows: Counter = Counter()
        for task in tasks:
            rows[task.group, "tasks"] += 1
            choices = [found.get((task.id, c), []) for c in task.categories]
            if len(task.categories) > SLOTS or not all(choices):
                continue
            template = templates[task.id]
            mask = action_mask(template)
            options = [action_of(list(pick)) for pick in itertools.islice(itertools.product(*choices), 64)]
            masked = [a for a in options if in_mask(a, mask)]
            action = (masked or options)[0]
            if grade(task, compile_deck(template, action), pool).success:
                rows[task.group, "expressible"] += 1
                rows[task.group, "in mask"] += bool(masked)
            else:
                print(f"{task.id}: the action found does not verify", flush=True)
    exact = "exact" if not cut else "a lower bound"
    print(f"\nTemplate ceiling on drc-v0 ({exact}; {time.perf_counter() - start:.0f} s)")
    print(f"{'group':<10} {'tasks':>5} {'expressible':>11} {'in mask':>7} {'ceiling':>7}")
    for group in args.groups:
        n, e, m = rows[group, "tasks"], rows[group, "expressible"], rows[group, "in mask"]
        print(f"{group:<10} {n:>5} {e:>11} {m:>7} {e / max(n, 1):>7.1%}")
    n, e, m = (sum(rows[g, k] for g in args.groups) for k in ("tasks", "expressible", "in mask"))
    print(f"{'all':<10} {n:>5} {e:>11} {m:>7} {e / max(n, 1):>7.1%}")


if __name__ == "__main__":
    main()
