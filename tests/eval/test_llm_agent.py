"""The LLM agent against a real HTTP server speaking chat-completions (tests/chat_server.py), through the
official openai client: tool calls and fenced JSON, streamed and not, retries on 429, 500 and a timeout, an
endpoint that cannot be reached (unavailable, never a 0), the context budget, the chip agent's budget, and
identical logs from two runs."""

from __future__ import annotations

import json
import re
import socket

import pytest

from chipgym.baselines.episode_runner import EpisodeRunner, EpisodeSpec
from chipgym.baselines.llm import LlmAgent, LlmConfig
from chipgym.baselines.step_log import without_volatile
from chipgym.envs import chat, drc_actions
from chipgym.tasks.drc.suite import build_suite

from chat_server import ChatServer, prompt_tokens

TASK_IDS = ["sky130-0000", "sky130-0001"]


@pytest.fixture(scope="module")
def tasks():
    return build_suite(ids=TASK_IDS)


def gold_policy(tasks):
    """A 'model' that writes the gold deck (by tool call) for the first task and a wrong one for the others, runs
    it (by a fenced block, in prose), then submits (by tool call)."""
    gold = {task.id: task.gold_deck for task in tasks}

    def reply(request):
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        task_id = re.search(r"New task (\S+)\.", request["messages"][1]["content"]).group(1)
        if turn == 0:
            deck = gold[task_id] if task_id == TASK_IDS[0] else 'source($input)\nreport("x", $output)\n'
            return {"tool_calls": [("write", {"script": deck})]}
        if turn == 1:
            return {"content": 'Now I run it.\n```json\n{"op": "run"}\n```'}
        return {"tool_calls": [("submit", {})]}

    return reply


def config(server, **settings):
    return {"base_url": server.base_url, "model": "scripted", "temperature": 0.0, "seed": 0, "backoff": 0.01,
            **settings}


def play(runner, spec):
    records = runner.start(spec)
    while records[-1]["type"] != "end":
        records += runner.advance()
    return records


@pytest.mark.parametrize("stream", [False, True])
def test_the_agent_solves_a_task_through_tool_calls_and_fenced_json(tasks, stream):
    with ChatServer(gold_policy(tasks)) as server:
        runner = EpisodeRunner("chipgym/DrcScript-v0", {"tasks": tasks}, "openai", config(server, stream=stream))
        records = play(runner, EpisodeSpec("sky130-0000#0", {"task": "sky130-0000"}, 0))
        runner.close()
    start, *steps, end = records
    assert [json.loads(s["action"])["op"] for s in steps] == ["write", "run", "submit"]
    assert end["status"] == "success" and end["return"] == 1.0
    assert all(s["prompt_tokens"] > 0 and s["completion_tokens"] > 0 for s in steps)
    assert end["prompt_tokens"] == sum(s["prompt_tokens"] for s in steps)
    assert all(s["seconds"]["agent"] > 0 for s in steps)
    # the tool's answer is a tool message naming the call; the fenced block's answer a user message
    second, third = server.requests[1]["messages"], server.requests[2]["messages"]
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "call_0"
    assert "Deck replaced" in second[-1]["content"] and third[-1]["role"] == "user"
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == [op.name for op in drc_actions.OPS]
    assert all(r["stream"] is True for r in server.requests) if stream else all("stream" not in r or not r["stream"]
                                                                                for r in server.requests)


def test_429_500_and_a_timeout_are_retried_with_backoff(tasks):
    faults = [429, 500, ("slow", 3.0)]
    with ChatServer(gold_policy(tasks), faults) as server:
        runner = EpisodeRunner("chipgym/DrcScript-v0", {"tasks": tasks}, "openai", config(server, timeout=1.0))
        records = play(runner, EpisodeSpec("sky130-0000#0", {"task": "sky130-0000"}, 0))
        runner.close()
    steps = [r for r in records if r["type"] == "step"]
    assert [s["retries"] for s in steps] == [3, 0, 0]
    assert records[-1]["status"] == "success"
    assert len(server.requests) == 6  # three failed, three answered


