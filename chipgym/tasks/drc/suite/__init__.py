"""Built-in suites (:mod:`chipgym.tasks.drc.suites`): seeded task generation, labelling and an on-disk cache.

Generation (:func:`generate_drafts`) is pure Python and deterministic for a seed.
Labels need KLayout: :func:`label_draft` runs the gold deck on every scene through
an injected ``run_deck``.  :func:`build_suite` caches labelled tasks in Rule2DRC
format under ``<cache_dir>/<name>-seed<seed>-<fingerprint>/problems/<id>``, one
folder per task written as soon as it is labelled (an interrupted build resumes), next
to ``manifest.yaml`` (:func:`manifest`: counts and the DSL methods the gold decks use).
The fingerprint hashes every deck and scene and the KLayout version, so a generator
change or another KLayout never reuses stale labels.

>>> drafts = generate_drafts(SUITE_SEED)
>>> len(drafts) >= 300, sorted({d.group for d in drafts})
(True, ['sky130', 'syntax', 'synthetic'])
"""
from __future__ import annotations

import contextlib
import hashlib
import random
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import yaml
from tqdm import tqdm

from chipgym.cache import default_cache
from chipgym.engines.klayout import klayout_version
from chipgym.tasks.drc.dsl import dsl_methods_used
from chipgym.tasks.drc.labels import LabellingError, discriminates, label_layouts, pick_public
from chipgym.tasks.drc.rule2drc import load_rule2drc, testcase_filename, write_rule2drc
from chipgym.tasks.drc.runner import RunDeck, VerdictPool
from chipgym.tasks.drc.suite.layouts import scene_gds
from chipgym.tasks.drc.suite.rule import TaskDraft
from chipgym.tasks.drc.suites import get_suite
from chipgym.tasks.drc.task import DrcTask

SUITE_NAME = "drc-v0"
SUITE_SEED = 20250101
"""Public seed of ``drc-v0`` (not a grading secret: hidden layouts are generated too)."""
N_PUBLIC = 4
LABEL_FORMAT = 3  # 3: labelled by the sandboxed DrcPool (KLayout's own _finish)
"""Bump when labelling or the public/hidden choice changes (part of the cache key)."""


def generate_drafts(seed: int | None = None, name: str = SUITE_NAME) -> list[TaskDraft]:
    """All unlabelled tasks of a suite (under its own seed by default), with a deterministic train/test ``split``."""
    suite = get_suite(name)
    rng = random.Random(suite.seed if seed is None else seed)
    drafts = [d for group in suite.groups for d in group(random.Random(rng.random()))]
    if short := [d.id for d in drafts if len(d.scenes()) < suite.min_hidden]:
        raise ValueError(f"{name}: fewer than {suite.min_hidden} hidden layouts in {', '.join(short[:5])}")
    split_rng = random.Random(rng.random())
    return [
        TaskDraft(d.id, d.title, d.group, "test" if split_rng.random() < suite.test_fraction else "train",
                  d.layers, d.rules, d.metadata)
        for d in drafts
    ]


def label_draft(draft: TaskDraft, run_deck: RunDeck, seed: int = SUITE_SEED) -> DrcTask:
    """Run the gold deck on the draft's scenes (hidden testcases) and on mirrored copies of
    them, a few of which become the public examples (so public and hidden never share a layout)."""
    deck, categories = draft.deck(), draft.categories()
    layers = {n: draft.layers[n] for n in sorted({layer for r in draft.rules for layer in r.layers})}
    scenes = draft.scenes()
    copies = [s.mirrored(f"{s.name}_pub") for s in scenes]
    named = [(opaque_name(draft.id, s.name), scene_gds(s, layers)) for s in scenes + copies]
    cases = label_layouts(deck, named, categories, run_deck)
    hidden, mirrored = cases[: len(scenes)], cases[len(scenes) :]
    lacking = discriminates(hidden, categories)
    if lacking:
        raise LabellingError(f"{draft.id}: no passing or no failing layout for {lacking}")
    public = pick_public(mirrored, random.Random(f"{seed}/{draft.id}"), N_PUBLIC)
    by_file = lambda c: testcase_filename(draft.id, c)  # noqa: E731  (the order of labels.csv)
    return DrcTask(
        id=draft.id,
        title=draft.title,
        description=draft.description(),
        layers=layers,
        rules=tuple((r.text, r.category) for r in draft.rules),
        categories=categories,
        gold_deck=deck,
        public_examples=tuple(sorted(public, key=by_file)),
        hidden_testcases=tuple(sorted(hidden, key=by_file)),
        group=draft.group,
        thresholds=draft.thresholds(),
        split=draft.split,  # type: ignore[arg-type]
        metadata={**draft.metadata, "dsl_methods": sorted(dsl_methods_used(deck))},
    )


