"""Independent draws of the scene families (issue 39 §1): the same generators, their free dimensions and offsets
drawn under a seed of the draw's own; outside a draw they give the evaluation scenes unchanged (the frozen suites'
fingerprints are checked in test_drc_suite_build.py)."""
from __future__ import annotations

from chipgym.tasks.drc.suite import generate_drafts
from chipgym.tasks.drc.suite.draws import drawing
from chipgym.tasks.drc.suite.probes import enclosure_scenes, width_scenes
from chipgym.tasks.drc.suite.redraw import parts_key


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
