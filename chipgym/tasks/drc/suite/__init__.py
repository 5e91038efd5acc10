"""Built-in suites (:mod:`chipgym.tasks.drc.suites`) as datasets: generated, labelled once, then only read.

Generation (:func:`generate_drafts`) is pure Python and deterministic for a seed.
Labels need KLayout: :func:`label_draft` runs the gold deck on every scene (the evaluation layouts) and on the
public examples and training layouts, through an injected ``run_deck``. Those are, as the suite says
(``Suite.pools``), redraws of the evaluation scenes (drc-v0, drc-v1: :mod:`~chipgym.tasks.drc.suite.redraw`) or
independent draws of the task's own generators (:mod:`~chipgym.tasks.drc.suite.draws`).
:func:`build_suite` is the one caller of the generators: it writes each labelled task to the suite's
artifact, ``<cache_dir>/<name>-seed<seed>-<fingerprint>-<pools format>/tasks/<id>.json`` and ``.gds``
(:mod:`chipgym.tasks.drc.artifact`), as soon as it is labelled (an interrupted build resumes), beside
``manifest.yaml`` (:func:`manifest`: counts, task ids and the DSL methods the gold decks use), and reads the
tasks back from there. The fingerprint hashes every deck and scene and the KLayout version, so a generator
change or another KLayout never reuses stale labels; a frozen suite pins it (``Suite.fingerprint``), so its
artifact is found, and read, without generating anything.

>>> drafts = generate_drafts(SUITE_SEED)
>>> len(drafts) >= 300, sorted({d.group for d in drafts})
(True, ['sky130', 'syntax', 'synthetic'])
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import random
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

import yaml
from tqdm import tqdm

from chipgym.cache import default_cache
from chipgym.engines.klayout import klayout_version
from chipgym.tasks.drc import artifact
from chipgym.tasks.drc.dsl import dsl_methods_used
from chipgym.tasks.drc.labels import LabellingError, discriminates, label_layouts, pick_public
from chipgym.tasks.drc.rule2drc import testcase_filename
from chipgym.tasks.drc.runner import RunDeck, VerdictPool
from chipgym.tasks.drc.suite.draws import DRAW_FORMAT, drawing
from chipgym.tasks.drc.suite.layouts import Scene, gds_scene, scene_gds
from chipgym.tasks.drc.suite.redraw import REDRAW_FORMAT, congruence_key, parts_key, redraw
from chipgym.tasks.drc.suite.rule import TaskDraft
from chipgym.tasks.drc.suites import Suite, get_suite
from chipgym.tasks.drc.task import DrcTask, Testcase

SUITE_NAME = "drc-v0"
SUITE_SEED = 20250101
"""Public seed of ``drc-v0`` (not a grading secret: hidden layouts are generated too)."""
N_PUBLIC = 4
PUBLIC_DRAWS = 16  # scenes redrawn to pick the public examples from
TRAINING_ROUNDS = 3  # redraws of every scene in the training pool: several times the evaluation layouts
MORE_ROUNDS = 3  # drawn at most besides while a category has no passing or no failing training layout
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
                  d.layers, tuple(suite.revise(r) for r in d.rules),
                  d.metadata)
        for d in drafts
    ]


class TaughtLayouts(Protocol):
    """Where a task's public examples and training layouts come from."""

    def sample(self, count: int, tag: str) -> list[tuple[str, bytes]]:
        """``count`` layouts of the round ``tag`` (every one of the round when ``count`` is the number of
        evaluation scenes), as named GDS streams; none of them an evaluation layout (see :func:`label_draft`)."""
        ...


Pools = Callable[[TaskDraft, Mapping[str, tuple[int, int]]], TaughtLayouts]


