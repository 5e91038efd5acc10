"""Results go to JSON and come back equal, with their status and failures typed."""
from __future__ import annotations

import json

from chipgym.results import Failure, Status
from chipgym.scoring.chip import ChipScore, Estimate
from chipgym.scoring.drc import CategoryScore, Grade, Mismatch
from chipgym.scoring.physical import PhysicalResult
from chipgym.tasks.chip.report import CheckReport


def round_trip(result):
    return type(result).from_dict(json.loads(json.dumps(result.to_dict())))


def test_a_chip_score_round_trips_with_its_status_and_failures_typed():
    score = ChipScore(Status.FAILED, 0.0, "osu018", "abc", failures=[Failure("timing", "worst slack -3 ps")],
                      workloads={"memcpy": {"cycles": 10, "retired": 5, "T_us": 0.1, "E_nJ": 0.2}},
                      physical=PhysicalResult(Status.OK, clock_period_ps=5000).to_dict(), seconds={"check": 1.5})
    again = round_trip(score)
    assert again == score and again.status is Status.FAILED and isinstance(again.failures[0], Failure)
    assert score.to_dict()["status"] == "failed" and json.loads(json.dumps(score.to_dict()))["failures"] == [
        ["timing", "worst slack -3 ps"]]


def test_a_check_report_round_trips_without_its_callback():
    report = CheckReport("cpu", "fixtures/multicycle", on_check=print)
    report.fail("functional", "random-3: retirement 4")
    report.stats["memcpy"] = {"cycles": 10, "retired": 5}
    assert "on_check" not in report.to_dict()
    again = round_trip(report)
    assert again == report and again.failures == [Failure("functional", "random-3: retirement 4")]


def test_a_physical_result_an_estimate_and_a_grade_round_trip():
    physical = PhysicalResult(Status.UNAVAILABLE, "qflow place timed out", 5000, cells=86,
                              stage_seconds={"synthesize": 1.0})
    assert round_trip(physical) == physical and round_trip(physical).status is Status.UNAVAILABLE
    estimate = Estimate("osu018", 100.5, 12, 5000, 12.5, "path", ["OpenSTA check_setup: unclocked"])
    assert round_trip(estimate) == estimate
    grade = Grade(False, "runtime", {"runtime": 1}, 0.5, {"m1.1": CategoryScore(1.0, 0.5, 2 / 3)}, 2 / 3,
                  (Mismatch("a.gds", "m1.1", 1, 0),))
    assert round_trip(grade) == grade
