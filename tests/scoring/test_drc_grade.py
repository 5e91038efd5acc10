"""Grading decks against labelled layouts, on real KLayout."""

from __future__ import annotations

import pytest

from chipgym.engines.klayout import DrcPool, DrcResult, DrcStatus
from chipgym.scoring.drc import compare, grade_on
from chipgym.tasks.drc.task import Testcase

from layout_helpers import write_rectangles

GOLD = 'source($input)\nreport("m1", $output)\ninput(1, 0).width(0.14).output("m1.1", "met1 width < 0.14 um")\n'


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grade")
    wires = {"at_threshold": 0.14, "one_nm_under": 0.139, "wide": 0.5}
    return [
        Testcase(name, write_rectangles(folder / f"{name}.gds", [(0, 0, width, 2)]), {"m1.1": int(width < 0.14)})
        for name, width in wires.items()
    ]


def test_gold_deck_succeeds(pool, cases):
    result = grade_on(cases, ["m1.1"], GOLD, pool)
    assert result.success and result.error is None
    assert result.f1 == 1.0 and result.layouts_matched == 1.0 and result.mismatches == ()


def test_one_nm_off_fails_with_partial_credit(pool, cases):
    result = grade_on(cases, ["m1.1"], GOLD.replace("0.14)", "0.141)"), pool)
    assert not result.success
    assert [(m.layout, m.expected, m.got) for m in result.mismatches] == [("at_threshold", 0, 1)]
    assert result.layouts_matched == pytest.approx(2 / 3)
    assert result.categories["m1.1"].precision == 0.5 and result.categories["m1.1"].recall == 1.0


def test_a_crash_is_an_error_never_no_violation(pool, cases):
    clean = [case for case in cases if not case.labels["m1.1"]]
    result = grade_on(clean, ["m1.1"], "exit!(1)", pool)
    assert not result.success
    assert result.error == "crashed" and result.error_counts == {"crashed": 2}
    assert result.f1 == 0.0


def test_no_stale_report_is_read(pool, cases):
    first = '$runs = ($runs || 0) + 1\nif $runs == 1\nreport("m1", $output)\n'  # the deck's process runs every layout
    deck = GOLD.replace('report("m1", $output)\n', first) + "end\n"
    result = grade_on(cases, ["m1.1"], deck, pool)
    assert result.error_counts == {"no_report": 2}
    assert not result.success


def test_a_category_the_task_does_not_define_fails(pool, cases):
    deck = GOLD + 'input(1, 0).space(0.1).output("made_up_name", "not asked for")\n'
    result = grade_on(cases, ["m1.1"], deck, pool)
    assert not result.success and result.extra_categories == 1 and result.mismatches == ()
    assert "made_up_name" not in repr(result)  # a name the deck made up is not kept


def test_markers_mode_asks_for_the_same_geometry(pool, cases):
    deck = GOLD.replace(".width(0.14)", ".width(0.14).polygons")
    assert grade_on(cases, ["m1.1"], deck, pool).success
    with DrcPool(workers=1) as gold_pool:  # the gold deck never runs where the graded deck runs
        gold = pool_gold(gold_pool, cases)
    strict = grade_on(cases, ["m1.1"], deck, pool, gold)
    assert not strict.success
    assert [m.layout for m in strict.mismatches] == ["one_nm_under"]
    assert grade_on(cases, ["m1.1"], GOLD, pool, gold).success


def pool_gold(pool, cases):
    return pool.run(GOLD, [case.gds for case in cases])


def test_missing_or_failed_gold_results_are_unavailable_not_a_pass(pool, cases):
    nothing = 'source($input)\nreport("m1", $output)\n'  # no markers: passes wherever the gold run is sabotaged
    failed = [DrcResult(DrcStatus.RUNTIME, "sabotaged")] * len(cases)
    for gold in (failed, failed[:1]):
        result = grade_on(cases, ["m1.1"], nothing, pool, gold)
        assert not result.success and result.unavailable


def test_an_unavailable_engine_is_no_verdict(cases):
    lost = [DrcResult(DrcStatus.UNAVAILABLE, "worker lost")] * len(cases)
    result = compare(cases, ["m1.1"], lost)
    assert not result.success and result.unavailable and result.error_counts == {}


def test_compare_needs_a_result_per_layout(cases):
    with pytest.raises(ValueError):
        compare(cases, ["m1.1"], [])
