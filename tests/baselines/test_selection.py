"""Best-of-N selection with real KLayout on three drc-v0 tasks (one with three categories): every method
returns a deck and a trace; grades are cached, so a second worker grades nothing; SplitTester keeps to its
budget of test layouts; the same seed makes the same choices; the LLM path (candidates, tests, judge) against
a real chat-completions server, with the replies a model gets wrong; and `chipgym select` end to end."""

from __future__ import annotations

import json
import os
import re

import pytest

from chipgym.baselines.selection.candidates import SYSTEM as CANDIDATE_SYSTEM
from chipgym.baselines.selection.experiment import VOLATILE, SelectionRun, SelectionWorker, run_selection
from chipgym.baselines.selection.generated_tests import TEST_SYSTEM
from chipgym.baselines.selection.methods import METHODS
from chipgym.cli import main
from chipgym.envs import drc_actions

from chat_server import ChatServer


@pytest.fixture(scope="module")
def tasks(selection_tasks):
    return selection_tasks


@pytest.fixture(scope="module")
def ids(selection_tasks):
    return [task.id for task in selection_tasks]


@pytest.fixture(scope="module")
def folder(selection_folder):
    return selection_folder


def stable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in VOLATILE}


@pytest.fixture(scope="module")
def fresh_cache(tmp_path_factory):
    """A cache of this module's own, so that its first grades are run here (the tasks are built already)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHIPGYM_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def offline_records(folder, ids, fresh_cache):
    run = SelectionRun(tasks=folder, split="all", ns=(4, 8), seed=3)
    worker = SelectionWorker(run)
    try:
        records = [worker.select(task_id) for task_id in ids]
        graded = worker.graded()
    finally:
        worker.close()
    return run, records, graded


def test_every_method_returns_a_deck_and_a_trace(offline_records):
    run, records, graded = offline_records
    assert graded > 0
    for record in records:
        assert "unavailable" not in record, record
        assert len(record["candidates"]) == 8
        for n in ("4", "8"):
            assert set(record["selections"][n]) == set(METHODS)
            for name, chosen in record["selections"][n].items():
                assert 0 <= chosen["index"] < int(n), name
                assert isinstance(chosen["success"], bool)
                deck = record["decks"][record["candidates"][chosen["index"]]["deck"]]
                assert deck.startswith("source($input)"), name
                if name not in ("one-shot", "random", "judge"):
                    trace = chosen["trace"]
                    assert trace["tests"][0]["origin"] == "public example"
                    assert trace["clusterings"] and all(c["clusters"] for c in trace["clusterings"])
                    members = sorted(m for c in trace["clusterings"][0]["clusters"] for m in c["members"])
                    assert members == list(range(int(n))), name
        assert record["labels"]["checked"] > 0
    # the offline candidates hold a correct deck on these tasks, and SplitTester finds one on some
    assert any(c["success"] for r in records for c in r["candidates"])
    assert any(r["selections"]["8"]["splittester"]["success"] for r in records)


def test_a_second_worker_grades_nothing_and_chooses_the_same(folder, ids, offline_records, fresh_cache):
    run, records, _ = offline_records
    worker = SelectionWorker(run)
    try:
        again = [worker.select(task_id) for task_id in ids]
        assert worker.graded() == 0  # every grade came from the cache
    finally:
        worker.close()
    assert [stable(r) for r in again] == [stable(r) for r in records]


def test_another_seed_draws_other_candidates(folder, ids, offline_records):
    run, records, _ = offline_records
    worker = SelectionWorker(SelectionRun(tasks=folder, split="all", ns=(8,), seed=4, methods=("one-shot",)))
    try:
        other = [worker.select(task_id) for task_id in ids]
    finally:
        worker.close()
    assert [c["origin"] for r in other for c in r["candidates"]] != [c["origin"] for r in records
                                                                      for c in r["candidates"]]


@pytest.mark.parametrize("budget", [3, 16])
def test_splittester_spends_at_most_its_budget(folder, ids, offline_records, budget):
    run, records, _ = offline_records
    if budget == 16:
        chosen = [r["selections"][n][m] for r in records for n in ("4", "8") for m in METHODS if "splittester" in m]
    else:
        worker = SelectionWorker(SelectionRun(tasks=folder, split="all", ns=(8,), seed=3, budget=budget,
                                              methods=("splittester", "s-star", "generated-tests")))
        try:
            chosen = [c for t in ids for c in worker.select(t)["selections"]["8"].values()]
        finally:
            worker.close()
    for selection in chosen:
        generated = [t for t in selection["trace"]["tests"] if t["origin"] != "public example"]
        assert selection["tests_spent"] == len(generated) <= budget
    assert max(s["tests_spent"] for s in chosen) > 0


def llm_policy(tasks):
    """A 'model': candidates alternate between the gold deck, a deck with the threshold off by one, a reply
    without a deck and a deck by a write action; tests are one good add_test, one with an unknown category and
    one that is not JSON; the judge answers FINAL: 2, then out of range."""
    gold = {task.id: task.gold_deck for task in tasks}
    layers = {task.id: task.layers for task in tasks}
    judged = []

    def reply(request):
        system, user = request["messages"][0]["content"], request["messages"][1]["content"]
        task_id = _task_of(user, gold)
        if system == CANDIDATE_SYSTEM:
            sample = request["seed"] % 4
            if sample == 0:
                return {"content": f"Here:\n```ruby\n{gold[task_id]}```"}
            if sample == 1:
                return {"content": "```ruby\n" + re.sub(r"0\.(\d+)", lambda m: f"0.{int(m.group(1)) + 1}",
                                                           gold[task_id]) + "```"}
            if sample == 2:
                return {"content": "I am not sure how to write this deck."}
            return {"content": f"```json\n{drc_actions.write(gold[task_id])}\n```"}
        if system == TEST_SYSTEM:
            layer = list(layers[task_id].values())[0]
            category = re.search(r"^- (\S+):", user, re.M).group(1)
            good = json.loads(drc_actions.add_test([drc_actions.box(layer, 0, 0, 0.05, 2)], {category: 1}, "thin"))
            bad = {**good, "expected": {"no_such_category": 1}}
            return {"content": f"```json\n{json.dumps([good, bad])}\n```\n```json\nnot json\n```"}
        judged.append(user)
        return {"content": "Deck 2 reads the rule right.\nFINAL: 2" if len(judged) % 2 else "FINAL: 99"}

    return reply


def _task_of(user: str, gold: dict) -> str:
    """The task a prompt is about: the one whose gold deck's title line is in the rule."""
    title = re.search(r"## rule\n(.*)\n", user).group(1)
    return next(t for t, deck in gold.items() if f'report("{title}"' in deck)


