"""Independent draws of the scene families (issue 39 §1): the same generators, their free dimensions and offsets
drawn under a seed of the draw's own; outside a draw they give the evaluation scenes unchanged (the frozen suites'
fingerprints are checked in test_drc_suite_build.py)."""
from __future__ import annotations

import pytest

from chipgym.tasks.drc.rule_free import measure
from chipgym.tasks.drc.suite import build_suite, drawn_scenes, fresh_draw, generate_drafts, opaque_name
from chipgym.tasks.drc.suite.draws import drawing
from chipgym.tasks.drc.suite.kit import gap_scenes
from chipgym.tasks.drc.suite.layouts import gds_scene, rect
from chipgym.tasks.drc.suite.probes import enclosure_scenes, width_scenes
from chipgym.tasks.drc.suite.redraw import congruence_key, parts_key
from chipgym.tasks.drc.suites import get_suite


def test_a_draw_keeps_the_tasks_and_draws_their_scenes_anew():
    evaluation = generate_drafts(name="drc-v0")
    with drawing("train0"):
        drawn = generate_drafts(name="drc-v0")
    assert [(d.id, d.deck(), d.description(), d.split) for d in drawn] == \
        [(d.id, d.deck(), d.description(), d.split) for d in evaluation]
    new = sum(parts_key(s) not in {parts_key(e) for e in e_draft.scenes()}
              for e_draft, d_draft in zip(evaluation, drawn) if e_draft.group == "sky130" for s in d_draft.scenes())
    assert new >= 0.95 * sum(len(d.scenes()) for d in drawn if d.group == "sky130")


def test_a_draw_is_its_seed_and_the_call_alone():
    with drawing("a"):
        first = width_scenes("r0", "met1", 140)
        enclosure_scenes("r1", "via", "met1", 55)  # another call between does not move r0's draw
        again = width_scenes("r0", "met1", 140)
    with drawing("b"):
        other = width_scenes("r0", "met1", 140)
    assert first == again and first != other
    assert [s.name for s in first] == [s.name for s in width_scenes("r0", "met1", 140)]


def test_drawn_offsets_keep_each_scene_on_its_side_of_the_threshold():
    for seed in range(50):
        with drawing(str(seed)):
            bars = {s.name: s for s in width_scenes("r0", "met1", 140)}
        widths = {name: max(x for x, _ in bars[name].shapes[0].points) for name in
                  ("r0_width_bar_lt", "r0_width_bar_eq", "r0_width_bar_gt")}
        assert widths["r0_width_bar_lt"] < 140 == widths["r0_width_bar_eq"] < widths["r0_width_bar_gt"]


def test_the_advanced_node_families_draw_their_sizes_and_offsets_too():
    """drc-v1's synthetic group (beol, feol and their shared kit) draws as the probes do: a failing gap stays below
    the threshold, an equal one at it; across the group nearly every task draws scenes of new parts."""
    base = rect("m1", 0, 0, 200, 1000)
    drawn = []
    for seed in range(20):
        with drawing(str(seed)):
            scenes = {s.name: s for s in gap_scenes("c", base, "m1", 100, 200, 1000)}
        lt, eq = (min(x for x, _ in scenes[f"c_par_{sfx}"].shapes[1].points) - 200 for sfx in ("lt", "eq"))
        assert lt < 100 == eq
        drawn.append(parts_key(scenes["c_par_lt"]))
    assert len(set(drawn)) > 10
    evaluation = [d for d in generate_drafts(name="drc-v2") if d.group == "synthetic"]
    with drawing("train0"):
        draw = [d for d in generate_drafts(name="drc-v2") if d.group == "synthetic"]
    alike = sum(not {parts_key(s) for s in d.scenes()} - {parts_key(s) for s in e.scenes()}
                for e, d in zip(evaluation, draw, strict=True))
    assert alike <= 0.01 * len(draw)


def test_every_task_of_drc_v2_draws_scenes_of_new_parts():
    """No family is left with nothing free: each task's training rounds hold scenes not made of its evaluation
    scenes' parts (an empty pool would teach nothing)."""
    seed = get_suite("drc-v2").seed
    rounds = [drawn_scenes("drc-v2", seed, f"train{r}") for r in range(3)]
    for draft in generate_drafts(name="drc-v2"):
        evaluation = {parts_key(s) for s in draft.scenes()}
        assert any(parts_key(s) not in evaluation for drawn in rounds for s in drawn[draft.id]), draft.id


DRAWN_SLICE = ("sky130-0003", "synthetic-0100", "syntax-0005")


@pytest.fixture(scope="module")
def drawn_slice(pool, tmp_path_factory):
    """Three drc-v2 tasks, labelled in real KLayout: their pools are drawn, not redrawn."""
    ids = [i for i in DRAWN_SLICE if i in {d.id for d in generate_drafts(name="drc-v2")}]
    return build_suite("drc-v2", run_deck=pool.run_deck, cache_dir=tmp_path_factory.mktemp("drc-v2"), ids=ids)


def test_drawn_pools_hold_no_evaluation_scene_and_teach_both_verdicts(drawn_slice):
    assert len(drawn_slice) == len(DRAWN_SLICE)
    for task in drawn_slice:
        key = lambda case: congruence_key(gds_scene(case.name, case.gds_bytes()))  # noqa: E731
        evaluation = {key(case) for case in task.hidden_testcases}
        taught = task.public_examples + task.training_testcases
        assert not evaluation & {key(case) for case in taught}, task.id
        assert len(task.public_examples) == 4 and len(task.training_testcases) >= len(task.hidden_testcases)
        for category in task.categories:
            assert {case.labels[category] for case in task.training_testcases} == {0, 1}, (task.id, category)


def test_drawn_pools_are_the_generators_under_their_own_seed(drawn_slice):
    """Each training layout is a scene of a draw of the task's generators (its name says which round), so nothing
    of it was computed from an evaluation scene; the rule-free learner finds fewer evaluation patterns taught."""
    for task in drawn_slice:
        rounds = {f"train{r}": drawn_scenes("drc-v2", get_suite("drc-v2").seed, f"train{r}")[task.id]
                  for r in range(6)}
        names = {opaque_name(task.id, f"{scene.name}/{tag}") for tag, scenes in rounds.items() for scene in scenes}
        assert {case.name for case in task.training_testcases} <= names, task.id
        taught = measure(task, task.public_examples + task.training_testcases)
        assert taught.known < taught.layouts, task.id


def test_a_fresh_draw_is_in_neither_pool(drawn_slice, pool):
    """The rule-free benchmark's fresh draw: labelled by the gold deck, and made of no evaluation or taught layout's
    parts, so a learner's pass rate on it is what it would get with nothing taught about the evaluation scenes."""
    drafts = {d.id: d for d in generate_drafts(name="drc-v2")}
    key = lambda case: congruence_key(gds_scene(case.name, case.gds_bytes()))  # noqa: E731
    for task in drawn_slice:
        fresh = fresh_draw("drc-v2", drafts[task.id], task, pool.run_deck)
        held = {key(c) for c in task.hidden_testcases + task.public_examples + task.training_testcases}
        assert fresh and not held & {key(c) for c in fresh}, task.id
        assert all(set(c.labels) == set(task.categories) for c in fresh)