def label_draft(draft: TaskDraft, run_deck: RunDeck, seed: int = SUITE_SEED, pools: Pools | None = None) -> DrcTask:
    """Run the gold deck on the draft's scenes (the evaluation layouts) and on the layouts ``pools`` gives
    (redraws of the scenes by default, :func:`redraws`): a few become the public examples, and
    ``TRAINING_ROUNDS`` rounds of as many layouts as scenes (more while a category lacks a passing or a failing
    one) the training layouts. No public or training layout is an evaluation layout: a redraw is not made of one's
    shapes (``redraw.parts_key``), a draw is not congruent to one (:class:`Draws`)."""
    deck, categories = draft.deck(), draft.categories()
    layers = draft.rule_layers()
    scenes = draft.scenes()
    hidden = label_layouts(deck, [(opaque_name(draft.id, s.name), scene_gds(s, layers)) for s in scenes],
                           categories, run_deck)
    if lacking := discriminates(hidden, categories):
        raise LabellingError(f"{draft.id}: no passing or no failing layout for {lacking}")
    taught = (pools or redraws(seed))(draft, layers)
    public = pick_public(label_layouts(deck, taught.sample(PUBLIC_DRAWS, "public"), categories, run_deck),
                         random.Random(f"{seed}/{draft.id}"), N_PUBLIC)
    training: list[Testcase] = []
    for draw in range(TRAINING_ROUNDS + MORE_ROUNDS):
        if draw >= TRAINING_ROUNDS and not discriminates(training, categories):
            break
        training += label_layouts(deck, taught.sample(len(scenes), f"train{draw}"), categories, run_deck)
    metadata = {**draft.metadata, "dsl_methods": sorted(dsl_methods_used(deck))}
    if lacking := discriminates(training, categories):
        metadata["training_lacking"] = lacking
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
        training_testcases=tuple(sorted(training, key=lambda c: c.name)),
        group=draft.group,
        thresholds=draft.thresholds(),
        split=draft.split,  # type: ignore[arg-type]
        metadata=metadata,
        built=True,
    )


class _Redraws:
    """Redraws of a task's scenes, none made of the same shapes as one of them, as named GDS streams."""

    TRIES = 8  # redraws of a scene before it is left out (only a scene with no gap to change needs them all)

    def __init__(self, task_id: str, scenes: Sequence[Scene], layers: dict[str, tuple[int, int]],
                 rng: random.Random):
        self.task_id, self.scenes, self.layers, self.rng = task_id, list(scenes), layers, rng
        self.evaluation = {parts_key(scene) for scene in scenes}

    def sample(self, count: int, tag: str) -> list[tuple[str, bytes]]:
        """``count`` scenes (all of them, in order, when ``count`` is their number) redrawn once each."""
        chosen = self.scenes if count >= len(self.scenes) else self.rng.sample(self.scenes, count)
        drawn = []
        for scene in chosen:
            name = opaque_name(self.task_id, f"{scene.name}/{tag}")
            for _ in range(self.TRIES):
                new = redraw(scene, self.rng, name)
                if parts_key(new) not in self.evaluation:
                    drawn.append((name, scene_gds(new, self.layers)))
                    break
        return drawn


class Draws:
    """Independent draws of a task's scenes (:mod:`~chipgym.tasks.drc.suite.draws`): each round is the suite
    generated again inside its own draw; a drawn scene that is an evaluation scene (the same layout turned,
    mirrored or moved, ``redraw.congruence_key``) is left out. One made of the same shapes at other distances
    is kept: nothing of it was computed from an evaluation scene, and a family of fixed shapes (vias of the
    rule's size) can be drawn no other way."""

    def __init__(self, name: str, seed: int, draft: TaskDraft, layers: Mapping[str, tuple[int, int]]):
        self.name, self.seed, self.task_id, self.layers = name, seed, draft.id, dict(layers)
        self.evaluation = {congruence_key(scene) for scene in draft.scenes()}
        self.rng = random.Random(f"{seed}/{draft.id}/draw")

    def sample(self, count: int, tag: str, stated_offsets: bool = False) -> list[tuple[str, bytes]]:
        scenes = drawn_scenes(self.name, self.seed, tag, stated_offsets)[self.task_id]
        chosen = scenes if count >= len(scenes) else self.rng.sample(scenes, count)
        return [(opaque_name(self.task_id, f"{scene.name}/{tag}"), scene_gds(scene, self.layers))
                for scene in chosen if congruence_key(scene) not in self.evaluation]