def test_the_llm_path_writes_candidates_tests_and_judges_through_a_chat_server(tasks, ids, folder, tmp_path):
    with ChatServer(llm_policy(tasks)) as server:
        llm = {"base_url": server.base_url, "model": "scripted", "seed": 0, "backoff": 0.01}
        run = SelectionRun(tasks=folder, split="all", ns=(4,), generator="openai", llm=llm, seed=0,
                           methods=("one-shot", "splittester", "codemonkey", "judge"), limit=2)
        summary = run_selection(run, tmp_path, progress=False)
        requests = list(server.requests)
    assert summary["tasks"] == 2 and summary["unavailable"] == 0
    record = json.loads((tmp_path / "tasks" / f"{ids[0]}.json").read_text())
    origins = [c["origin"] for c in record["candidates"]]
    assert origins == ["llm sample 0", "llm sample 1", "llm sample 2 (no deck in the reply)", "llm sample 3"]
    assert [c["success"] for c in record["candidates"]] == [True, False, False, True]
    assert record["selections"]["4"]["one-shot"]["success"] is True
    split = record["selections"]["4"]["splittester"]
    llm_tests = [t for t in split["trace"]["tests"] if t["origin"] == "llm"]
    assert llm_tests and all(set(t["expected"]) <= set(tasks[0].categories) for t in llm_tests)
    assert split["tests_spent"] <= 16
    reasons = [r["selections"]["4"][m]["trace"]["judge"]["reason"] for r in
               [record, json.loads((tmp_path / "tasks" / f"{ids[1]}.json").read_text())]
               for m in ("judge", "codemonkey", "splittester") if "judge" in r["selections"]["4"][m]["trace"]]
    assert any(r.startswith("llm: ") and "FINAL: 2" in r for r in reasons)
    assert any("no FINAL: k in range" in r for r in reasons)  # FINAL: 99 keeps the first finalist
    samples = [r["seed"] for r in requests if r["messages"][0]["content"] == CANDIDATE_SYSTEM]
    assert samples == [0, 1, 2, 3] * 2  # one request per candidate, each with a seed of its own


