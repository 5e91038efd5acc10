"""The LLM agent against servers that behave as real ones do (tests/chat_server.py, a real HTTP server on
loopback, as llama.cpp's server behaves where the agent depends on it): what the model is shown with tools on,
off and dropped by the server; the tool-call path, streamed and not; decks in a fenced ruby block, read the
same way as chipgym select reads them; the context budget in tokens from llama.cpp's /props, vLLM's
max_model_len or the config; a request over the server's context ending the episode a failure with the
server's message; the server's messages kept and capped; finish reasons logged and truncations counted."""

from __future__ import annotations

import json

import pytest

from chipgym.baselines.episode_runner import EpisodeRunner, EpisodeSpec
from chipgym.baselines.eval_summary import summarize
from chipgym.baselines.selection.prompt import deck_from_reply
from chipgym.baselines.step_log import LoggedEpisode
from chipgym.envs import chat

from chat_server import ChatServer

DRC, RTL = "chipgym/DrcScript-v0", "chipgym/RtlDesign-v0"
TASK = "sky130-0002"


@pytest.fixture(scope="module")
def drc(drc_tasks):
    """One DRC env for the module (each test gives it an agent of its own)."""
    runner = EpisodeRunner(DRC, {"tasks": drc_tasks, "split": "all", "max_steps": 3}, "random")
    yield runner
    runner.close()


@pytest.fixture(scope="module")
def rtl():
    runner = EpisodeRunner(RTL, {"formal": False, "max_steps": 2, "max_episode_steps": 2}, "random")
    yield runner
    runner.close()


def play(runner, server, env_id=DRC, options=None, **settings):
    from chipgym.baselines.llm import LlmAgent, LlmConfig

    runner.agent.close()
    runner.agent = LlmAgent(env_id, LlmConfig(server.base_url, "scripted", backoff=0.01, retries=1, **settings))
    options = options or {"task": TASK}
    records = runner.start(EpisodeSpec(f"{next(iter(options.values()))}#0", options, 0))
    while records[-1]["type"] != "end":
        records += runner.advance()
    return records


def steps(records):
    return [r for r in records if r["type"] == "step"]


def prose(request):
    return {"content": "I will think about the rule."}


@pytest.mark.parametrize("tools, says, dropped, listed", [
    (True, "props", False, False),  # tools offered, and the server says its template takes them
    (True, "props", True, True),  # the server's template has no tool section: it drops them, and says so
    (True, "models", False, True),  # the server does not say: tools are not certainly in use
    (False, "props", False, True),  # tools off
])
def test_the_actions_are_in_the_prompt_unless_tools_are_certainly_in_use(drc, tools, says, dropped, listed):
    with ChatServer(prose, context=100_000, says=says, tools="dropped" if dropped else "honoured") as server:
        records = play(drc, server, tools=tools)
    system = server.requests[0]["messages"][0]["content"]
    assert ("- add_test {" in system) is listed and ("tools" in server.requests[0]) is (tools and not dropped)
    assert records[0]["agent"]["ops_in_prompt"] is listed and records[0]["messages"][0]["content"] == system
    assert [s["reply_error"] for s in steps(records)] == ["no action found"] * 3


@pytest.mark.parametrize("stream", [False, True])
def test_the_tool_call_path_tool_calls_streamed_deltas_and_tool_replies(drc, drc_tasks, stream):
    gold = next(t.gold_deck for t in drc_tasks if t.id == TASK)

    def policy(request):
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        if turn == 0:  # two calls in one reply: the first is carried out, the second answered "ignored"
            return {"tool_calls": [("write", {"script": gold}), ("run", {})]}
        if turn == 1:
            return {"content": "Checking.", "tool_calls": [("run", {})]}
        return {"tool_calls": [("submit", {})]}

    with ChatServer(policy, context=100_000) as server:
        records = play(drc, server, stream=stream)
    assert [json.loads(s["action"])["op"] for s in steps(records)] == ["write", "run", "submit"]
    assert records[-1]["status"] == "success"
    assert [s["finish_reason"] for s in steps(records)] == ["tool_calls"] * 3
    first = steps(records)[0]["message"]
    assert [c["function"]["name"] for c in first["tool_calls"]] == ["write", "run"]
    assert json.loads(first["tool_calls"][0]["function"]["arguments"]) == {"script": gold}
    answers = server.requests[1]["messages"][-2:]
    assert [(m["role"], m["tool_call_id"]) for m in answers] == [("tool", "call_0"), ("tool", "call_1")]
    assert "Deck replaced" in answers[0]["content"] and answers[1]["content"] == chat.IGNORED_CALL
    last = server.requests[2]["messages"][-1]
    assert last["role"] == "tool" and last["tool_call_id"] == "call_0" and "## feedback" in last["content"]
    assert all(r.get("stream", False) is stream for r in server.requests)