@functools.lru_cache(maxsize=8)
def drawn_scenes(name: str, seed: int, tag: str, stated_offsets: bool = False) -> dict[str, list[Scene]]:
    """Every task's scenes in the draw ``tag`` of a suite (its generators run inside ``drawing``), by task id."""
    with drawing(f"{name}/{seed}/{tag}", stated_offsets):
        return {draft.id: draft.scenes() for draft in generate_drafts(seed, name)}


def fresh_draw(suite: str, draft: TaskDraft, task: DrcTask, run_deck: RunDeck, tag: str = "fresh",
               stated_offsets: bool = False) -> list[Testcase]:
    """A draw of the task's own generators (``tag``: a round no pool uses) that neither of its pools holds (no scene
    congruent to an evaluation or a taught layout), labelled by its gold deck: layouts of the task that nothing it
    teaches tells about. With ``stated_offsets`` their features sit 1 dbu from each threshold, as the evaluation
    scenes' do (a private evaluation set, :func:`build_private`, and the rule-free learner's control)."""
    taught = {congruence_key(gds_scene(c.name, c.gds_bytes())) for c in task.public_examples + task.training_testcases}
    drawn = Draws(suite, get_suite(suite).seed, draft, draft.rule_layers()).sample(len(draft.scenes()), tag,
                                                                                    stated_offsets)
    fresh = [(name, gds) for name, gds in drawn if congruence_key(gds_scene(name, gds)) not in taught]
    return label_layouts(draft.deck(), fresh, draft.categories(), run_deck)


def suite_pools(suite: Suite, seed: int) -> Pools:
    """How ``suite`` makes its public examples and training layouts (``Suite.pools``)."""
    if suite.pools == "drawn":
        return lambda draft, layers: Draws(suite.name, seed, draft, layers)
    return redraws(seed)


def redraws(seed: int) -> Pools:
    """Public examples and training layouts redrawn from the evaluation scenes (drc-v0, drc-v1)."""
    return lambda draft, layers: _Redraws(draft.id, draft.scenes(), layers, random.Random(f"{seed}/{draft.id}/redraw"))


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
        "pools": pools_format(get_suite(name)),
        "ids": [d.id for d in drafts],
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
    """Labelled tasks of a suite (all, or those in ``ids``), read from its dataset artifact.

    A frozen suite under its own seed is found by its pinned fingerprint, so loading it runs no generator;
    a task not built yet is generated and labelled (without ``run_deck``, by a
    :class:`~chipgym.tasks.drc.runner.VerdictPool` of ``jobs`` workers) and written to the artifact first.
    """
    suite = get_suite(name)
    seed = suite.seed if seed is None else seed
    pinned = suite.fingerprint if seed == suite.seed else None
    drafts: list[TaskDraft] | None = None
    if pinned is None:
        drafts = generate_drafts(seed, name)
    root = Path(cache_dir or default_cache_dir()) / artifact_name(name, seed, pinned or fingerprint(drafts))
    pins = suite.pinned_content() if pinned is not None else None
    if pins is not None and (unknown := [i for i in ids or () if i not in pins]):
        raise ValueError(f"{name}: no task {unknown[0]!r} (of {len(pins)})")
    wanted = list(ids) if ids is not None else list(pins) if pins is not None else _artifact_ids(root)
    if wanted is None or not all(artifact.has_task(root / "tasks", i) for i in wanted):
        drafts = drafts or generate_drafts(seed, name)
        if pinned is not None and (found := fingerprint(drafts)) != pinned:
            raise LabellingError(f"{name}: its generators give fingerprint {found}, not the pinned {pinned}: a "
                                 "change to a shared building block altered a frozen suite, or KLayout is not "
                                 f"the version it was pinned with ({klayout_version()})")
        if not (root / "manifest.yaml").is_file():
            root.mkdir(parents=True, exist_ok=True)
            (root / "manifest.yaml").write_text(yaml.safe_dump(manifest(drafts, name, seed), sort_keys=False))
        pools = suite_pools(suite, seed)
        _build(drafts, root, name, run_deck, jobs, ids, lambda draft, engine: label_draft(draft, engine, seed, pools))
        wanted = [d.id for d in drafts if ids is None or d.id in ids]
    return [artifact.read_task(root / "tasks", task_id, pins and pins[task_id]) for task_id in wanted]


