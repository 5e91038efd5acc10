"""A Rule2DRC folder at the scale of a published benchmark (issue 41): loading 30,000 small layouts keeps no
per-file resource (memory mapping, descriptor, thread) past each file's read, and a KLayout pool started after
the load grades a deck on them. Reading each layout into a buffer of the size cap kept one mapping per file,
and drc-v1's export took every mapping the kernel allows a process: the pool could then not start a thread."""
from __future__ import annotations

import dataclasses
import os

import pytest

from chipgym.engines.klayout import DrcPool, DrcStatus
from chipgym.tasks.drc.rule2drc import load_rule2drc, write_rule2drc
from chipgym.tasks.drc.task import Testcase

from layout_helpers import met1_width_task

PROBLEMS, LAYOUTS_EACH = 30, 1_000

pytestmark = pytest.mark.timeout(300)


def mappings() -> int:
    with open("/proc/self/maps", "rb") as maps:
        return sum(1 for _ in maps)


def test_loading_thirty_thousand_layouts_keeps_no_resource_per_file_and_a_pool_starts_after(tmp_path):
    task = met1_width_task(tmp_path, {}, {"narrow": 0.1, "ok": 0.5}, training=())
    narrow, ok = task.hidden_testcases
    many = tuple(Testcase(f"case{i}", (narrow, ok)[i % 2].gds, (narrow, ok)[i % 2].labels)
                 for i in range(LAYOUTS_EACH))
    write_rule2drc([dataclasses.replace(task, id=f"p{p:02}", hidden_testcases=many) for p in range(PROBLEMS)],
                   tmp_path / "published")
    before = mappings(), len(os.listdir("/proc/self/fd")), len(os.listdir("/proc/self/task"))

    folder = load_rule2drc(tmp_path / "published")

    assert not folder.issues and sum(len(t.hidden_testcases) for t in folder.tasks) == PROBLEMS * LAYOUTS_EACH
    after = mappings(), len(os.listdir("/proc/self/fd")), len(os.listdir("/proc/self/task"))
    assert after[0] - before[0] < 500, f"{after[0] - before[0]} memory mappings more after the load"
    assert after[1:] == before[1:], "descriptors or threads left open by the load"
    cases = folder.tasks[-1].hidden_testcases[:4]
    with DrcPool(workers=1) as pool:
        results = pool.run(task.gold_deck, [case.gds for case in cases])
    assert [r.status for r in results] == [DrcStatus.OK] * 4
    assert [int(r.counts.get("m1.1", 0) > 0) for r in results] == [case.labels["m1.1"] for case in cases]