def test_a_deck_in_a_fenced_ruby_block_is_written_as_chipgym_select_reads_it(drc, drc_tasks):
    gold = next(t.gold_deck for t in drc_tasks if t.id == TASK)
    replies = [f"Here is the deck:\n```ruby\n{gold}```\nDone.", 'Now submit.\n```json\n{"op": "submit"}\n```']

    def policy(request):
        return {"content": replies[sum(m["role"] == "assistant" for m in request["messages"])]}

    with ChatServer(policy, context=100_000) as server:
        records = play(drc, server, tools=False)
    write = json.loads(steps(records)[0]["action"])
    assert write == {"op": "write", "script": gold} and deck_from_reply(replies[0]) == gold
    assert records[-1]["status"] == "success"


def test_the_context_comes_from_vllms_max_model_len_or_the_config(drc):
    with ChatServer(prose, context=30_000, says="models") as server:
        records = play(drc, server)
    assert (records[0]["agent"]["context_tokens"], records[0]["agent"]["context_from"]) == (30_000, "server /v1/models")
    with ChatServer(prose, context=30_000, says="props") as server:
        records = play(drc, server, context_tokens=20_000)
    assert (records[0]["agent"]["context_tokens"], records[0]["agent"]["context_from"]) == (20_000, "config")
    with ChatServer(prose, says=None) as server:
        records = play(drc, server)
    assert (records[0]["agent"]["context_tokens"], records[0]["agent"]["context_from"]) == (100_000, "default")


def rtl_policy(request):
    if not any(m["role"] == "assistant" for m in request["messages"]):
        return {"tool_calls": [("set_clock", {"period_ps": 5000})]}
    return {"content": "Let me read the contract again."}


def test_an_8k_server_that_says_its_context_gets_an_opening_cut_to_fit(rtl):
    with ChatServer(rtl_policy, context=8192) as server:
        records = play(rtl, server, RTL, {"start": "multicycle"})
    assert records[0]["agent"]["context_tokens"] == 8192
    assert records[-1]["status"] == "failure" and records[-1]["reason"] == "step budget spent"
    assert "characters cut)" in server.requests[0]["messages"][1]["content"]
    assert [s["reply_error"] for s in steps(records)] == ["", "no action found"]


def test_a_request_over_the_servers_context_is_the_episodes_failure_with_the_servers_message(rtl):
    with ChatServer(rtl_policy, context=8192, says=None) as server:  # a server that does not say its context
        records = play(rtl, server, RTL, {"start": "multicycle"})
    end = records[-1]
    assert end["status"] == "failure" and end["steps"] == 0 and len(server.requests) == 1  # never retried
    assert "ContextOverflow" in end["reason"] and "HTTP 400: request (" in end["reason"]
    assert "tokens) exceeds the available context size (8192 tokens), try increasing it" in end["reason"]
    summary = summarize([LoggedEpisode(records[0], [], end)])
    assert summary["all"]["unavailable"] == 0 and list(summary["all"]["reasons"]) == [end["reason"]]


def test_another_http_400_is_unavailable_and_every_server_message_is_kept_capped(drc):
    with ChatServer(prose, faults=[("error", 400, "tools param requires --jinja flag")]) as server:
        end = play(drc, server)[-1]
    assert len(server.requests) == 1 and end["status"] == "unavailable"
    assert end["reason"].endswith(": HTTP 400: tools param requires --jinja flag")
    with ChatServer(prose, faults=[("error", 500, "\x1b[2J" + "y" * 10_000)] * 2) as server:
        end = play(drc, server)[-1]
    assert end["status"] == "unavailable" and end["reason"].endswith(" after 2 attempts")
    assert "HTTP 500:  [2J" + "y" * 496 + " after" in end["reason"]  # no escape, at most 500 characters of it


def test_finish_reasons_are_logged_and_truncated_replies_counted(drc):
    with ChatServer(lambda request: {"content": "x" * 400}, context=100_000) as server:
        records = play(drc, server, max_tokens=50, stream=True)
    assert [s["finish_reason"] for s in steps(records)] == ["length"] * 3
    assert all(len(s["message"]["content"]) == 200 for s in steps(records))
    summary = summarize([LoggedEpisode(records[0], steps(records), records[-1])])
    assert summary["all"]["truncated_replies"] == 3 and summary["all"]["unread_replies"] == 3


def test_an_empty_fenced_block_after_the_deck_is_not_read_as_the_deck():
    """Seen with SmolLM2-135M on llama.cpp's server: a deck in a ruby block, then a run of empty fences, cut at
    max_tokens; the last (empty) block was written as the deck."""
    deck = 'source($input)\nreport("r", $output)\ninput(68, 20).width(0.14).output("m1.1", "w")\n'
    reply = f"```ruby\n{deck}```\n\n# output\n\n```\n\n```\n\n```\n\n```\n\n``"
    assert json.loads(chat.action_from_reply(reply, None, "chipgym/DrcScript-v0")) == {"op": "write", "script": deck}
    assert chat.action_from_reply("```\n\n```\n```json\n \n```", None, "chipgym/DrcScript-v0") is None