def build_private(
    name: str,
    secret: int,
    run_deck: RunDeck | None = None,
    cache_dir: str | Path | None = None,
    jobs: int = 2,
    ids: Sequence[str] | None = None,
) -> list[DrcTask]:
    """A suite's tasks (all, or those in ``ids``) with a private evaluation set: each task's evaluation layouts
    are a draw of its generators under the grading ``secret`` (free dimensions drawn, features 1 dbu from each
    threshold as in the public scenes: :func:`fresh_draw`; offsets drawn too in further rounds while a category
    lacks a passing or a failing layout), none of them a public evaluation scene or a taught layout; its text,
    gold deck, public examples and training layouts are the public version's. Nothing in chipgym's code or in the
    public dataset tells about them, so a campaign's figures on them mean skill even against an agent that
    regenerates the public suite. A task whose generators draw nothing else (a lone shape of a tiny exact size) has
    no private set and is left out, with a message. Built once per secret, in a folder of its own (named by a
    hash of the secret that is not the draw's seed) readable by its owner only."""
    suite = get_suite(name)
    by_id = {task.id: task for task in build_suite(name, run_deck=run_deck, cache_dir=cache_dir, jobs=jobs, ids=ids)}
    drafts = generate_drafts(suite.seed, name)
    public = artifact_name(name, suite.seed, fingerprint(drafts))
    root = Path(cache_dir or default_cache_dir()) / f"{public}-private-{_secret_digest(secret, 'folder')}"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    tag = f"private-{_secret_digest(secret, 'draw')}"
    drawn_scenes(name, suite.seed, tag, stated_offsets=True)  # once, before the threads that read it (the first round)
    _build(drafts, root, name, run_deck, jobs, list(by_id),
           lambda draft, engine: _private_evaluation(name, by_id[draft.id], draft, engine, tag), " --private")
    tasks = [artifact.read_task(root / "tasks", task_id) for task_id in by_id]
    if lacking := [task.id for task in tasks if not task.hidden_testcases]:
        print(f"{name}: {len(lacking)} of {len(tasks)} tasks have no private evaluation set (every layout their "
              f"generators draw for a category is a public or a taught one) and are left out: "
              f"{', '.join(lacking[:8])}{' ...' if len(lacking) > 8 else ''}", file=sys.stderr)
    return [task for task in tasks if task.hidden_testcases]


def _private_evaluation(name: str, task: DrcTask, draft: TaskDraft, run_deck: RunDeck, tag: str) -> DrcTask:
    """``task`` with its evaluation layouts drawn under ``tag``, more rounds while a category lacks a passing or a
    failing one; those with drawn offsets too, since a family with no free dimension but its offsets draws only
    public scenes at 1 dbu, which no private set may hold."""
    hidden: list[Testcase] = []
    for round_ in range(MORE_ROUNDS + 1):
        hidden += fresh_draw(name, draft, task, run_deck, f"{tag}/{round_}" if round_ else tag,
                             stated_offsets=round_ == 0)
        if not (lacking := discriminates(hidden, task.categories)):
            by_file = lambda c: testcase_filename(task.id, c)  # noqa: E731  (the order of labels.csv)
            return dataclasses.replace(task, hidden_testcases=tuple(sorted(hidden, key=by_file)))
    # Every layout its generators draw for these categories is a public or a taught one (a lone shape of a tiny
    # exact size): the task has no private evaluation, and is kept with none, to be left out by build_private.
    return dataclasses.replace(task, hidden_testcases=(), metadata={**task.metadata, "private_lacking": lacking})


