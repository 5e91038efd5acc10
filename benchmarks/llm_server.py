"""``chipgym eval``'s openai agent against a chat server, per setting (tools on or off, streaming on or off):
what the model was shown, how many replies held an action, what was logged; then one RtlDesign-v0 episode at
the server's context, played again with ``--resume``; against a real server also one whose context the agent is
told wrongly (100k tokens), which the server refuses.

Against a real server (docs/llm-agents.md, "A real server, step by step", builds llama.cpp's llama-server):

    .venv/bin/python benchmarks/llm_server.py --base-url http://127.0.0.1:8080/v1 --model smollm2 [--limit 3]
    .venv/bin/python benchmarks/llm_server.py --llama-server build/bin/llama-server --gguf MODEL.gguf \
        [--chat-template-file benchmarks/chatml-tools.jinja]   # starts it on loopback with -c 8192 --jinja

Without one (``--test-server``), against the project's own test server (tests/chat_server.py), which behaves as
llama.cpp's server does where the agent depends on it, with a scripted "small model" (prose, a deck in a fenced
ruby block, a reply cut at max_tokens, fenced JSON, tool calls when it is shown tools), in three server modes:
tools rendered, tools dropped by a template without a tool section, and an 8k context said or not said.

Whether a real server drops the tools it is sent is measured as the issue that asked for this did: the same
opening with and without the tools, compared by the prompt tokens the server counts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

from chipgym.baselines.evaluation import EvalRun, episode_specs, evaluate
from chipgym.baselines.llm import ChatClient, LlmConfig
from chipgym.baselines.step_log import read_episodes, read_records
from chipgym.envs import chat

DRC, RTL = "chipgym/DrcScript-v0", "chipgym/RtlDesign-v0"
SETTINGS = [(tools, stream) for tools in (True, False) for stream in (False, True)]


def tools_rendered(llm: dict) -> str:
    """Whether the server puts the tools in the prompt: the DRC opening's prompt tokens with and without them."""
    client = ChatClient(LlmConfig(**{**llm, "max_tokens": 1, "stream": False}))
    opening = [{"role": "system", "content": chat.protocol(DRC).intro}, {"role": "user", "content": "## rule\nx"}]
    try:
        without, with_tools = (client.complete(opening, tools).prompt_tokens for tools in ([], chat.tools(DRC)))
    finally:
        client.close()
    if not without:
        return "unknown (no usage)"
    return f"rendered (+{with_tools - without} tokens)" if with_tools > without else "dropped (same prompt tokens)"


def figures(out: Path) -> dict:
    """What one run's log says: what the model was shown, its replies, and how the episodes ended."""
    episodes = read_episodes(out / "steps.jsonl")
    steps = [s for e in episodes for s in e.steps]
    setup = episodes[0].start.get("agent", {}) if episodes else {}
    return {"shown": f"tools {setup.get('tools')}, actions listed {setup.get('ops_in_prompt')}, "
                     f"context {setup.get('context_tokens')} ({setup.get('context_from')})",
            "replies": len(steps), "held an action": sum(not s["reply_error"] for s in steps),
            "valid actions": sum(not s["reply_error"] and "action_error" not in s["info"] for s in steps),
            "tool calls": sum(bool(s["message"].get("tool_calls")) for s in steps),
            "finish": dict(Counter(s.get("finish_reason") or "-" for s in steps)),
            "reply errors": dict(Counter(s["reply_error"] for s in steps if s["reply_error"])),
            "action errors": dict(Counter(s["info"]["action_error"][:60] for s in steps
                                          if "action_error" in s["info"] and not s["reply_error"])),
            "ends": dict(Counter(f"{e.end['status']}: {e.end['reason'][:240]}" for e in episodes))}


def run(out: Path, env_id: str, env_kwargs: dict, llm: dict, limit: int | None, starts=("empty",),
        resume: bool = False) -> dict:
    specs = episode_specs(env_id, env_kwargs, limit, names=starts)
    return evaluate(EvalRun(env_id, env_kwargs, "openai", specs, out, llm=llm, resume=resume, progress=False))