def test_an_endpoint_that_keeps_failing_or_cannot_be_reached_is_unavailable_not_a_zero(tasks):
    with ChatServer(gold_policy(tasks), [500] * 10) as server:
        runner = EpisodeRunner("chipgym/DrcScript-v0", {"tasks": tasks}, "openai", config(server, retries=2))
        end = play(runner, EpisodeSpec("sky130-0000#0", {"task": "sky130-0000"}, 0))[-1]
        assert len(server.requests) == 3
    assert end["status"] == "unavailable" and "HTTP 500: injected 500 after 3 attempts" in end["reason"]
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    runner.agent = LlmAgent("chipgym/DrcScript-v0", LlmConfig(f"http://127.0.0.1:{port}/v1", "m", retries=1,
                                                              backoff=0.0))
    end = play(runner, EpisodeSpec("sky130-0000#0", {"task": "sky130-0000"}, 0))[-1]
    runner.close()
    assert end["status"] == "unavailable" and "APIConnectionError" in end["reason"] and end["steps"] == 0


def test_a_reply_without_an_action_is_told_no_action_found_with_the_actions_and_costs_a_step(tasks):
    with ChatServer(lambda request: {"content": "Let me think about the rule first."}) as server:
        runner = EpisodeRunner("chipgym/DrcScript-v0", {"tasks": tasks, "max_steps": 2}, "openai", config(server))
        records = play(runner, EpisodeSpec("sky130-0000#0", {"task": "sky130-0000"}, 0))
        runner.close()
    steps = [r for r in records if r["type"] == "step"]
    assert [s["reply_error"] for s in steps] == ["no action found"] * 2 and all(s["action"] == "" for s in steps)
    assert records[-1]["status"] == "failure" and records[-1]["reason"] == "step budget spent"
    answer = server.requests[1]["messages"][-1]["content"]
    assert answer.startswith("## feedback\nYour reply was not read: no action found.")
    assert "- add_test {" in answer and "JSON" not in answer.split("\n")[1]  # the ops, not a decode error
    assert steps[0]["answer"] == answer  # the log holds what the model was told


def test_the_context_budget_in_tokens_comes_from_the_server_counts_the_tools_and_drops_old_turns(tasks):
    long_reply = {"content": "x" * 3000}
    with ChatServer(lambda request: long_reply, context=6000) as server:
        runner = EpisodeRunner("chipgym/DrcScript-v0", {"tasks": tasks, "max_steps": 8}, "openai", config(server))
        records = play(runner, EpisodeSpec("sky130-0000#0", {"task": "sky130-0000"}, 0))
        runner.close()
    assert records[0]["agent"]["context_tokens"] == 6000 and records[0]["agent"]["context_from"] == "server /props"
    assert records[-1]["reason"] == "step budget spent"  # the server refused no request
    rule = tasks[0].rules[0][0]
    for request in server.requests:
        messages = request["messages"]
        assert messages[0]["role"] == "system" and rule in messages[1]["content"] and request["tools"]
        assert prompt_tokens(request) <= 6000 * 7 // 8  # an eighth left for the reply
    last = server.requests[-1]["messages"]
    assert re.fullmatch(r"\(\d+ earlier turns were dropped to fit the context\.\)", last[2]["content"])
    assert len(last) < 2 * 8


def test_the_chip_agent_is_told_its_budget_and_time_left():
    replies = [{"tool_calls": [("set_clock", {"period_ps": 5000})]}, {"content": "hmm"}]

    def policy(request):
        return replies[sum(m["role"] == "assistant" for m in request["messages"]) % 2]

    with ChatServer(policy) as server:
        runner = EpisodeRunner("chipgym/RtlDesign-v0", {"formal": False, "max_steps": 3}, "openai",
                               config(server, time_limit=3600))
        records = play(runner, EpisodeSpec("empty#0", {"start": "empty"}, 0))
        runner.close()
    first, second = server.requests[0]["messages"], server.requests[1]["messages"]
    assert "a check costs one step" in first[0]["content"] and "Time left: 3600 s of 3600 s" in first[1]["content"]
    assert "2 of 3 steps left" in second[-1]["content"] and "Time left:" in second[-1]["content"]
    assert [t["function"]["name"] for t in server.requests[0]["tools"]][-3:] == ["check", "simulate", "submit"]
    assert records[-1]["status"] == "failure" and records[-1]["steps"] == 3