def test_select_command_writes_summary_and_traces(folder, ids, tmp_path, capsys):
    code = main(["select", "--method", "one-shot,splittester", "--n", "3,6", "--tasks", folder, "--split", "all",
                 "--limit", "2", "--seed", "1", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    for n in ("3", "6"):
        figures = summary["by_n"][n]
        assert set(figures["methods"]) == {"one-shot", "splittester"}
        assert set(figures["pass_at_k"]) == ({"1", "3"} if n == "3" else {"1", "5", "6"})
        for method in figures["methods"].values():
            assert set(method) >= {"success_rate", "error_rate", "oracle_at_n", "selection_accuracy", "tests_spent"}
            assert method["success_rate"] <= method["oracle_at_n"]
    assert summary["wall_time"] > 0 and summary["tasks"] == 2
    assert sorted(p.name for p in (tmp_path / "tasks").iterdir()) == [f"{t}.json" for t in ids[:2]]
    assert "| splittester |" in capsys.readouterr().out


def test_select_command_names_a_bad_method(capsys, tmp_path):
    assert main(["select", "--method", "best", "--out", str(tmp_path)]) == 2
    assert "--method: unknown 'best'" in capsys.readouterr().err


class Recording:
    """A test generator or judge that notes the type of every task it is given."""

    def __init__(self, inner, seen: list):
        self.inner, self.seen = inner, seen

    def __getattr__(self, name):
        def call(task, *args, **kwargs):
            self.seen.append(type(task))
            return getattr(self.inner, name)(task, *args, **kwargs)
        return call


def test_methods_see_only_the_public_view_and_survive_hostile_candidates(tasks):
    from chipgym.baselines.selection.bench import TestBench
    from chipgym.baselines.selection.candidates import Candidate, OfflineCandidates
    from chipgym.baselines.selection.generated_tests import GeometricTests
    from chipgym.baselines.selection.judge import OfflineJudge
    from chipgym.baselines.selection.method import Generators
    from chipgym.engines.klayout import DrcPool
    from chipgym.tasks.drc.task import DrcTaskView

    task = tasks[0]
    hostile = [Candidate('source($input)\nreport("x", $output)\nloop { }\n', "spins"),
               Candidate('source($input)\nreport("x", $output)\nKernel.exit!(3)\n', "exits"),
               Candidate("%x(touch /tmp/chipgym-selection-pwned)\n" + task.gold_deck, "shells out")]
    candidates = hostile + OfflineCandidates().generate(task.agent_view(), 5, seed=0)
    seen: list = []
    with DrcPool(workers=1, timeout=2.0) as pool:
        generators = Generators(Recording(GeometricTests(), seen), Recording(OfflineJudge(), seen), TestBench(pool))
        for name, method in METHODS.items():
            chosen = method(task.agent_view(), candidates, generators, 3, 0)
            assert chosen.deck == candidates[chosen.index].deck, name
            if name not in ("one-shot", "random"):
                assert chosen.index >= 2, name  # a deck that spins or exits is never chosen
    assert seen and set(seen) == {DrcTaskView}
    assert not os.path.exists("/tmp/chipgym-selection-pwned")  # the shell ran in the sandbox, if at all


def test_an_endpoint_that_fails_makes_tasks_unavailable_not_zero(folder, tmp_path, capsys):
    with ChatServer(lambda request: {"content": "never reached"}, faults=[500] * 10) as server:
        code = main(["select", "--method", "splittester", "--n", "2", "--tasks", folder, "--split", "all",
                     "--limit", "1", "--generator", "openai", "--base-url", server.base_url, "--model", "m",
                     "--retries", "0", "--out", str(tmp_path), "--no-progress"])
    assert code == 2
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["unavailable"] == 1 and summary["tasks"] == 0 and summary["by_n"] == {}
    [record] = [json.loads(p.read_text()) for p in (tmp_path / "tasks").iterdir()]
    assert "HTTP 500" in record["unavailable"] and "selections" not in record