def _secret_digest(secret: int, purpose: str) -> str:
    """A hash of the grading secret for one ``purpose``: the private draw's seed, or its folder's name (which so
    does not give the draw)."""
    return hashlib.sha256(f"chipgym-drc-private/{purpose}/{secret}".encode()).hexdigest()[:16]


def pin_suite(name: str, cache_dir: str | Path | None = None) -> Path:
    """Pins the content of a frozen suite's built artifact (every task, in build order) in
    ``Suite.pins_path``, which loads then check; returns that path. Run once, when the suite is frozen."""
    suite = get_suite(name)
    if not suite.frozen or suite.fingerprint is None:
        raise ValueError(f"{name}: only a frozen suite, with its fingerprint pinned, has its content pinned")
    root = Path(cache_dir or default_cache_dir()) / artifact_name(name, suite.seed, suite.fingerprint)
    ids = _artifact_ids(root)
    if ids is None or not all(artifact.has_task(root / "tasks", i) for i in ids):
        raise ValueError(f"{name}: not fully built in {root} (chipgym drc build {name})")
    lines = [f"{artifact.content_hash(root / 'tasks', task_id)}  {task_id}\n" for task_id in ids]
    suite.pins_path.write_text("".join(lines))
    return suite.pins_path


def artifact_name(name: str, seed: int, evaluation_fingerprint: str) -> str:
    """The folder of a suite's artifact: its evaluation layouts' fingerprint and the format of its public and
    training pools."""
    return f"{name}-seed{seed}-{evaluation_fingerprint}-{pools_format(get_suite(name))}"


def pools_format(suite: Suite) -> str:
    """``r<redraw format>`` or ``d<draw format>``: how the suite's pools are made, and that maker's version."""
    return f"d{DRAW_FORMAT}" if suite.pools == "drawn" else f"r{REDRAW_FORMAT}"


def _artifact_ids(root: Path) -> list[str] | None:
    """Every task id of a built artifact, from its manifest (None when it has none yet)."""
    try:
        return list(yaml.safe_load((root / "manifest.yaml").read_text())["ids"])
    except (OSError, KeyError, TypeError, yaml.YAMLError):
        return None


def _build(drafts: Sequence[TaskDraft], root: Path, name: str, run_deck: RunDeck | None, jobs: int,
           ids: Sequence[str] | None, label: Callable[[TaskDraft, RunDeck], DrcTask], command: str = "") -> None:
    """Labels the drafts (those in ``ids``) not in the artifact yet with ``label``, each written as soon as it is
    labelled (``chipgym drc build <name> <command>`` builds them all)."""
    todo = [d for d in drafts if (ids is None or d.id in ids) and not artifact.has_task(root / "tasks", d.id)]
    if not todo:
        return
    built = sum(1 for d in drafts if artifact.has_task(root / "tasks", d.id))
    print(f"{name}: {len(todo)} task(s) asked for are not built yet ({built} of {len(drafts)} are, in {root}); "
          f"building them now (`chipgym drc build {name}{command}` builds them all once)", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        engine = run_deck or stack.enter_context(VerdictPool(workers=jobs)).run_deck
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            labelled = pool.map(lambda d: artifact.write_task(label(d, engine), root / "tasks"), todo)
            list(tqdm(labelled, total=len(todo), desc=f"building {name}", unit="task", file=sys.stderr))
