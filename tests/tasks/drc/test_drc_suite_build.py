"""The drc-v0 suite: size, determinism, DSL coverage, labels reproduced by real KLayout runs."""
from __future__ import annotations

from collections import Counter

from chipgym.tasks.drc import suite
from chipgym.tasks.drc.dsl import dsl_methods, dsl_methods_used, unsupported_methods
from chipgym.tasks.drc.rule2drc import load_rule2drc, write_rule2drc
from chipgym.tasks.drc.suite import SUITE_SEED, build_suite, fingerprint, generate_drafts, label_draft, manifest
from chipgym.tasks.drc.suites import get_suite, suite_names


def test_suite_size_and_groups():
    counts = Counter(d.group for d in generate_drafts(SUITE_SEED))
    assert sum(counts.values()) >= 300
    assert set(counts) == {"sky130", "synthetic", "syntax"} and min(counts.values()) >= 90
    splits = Counter(d.split for d in generate_drafts(SUITE_SEED))
    assert splits["train"] > splits["test"] > 0


def test_generation_is_deterministic():
    a, b = generate_drafts(SUITE_SEED), generate_drafts(SUITE_SEED)
    assert a == b and fingerprint(a) == fingerprint(b)
    assert fingerprint(generate_drafts(SUITE_SEED + 1)) != fingerprint(a)


def test_the_fingerprint_names_the_klayout_that_labels(monkeypatch):
    drafts = generate_drafts(SUITE_SEED)
    here = fingerprint(drafts)
    monkeypatch.setattr(suite, "klayout_version", lambda: "KLayout 0.30.12")
    assert fingerprint(drafts) != here


def test_decks_stay_in_klayout_0_28_5_dsl():
    drafts = generate_drafts(SUITE_SEED)
    used = set().union(*(dsl_methods_used(d.deck()) for d in drafts))
    assert len(used) >= 80
    assert used <= dsl_methods()
    assert not any(unsupported_methods(d.deck()) for d in drafts)
    assert set(manifest(drafts)["dsl_methods"]) == used


def test_rule_text_varies_between_tasks():
    drafts = [d for d in generate_drafts(SUITE_SEED) if d.group == "sky130"]
    openings = Counter(d.rules[0].text.split()[0] for d in drafts)
    assert len(openings) >= 10


def test_every_category_has_passing_and_failing_hidden_layouts(labelled_slice, slice_ids):
    assert [t.id for t in labelled_slice] == slice_ids
    for task in labelled_slice:
        for category in task.categories:
            assert {c.labels[category] for c in task.hidden_testcases} == {0, 1}, (task.id, category)
        assert task.public_examples and not ({c.gds_bytes() for c in task.public_examples}
                                             & {c.gds_bytes() for c in task.hidden_testcases})
        assert not hasattr(task.agent_view(), "hidden_testcases")


def test_gold_decks_reproduce_cached_labels(labelled_slice, pool, tmp_path):
    for task in labelled_slice:
        cases = task.hidden_testcases + task.public_examples
        paths = []
        for i, case in enumerate(cases):
            paths.append(tmp_path / f"{task.id}_{i}.gds")
            paths[-1].write_bytes(case.gds_bytes())
        verdicts = pool.run_deck(task.gold_deck, paths)
        for case, verdict in zip(cases, verdicts):
            assert {c: int(verdict.get(c, 0) > 0) for c in task.categories} == dict(case.labels), (task.id, case.name)


def test_labelling_is_deterministic_and_cache_round_trips(labelled_slice, pool, suite_cache, tmp_path):
    draft = next(d for d in generate_drafts(SUITE_SEED) if d.id == labelled_slice[0].id)
    fresh = label_draft(draft, pool.run_deck)
    assert fresh == labelled_slice[0]
    again = write_rule2drc([fresh], tmp_path / "again")
    cached = next(suite_cache.glob("drc-v0-*")) / "problems" / draft.id
    files = sorted(p.relative_to(cached) for p in cached.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again / draft.id) for p in (again / draft.id).rglob("*") if p.is_file())
    assert all((cached / f).read_bytes() == (again / draft.id / f).read_bytes() for f in files)
    assert (cached.parent.parent / "manifest.yaml").is_file()
    reloaded = build_suite(seed=SUITE_SEED, run_deck=None, cache_dir=suite_cache, ids=[draft.id])
    assert reloaded[0] == load_rule2drc(cached).tasks[0]


def test_frozen_suites_keep_their_fingerprint():
    """A frozen suite is reproducible: no change to a group module, a building block or labelling may alter
    a deck, a scene, a split or a text of it (the fingerprint also covers the KLayout version, 0.28.5)."""
    pinned = {"drc-v0": "9f614427cb26", "drc-v1": "964d7c1c4aa6"}
    assert {name for name in suite_names() if get_suite(name).frozen} == set(pinned)
    for name, expected in pinned.items():
        assert fingerprint(generate_drafts(name=name)) == expected, f"{name} changed"