def opaque_name(task_id: str, scene_name: str) -> str:
    """A testcase name that does not reveal which corner case the layout probes."""
    return "t" + hashlib.sha256(f"{task_id}/{scene_name}".encode()).hexdigest()[:12]


def fingerprint(drafts: Sequence[TaskDraft]) -> str:
    """A short hash of every deck and scene, of the labelling version and of the KLayout that labels them
    (the cache key besides name and seed): labels made by one KLayout are never served under another."""
    h = hashlib.sha256(f"labels-v{LABEL_FORMAT}/public{N_PUBLIC}/{klayout_version()}".encode())
    for d in drafts:
        h.update(repr((d.id, d.split, d.deck(), d.description(), d.scenes())).encode())
    return h.hexdigest()[:12]


def manifest(drafts: Sequence[TaskDraft], name: str = SUITE_NAME, seed: int | None = None) -> dict:
    """Machine-readable summary: task counts per group/split and DSL methods used (computed from the decks)."""
    usage = Counter(m for d in drafts for m in dsl_methods_used(d.deck()))
    return {
        "suite": name,
        "seed": get_suite(name).seed if seed is None else seed,
        "fingerprint": fingerprint(drafts),
        "engine": klayout_version(),
        "tasks": {g: sum(d.group == g for d in drafts) for g in sorted({d.group for d in drafts})},
        "splits": {s: sum(d.split == s for d in drafts) for s in ("train", "test")},
        "dsl_methods": {m: usage[m] for m in sorted(usage)},
    }


def default_cache_dir() -> Path:
    """``$CHIPGYM_CACHE/drc`` or ``~/.cache/chipgym/drc``: in the cache, never evicted (:mod:`chipgym.cache`)."""
    return default_cache().folder("drc")


def build_suite(
    name: str = SUITE_NAME,
    seed: int | None = None,
    run_deck: RunDeck | None = None,
    cache_dir: str | Path | None = None,
    jobs: int = 2,
    ids: Sequence[str] | None = None,
) -> list[DrcTask]:
    """Labelled tasks of a suite (all, or those in ``ids``), computed once and cached on disk.

    Without ``run_deck`` a :class:`~chipgym.tasks.drc.runner.VerdictPool` is started when
    some task is not cached yet.
    """
    seed = get_suite(name).seed if seed is None else seed
    every = generate_drafts(seed, name)
    drafts = [d for d in every if ids is None or d.id in ids]
    root = Path(cache_dir or default_cache_dir()) / f"{name}-seed{seed}-{fingerprint(every)}"
    if not (root / "manifest.yaml").is_file():
        root.mkdir(parents=True, exist_ok=True)
        (root / "manifest.yaml").write_text(yaml.safe_dump(manifest(every, name, seed), sort_keys=False))
    todo = [d for d in drafts if not (root / "problems" / d.id / "spec.yaml").is_file()]
    if todo:
        with contextlib.ExitStack() as stack:
            engine = run_deck or stack.enter_context(VerdictPool(workers=jobs)).run_deck
            with ThreadPoolExecutor(max(1, jobs)) as pool:
                labelled = pool.map(lambda d: write_rule2drc([label_draft(d, engine, seed)], root), todo)
                list(tqdm(labelled, total=len(todo), desc=f"labelling {name}", unit="task", file=sys.stderr))
    return [load_rule2drc(root / "problems" / d.id, strict=True).tasks[0] for d in drafts]