def test_two_runs_with_scripted_replies_give_identical_logs(tasks):
    def run():
        with ChatServer(gold_policy(tasks)) as server:
            runner = EpisodeRunner("chipgym/DrcScript-v0", {"tasks": tasks}, "openai", config(server))
            records = [r for task in TASK_IDS for r in play(runner, EpisodeSpec(f"{task}#0", {"task": task}, 0))]
            runner.close()
        return [without_volatile(r) for r in records]

    first, second = run(), run()
    assert first == second
    assert [r["status"] for r in first if r["type"] == "end"] == ["success", "failure"]


def test_every_tool_schema_names_a_valid_action():
    examples = {"write": {"script": "source($input)"}, "patch": {"search": "a", "replace": "b"},
                "add_test": {"shapes": [{"layer": [68, 20], "box": [0, 0, 0.1, 2]}], "expected": {"m1": 1}},
                "run": {}, "submit": {}}
    for tool in chat.tools("chipgym/DrcScript-v0"):
        name, parameters = tool["function"]["name"], tool["function"]["parameters"]
        assert set(parameters["required"]) <= set(examples[name])
        action = chat.action_from_reply("", [{"function": {"name": name, "arguments": json.dumps(examples[name])}}])
        assert type(drc_actions.parse(action)).__name__.lower().replace("addtest", "add_test") == name


def test_the_eval_command_reads_the_agent_settings_from_flags_then_the_environment(monkeypatch):
    from chipgym.cli import build_parser
    from chipgym.cli.eval import _env_kwargs, _llm

    monkeypatch.setenv("CHIPGYM_LLM_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("CHIPGYM_LLM_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_API_KEY", "secret")
    args = build_parser().parse_args(["eval", "--agent", "openai", "--model", "from-flag", "--temperature", "0.3",
                                      "--stream", "--no-tools", "--max-steps", "5", "--env-arg", "timeout=4",
                                      "--out", "unused"])
    llm = _llm(args)
    assert (llm["base_url"], llm["model"], llm["api_key"]) == ("http://127.0.0.1:8000/v1", "from-flag", "secret")
    assert (llm["temperature"], llm["stream"], llm["tools"], llm["retries"]) == (0.3, True, False, 4)
    assert _env_kwargs(args) == {"split": "test", "regime": "evaluation", "timeout": 4, "max_steps": 5,
                                 "max_episode_steps": 5}
    monkeypatch.delenv("CHIPGYM_LLM_MODEL")
    with pytest.raises(ValueError, match="model: no model name; pass --model or set CHIPGYM_LLM_MODEL"):
        _llm(build_parser().parse_args(["eval", "--agent", "openai", "--out", "unused"]))


def test_the_eval_command_sets_only_the_arguments_the_env_takes():
    from chipgym.cli import build_parser
    from chipgym.cli.eval import _env_kwargs

    def kwargs(*flags):
        return _env_kwargs(build_parser().parse_args(["eval", *flags, "--out", "unused"]))

    assert kwargs("--env", "chipgym/RtlDesign-v0", "--tasks", "noc", "--no-formal") == {"task": "noc", "formal": False}
    assert kwargs("--tasks", "drc-v1", "--regime", "training") == {"tasks": "drc-v1", "split": "test",
                                                                    "regime": "training"}
    with pytest.raises(ValueError, match="--regime: chipgym/RtlDesign-v0 takes no 'regime' argument"):
        kwargs("--env", "chipgym/RtlDesign-v0", "--regime", "training")
    with pytest.raises(ValueError, match="env_id 'chipgym/Nothing-v0'"):
        kwargs("--env", "chipgym/Nothing-v0")


def test_commands_take_the_api_key_from_a_file_never_from_their_arguments(tmp_path, capsys):
    # issue 29 §2: `--api-key KEY` showed the key to every user of the machine (ps) and kept it in shell histories
    from chipgym.cli import main

    key = tmp_path / "key"
    key.write_text("sk-local-123\n")
    assert LlmConfig.key_from_file(str(key)) == "sk-local-123" and LlmConfig.key_from_file(None) is None
    (tmp_path / "empty").write_text("\n")
    for path, why in ((tmp_path / "empty", "the file is empty"), ("/dev/zero", "not a regular file")):
        with pytest.raises(ValueError, match=why):
            LlmConfig.key_from_file(str(path))
    for command in ("eval", "select"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        shown = capsys.readouterr().out
        assert "--api-key-file FILE" in shown and not re.search(r"--api-key(?!-file)", shown), shown
