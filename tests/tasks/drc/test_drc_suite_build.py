"""The drc-v0 suite: size, determinism, DSL coverage, labels reproduced by real KLayout runs."""
from __future__ import annotations

from collections import Counter

from chipgym.tasks.drc import suite
from chipgym.tasks.drc.dsl import dsl_methods, dsl_methods_used, unsupported_methods
from chipgym.tasks.drc.suite import SUITE_SEED, build_suite, fingerprint, generate_drafts, label_draft, manifest
from chipgym.tasks.drc.suite.layouts import gds_scene
from chipgym.tasks.drc.suite.redraw import congruence_key
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


def test_labelling_is_deterministic_and_the_artifact_round_trips(labelled_slice, pool, suite_cache):
    draft = next(d for d in generate_drafts(SUITE_SEED) if d.id == labelled_slice[0].id)
    assert label_draft(draft, pool.run_deck) == labelled_slice[0]
    [root] = suite_cache.glob("drc-v0-*")
    assert (root / "manifest.yaml").is_file() and (root / "tasks" / f"{draft.id}.json").is_file()
    assert build_suite(seed=SUITE_SEED, run_deck=None, cache_dir=suite_cache, ids=[draft.id]) == [labelled_slice[0]]


def test_a_built_frozen_suite_loads_without_running_a_generator(labelled_slice, suite_cache, monkeypatch):
    def no_generator(*_):
        raise AssertionError("a generator ran")

    monkeypatch.setattr(suite, "generate_drafts", no_generator)
    ids = [task.id for task in labelled_slice]
    assert build_suite(run_deck=no_generator, cache_dir=suite_cache, ids=ids) == labelled_slice


def test_the_three_pools_are_disjoint_up_to_congruence(labelled_slice):
    """No public example or training layout is an evaluation layout turned, mirrored or moved (the signature a
    hostile deck would compute to recognise one); training holds several times the evaluation layouts, with a
    passing and a failing one for every category."""
    for task in labelled_slice:
        key = lambda case: congruence_key(gds_scene(case.name, case.gds_bytes()))  # noqa: E731
        evaluation = {key(case) for case in task.hidden_testcases}
        taught = [key(case) for case in task.public_examples + task.training_testcases]
        assert not evaluation & set(taught), task.id
        assert len(task.training_testcases) >= 3 * len(task.hidden_testcases), task.id
        for category in task.categories:
            assert {case.labels[category] for case in task.training_testcases} == {0, 1}, (task.id, category)


def test_frozen_suites_keep_their_fingerprint():
    """A frozen suite is reproducible: no change to a group module, a building block or labelling may alter
    a deck, a scene, a split or a text of it (the fingerprint also covers the KLayout version, 0.28.5)."""
    pinned = {"drc-v0": "9f614427cb26", "drc-v1": "964d7c1c4aa6", "drc-v2": "8aa7ed11c81b"}
    assert {name: get_suite(name).fingerprint for name in suite_names() if get_suite(name).frozen} == pinned
    for name, expected in pinned.items():
        assert fingerprint(generate_drafts(name=name)) == expected, f"{name} changed"


def test_building_a_task_not_built_yet_says_so_once(labelled_slice, pool, tmp_path, capsys):
    """Issue 39, "Also": an env on a partly built dataset started building the missing tasks without a word."""
    ids = [labelled_slice[0].id]
    assert build_suite(seed=SUITE_SEED, run_deck=pool.run_deck, cache_dir=tmp_path, ids=ids) == labelled_slice[:1]
    assert "1 task(s) asked for are not built yet" in capsys.readouterr().err
    build_suite(seed=SUITE_SEED, run_deck=pool.run_deck, cache_dir=tmp_path, ids=ids)
    assert "not built yet" not in capsys.readouterr().err
