"""``chipgym eval`` on a local Ray with two workers: the scripted, random and openai agents (the last against a
real chat server) on both envs, the step log, the summary, identical logs from two runs, resuming after the
command is killed (test_eval_resume.py), and the chat export of the log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chipgym.baselines.evaluation import EvalRun, episode_specs, evaluate
from chipgym.baselines.step_log import read_episodes, read_records, without_volatile
from chipgym.baselines.trajectories import chat_records

from chat_server import ChatServer

DRC, RTL = "chipgym/DrcScript-v0", "chipgym/RtlDesign-v0"
ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def drc(drc_folder):
    return {"tasks": drc_folder, "split": "all", "regime": "evaluation"}


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning", log_to_driver=False)
    yield
    ray.shutdown()


def run(out: Path, env_id: str, env_kwargs: dict, agent: str, llm=None, **settings):
    samples = settings.pop("samples", 1)
    specs = episode_specs(env_id, env_kwargs, settings.pop("limit", None), samples, settings.pop("starts", None))
    summary = evaluate(EvalRun(env_id, env_kwargs, agent, specs, out, workers=2, llm=llm, samples=samples,
                               progress=False, **settings))
    return summary, read_episodes(out / "steps.jsonl")


def test_scripted_and_random_agents_on_drc_with_two_workers(local_ray, drc, tmp_path):
    summary, episodes = run(tmp_path / "scripted", DRC, drc, "scripted", limit=3)
    assert summary["all"]["episodes"] == 3 and summary["all"]["success_rate"] > 0
    assert {e.start["node"] for e in episodes} and len({e.start["episode"] for e in episodes}) == 3
    first = episodes[0]
    assert [r["step"] for r in first.steps] == list(range(1, len(first.steps) + 1))
    assert first.end["steps"] == len(first.steps) and first.steps[-1]["terminated"]
    assert json.loads((tmp_path / "scripted" / "summary.json").read_text())["all"]["steps_per_second"] > 0

    summary, episodes = run(tmp_path / "random", DRC, drc, "random", limit=3, samples=2)
    assert summary["all"]["episodes"] == 6 and summary["all"]["success_rate"] == 0.0
    assert summary["all"]["pass@2"] == 0.0 and any("action_error" in s["info"] for e in episodes for s in e.steps)

    from chipgym.cli import main

    assert main(["export-trajectories", str(tmp_path / "scripted"), "--out", str(tmp_path / "chat.jsonl")]) == 0
    assert len((tmp_path / "chat.jsonl").read_text().splitlines()) == 3
    [record, *_] = chat_records([tmp_path / "scripted"])
    roles = [m["role"] for m in record["messages"]]
    assert roles[:2] == ["system", "user"] and roles[2:] == ["assistant", "user"] * record["steps"]
    assert record["reward"] == sum(record["rewards"]) and len(record["rewards"]) == record["steps"]


def test_scripted_and_random_agents_on_the_chip_env_with_two_workers(local_ray, tmp_path):
    kwargs = {"formal": False, "max_steps": 3, "max_episode_steps": 3}
    summary, episodes = run(tmp_path / "random", RTL, kwargs, "random", starts=["empty", "multicycle"])
    assert summary["all"]["episodes"] == 2 and summary["all"]["success_rate"] == 0.0
    summary, episodes = run(tmp_path / "scripted", RTL, kwargs, "scripted", starts=["multicycle"], samples=2)
    assert summary["all"]["success_rate"] == 1.0 and summary["all"]["pass@2"] == 1.0
    assert [json.loads(s["action"])["op"] for s in episodes[0].steps] == ["check", "submit"]


def drc_policy(gold: dict[str, str]):
    def reply(request):
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        task_id = re.search(r"New task (\S+)\.", request["messages"][1]["content"]).group(1)
        if turn == 0:
            return {"tool_calls": [("write", {"script": gold[task_id]})]}
        return {"content": '```json\n{"op": "submit"}\n```'}
    return reply


def rtl_policy(request):
    turn = sum(m["role"] == "assistant" for m in request["messages"])
    return {"tool_calls": [("set_clock", {"period_ps": 4000 + turn})]}


def test_the_openai_agent_on_both_envs_with_two_workers_and_identical_logs(local_ray, drc, drc_tasks, tmp_path):
    gold = {task.id: task.gold_deck for task in drc_tasks}
    logs = []
    with ChatServer(drc_policy(gold)) as server:
        llm = {"base_url": server.base_url, "model": "scripted", "temperature": 0.0, "seed": 0}
        for name in ("first", "second"):
            summary, _ = run(tmp_path / name, DRC, drc, "openai", llm, limit=2)
            assert summary["all"]["success_rate"] == 1.0 and summary["all"]["mean_tokens"] > 0
            records = [without_volatile(r) for r in read_records(tmp_path / name / "steps.jsonl")]
            logs.append(sorted(records, key=lambda r: (r["episode"], r["type"] != "start", r.get("step", 1e9))))
    assert logs[0] == logs[1]
    with ChatServer(rtl_policy) as server:
        llm = {"base_url": server.base_url, "model": "scripted", "stream": True}
        summary, episodes = run(tmp_path / "rtl", RTL, {"formal": False, "max_steps": 2, "max_episode_steps": 2},
                                "openai", llm, starts=["empty", "pipelined"])
    assert summary["all"]["episodes"] == 2 and {e.end["reason"] for e in episodes} == {"step budget spent"}
    assert all("Set clock" in s["answer"] or "clock_period_ps" in s["answer"] for e in episodes for s in e.steps)


def test_an_unreachable_endpoint_makes_every_episode_unavailable_and_resume_runs_them_again(local_ray, tmp_path):
    llm = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "retries": 1, "backoff": 0.0}
    summary, _ = run(tmp_path, RTL, {"formal": False}, "openai", llm, starts=["empty"])
    assert summary["all"]["unavailable"] == summary["all"]["attempted"] == 1 and summary["all"]["success_rate"] == 0
    with ChatServer(rtl_policy) as server:
        llm = {"base_url": server.base_url, "model": "m"}
        summary, episodes = run(tmp_path, RTL, {"formal": False}, "openai", llm, starts=["empty"], resume=True)
    assert summary["all"]["unavailable"] == 0 and episodes[0].end["attempt"] == 1
    with pytest.raises(ValueError, match="holds a log already; pass --resume"):
        run(tmp_path, RTL, {"formal": False}, "openai", llm, starts=["empty"])


def test_an_rtl_episode_over_an_8k_context_fails_with_the_servers_message_and_resume_does_not_retry_it(local_ray,
                                                                                                       tmp_path):
    from chipgym.cli import main

    with ChatServer(rtl_policy, context=8192, says=None) as server:  # a server that does not say its context
        command = ["eval", "--env", RTL, "--agent", "openai", "--base-url", server.base_url, "--model", "scripted",
                   "--starts", "multicycle", "--no-formal", "--max-steps", "2", "--out", str(tmp_path), "--no-progress"]
        assert main(command) == 0
        assert main(command + ["--resume"]) == 0
        requests = len(server.requests)
    [episode] = read_episodes(tmp_path / "steps.jsonl")
    assert episode.end["status"] == "failure"
    assert "exceeds the available context size (8192 tokens)" in episode.end["reason"]
    assert requests == 1 and [r["type"] for r in read_records(tmp_path / "steps.jsonl")] == ["start", "end"]
    summary = json.loads((tmp_path / "summary.json").read_text())["all"]
    assert summary["unavailable"] == 0 and summary["attempted"] == 1 and episode.end["reason"] in summary["reasons"]