def bench(llm: dict, out: Path, limit: int, label: str = "") -> list[dict]:
    rows = []
    drc = {"tasks": "drc-v0", "split": "test", "regime": "evaluation", "max_steps": 4, "max_episode_steps": 4}
    for tools, stream in SETTINGS:
        name = f"{label}tools-{'on' if tools else 'off'}-stream-{'on' if stream else 'off'}"
        run(out / name, DRC, drc, {**llm, "tools": tools, "stream": stream}, limit)
        rows.append({"setting": name, **figures(out / name)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def rtl(llm: dict, out: Path, name: str) -> dict:
    """One RtlDesign-v0 episode (the multicycle start, 2 steps), then ``--resume``: requests of the second run."""
    kwargs = {"formal": False, "max_steps": 2, "max_episode_steps": 2}
    run(out / name, RTL, kwargs, llm, None, ("multicycle",))
    before = sum(r["type"] == "start" for r in read_records(out / name / "steps.jsonl"))
    run(out / name, RTL, kwargs, llm, None, ("multicycle",), resume=True)
    after = sum(r["type"] == "start" for r in read_records(out / name / "steps.jsonl"))
    row = {"setting": name, **figures(out / name), "resume played again": after - before}
    print(json.dumps(row), flush=True)
    return row


def small_model(request: dict) -> dict:
    """A scripted stand-in for a small model: what SmolLM2-135M-like models write, shown tools or not."""
    turn = sum(m["role"] == "assistant" for m in request["messages"])
    if request["messages"][1]["content"].startswith("## task"):  # the chip env
        clock = {"period_ps": 5000}
        if turn == 0:
            return {"tool_calls": [("set_clock", clock)]} if request.get("tools") else {
                "content": "```json\n" + json.dumps({"op": "set_clock", **clock}) + "\n```"}
        return {"content": "The contract says the core must match the timing model."}
    deck = 'source($input)\nreport("r", $output)\ninput(68, 20).width(0.14.um).output("m1.1", "width")\n'
    if turn == 0:
        if request.get("tools"):
            return {"tool_calls": [("write", {"script": deck})]}
        return {"content": f"Here is a deck for the rule:\n```ruby\n{deck}```"}
    if turn == 1:
        return {"content": "The rule says that the width must be checked. " * 40}  # prose, cut at max_tokens
    if turn == 2:
        return {"content": 'Let me run it.\n```json\n{"op": "run"}\n```'}
    return {"tool_calls": [("submit", {})]} if request.get("tools") else {"content": '{"op": "submit"}'}


def test_server_runs(out: Path, limit: int) -> list[dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from chat_server import ChatServer

    rows = []
    for mode in ("honoured", "dropped"):
        with ChatServer(small_model, context=32_768, tools=mode, max_seconds=3600) as server:
            llm = {"base_url": server.base_url, "model": "scripted", "max_tokens": 64}
            print(f"tools {mode} by the server: {tools_rendered(llm)}", flush=True)
            rows += bench(llm, out, limit, f"server-tools-{mode}-")
    for says in ("props", None):
        with ChatServer(small_model, context=8192, says=says, max_seconds=3600) as server:
            llm = {"base_url": server.base_url, "model": "scripted", "max_tokens": 64}
            rows.append(rtl(llm, out, f"rtl-8k-context-{'said' if says else 'not-said'}"))
    return rows


@contextlib.contextmanager
def llama_server(binary: str, gguf: str, template: str | None, context: int = 8192):
    """llama.cpp's server on a free loopback port (``-c context --jinja``), until the block ends; its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [binary, "-m", gguf, "-c", str(context), "--jinja", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command + (["--chat-template-file", template] if template else []),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as health:
                    if health.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{binary} did not start (exit status {server.poll()})")
            time.sleep(1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--base-url", help="a real OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    where.add_argument("--test-server", action="store_true", help="the project's test server, a scripted model")
    where.add_argument("--llama-server", help="llama.cpp's llama-server binary, started here with --gguf")
    parser.add_argument("--gguf", help="the model for --llama-server")
    parser.add_argument("--chat-template-file", help="a Jinja chat template for --llama-server")
    parser.add_argument("--model", default="local")
    parser.add_argument("--limit", type=int, default=3, help="drc-v0 test tasks per setting (3)")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="chipgym-llm-server-"))
    args = parser.parse_args()
    out = Path(args.out)
    import ray

    ray.init(num_cpus=1, include_dashboard=False, logging_level="warning", log_to_driver=False)
    try:
        if args.test_server:
            rows = test_server_runs(out, args.limit)
        else:
            with contextlib.ExitStack() as stack:
                base_url = args.base_url or stack.enter_context(
                    llama_server(args.llama_server, args.gguf, args.chat_template_file))
                llm = {"base_url": base_url, "model": args.model, "max_tokens": args.max_tokens, "timeout": 600.0}
                print(f"tools: {tools_rendered(llm)}", flush=True)
                overstated = {**llm, "context_tokens": 100_000}
                rows = bench(llm, out, args.limit) + [rtl(llm, out, "rtl-8k-context-said"),
                                                      rtl(overstated, out, "rtl-context-overstated")]
    finally:
        ray.shutdown()
    (out / "table.json").write_text(json.dumps(rows, indent=1))
    columns = ["setting", "shown", "replies", "held an action", "valid actions", "tool calls", "finish", "reply errors",
               "ends"]
    print("| " + " | ".join(columns) + " |\n|" + " --- |" * len(columns))
    for row in rows:
        print("| " + " | ".join(_cell(row[c]) for c in columns) + " |")
    print(f"logs and table.json under {out}")


def _cell(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "-"
    return str(value)


if __name__ == "__main__":
    main()
