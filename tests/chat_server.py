"""A real HTTP server speaking the chat-completions protocol, for the LLM agent's tests: bound to loopback
only, on a free port, in a thread of the test process; it stops at the end of its ``with`` block, or by itself
after ``max_seconds``.

Replies come from ``policy(request) -> dict``, so that every conversation gets the same reply whatever the
order requests arrive in (several Ray actors at once): ``{"content": TEXT}``, ``{"tool_calls": [(NAME,
ARGUMENTS)]}`` or both. Before any policy reply, ``faults`` are served in order, one per request: an HTTP status
(429, 500, ...), ``("error", STATUS, MESSAGE)`` for an error with that message, or ``("slow", SECONDS)`` to
answer only after that long. A request with ``"stream": true`` is
answered with server-sent events, content and tool-call arguments in pieces, usage in the last chunk.

It behaves as llama.cpp's server does where the agent depends on it: tokens are characters / 4 of the messages
(and of the tools, when its template takes them); with ``context`` set, a request whose prompt and
``max_tokens`` do not fit is refused with llama.cpp's HTTP 400 and message, and the context is told at
``GET /props`` (``says="props"``, with ``chat_template_caps``) or as vLLM's ``max_model_len`` at
``GET /v1/models`` (``says="models"``) or not at all (``says=None``); ``tools="dropped"`` is a template without
a tool section: the tools are left out of the prompt, and of the request the policy sees, without a word; a
reply longer than ``max_tokens`` is cut there, with finish_reason ``length``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Policy = Callable[[dict[str, Any]], dict[str, Any]]


def prompt_tokens(request: dict[str, Any]) -> int:
    """The prompt's tokens: characters / 4 of the messages and the tools (as the template renders them)."""
    return (len(json.dumps(request["messages"])) + len(json.dumps(request.get("tools", [])))) // 4


def usage_of(request: dict[str, Any], content: str, calls: list) -> dict[str, int]:
    """Token counts the same for the same request and reply: characters / 4."""
    prompt = prompt_tokens(request)
    completion = (len(content) + sum(len(arguments) for _, arguments in calls)) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class ChatServer:
    def __init__(self, policy: Policy, faults: list = (), max_seconds: float = 600.0, context: int | None = None,
                 says: str | None = "props", tools: str = "honoured"):
        self.policy, self.faults = policy, deque(faults)
        self.context, self.says, self.tools = context, says, tools
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                if self.path == "/props" and server.says == "props":
                    return self._send(200, {"default_generation_settings": {"n_ctx": server.context},
                                            "chat_template_caps": {"supports_tool_calls": server.tools != "dropped"},
                                            "total_slots": 1})
                if self.path == "/v1/models" and server.says == "models":
                    return self._send(200, {"object": "list", "data": [
                        {"id": "scripted", "object": "model", "max_model_len": server.context}]})
                self._send(404, {"error": {"message": "File Not Found", "type": "not_found_error"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if server.tools == "dropped":
                    body.pop("tools", None)
                with server.lock:
                    server.requests.append(body)
                    fault = server.faults.popleft() if server.faults else None
                if isinstance(fault, int):
                    fault = ("error", fault, f"injected {fault}")
                if isinstance(fault, tuple) and fault[0] == "error":
                    return self._send(fault[1], {"error": {"message": fault[2], "type": "server_error"}})
                if isinstance(fault, tuple):
                    time.sleep(fault[1])
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                tokens = prompt_tokens(body)
                if server.context is not None and tokens + (body.get("max_tokens") or 0) >= server.context:
                    return self._send(400, {"error": {
                        "code": 400, "type": "exceed_context_size_error",
                        "message": f"request ({tokens} tokens) exceeds the available context size "
                                   f"({server.context} tokens), try increasing it"}})
                reply = _cut(server.policy(body), body.get("max_tokens"))
                if body.get("stream"):
                    return self._stream(body, reply)
                self._send(200, _completion(body, reply))

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out first
                    pass

            def _stream(self, body: dict, reply: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in _chunks(body, reply):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self._timer = threading.Timer(max_seconds, self.stop)
        self._timer.daemon = True

    def __enter__(self) -> ChatServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self._timer.cancel()
        self.http.shutdown()
        self.http.server_close()


def _cut(reply: dict, max_tokens: int | None) -> dict:
    """The reply cut at ``max_tokens`` (4 characters a token), finish_reason ``length``, as a server cuts it."""
    content = reply.get("content", "")
    if max_tokens is None or len(content) <= 4 * max_tokens:
        return reply
    return {"content": content[:4 * max_tokens], "finish_reason": "length"}


def _calls(reply: dict) -> list[tuple[str, str]]:
    return [(name, arguments if isinstance(arguments, str) else json.dumps(arguments))
            for name, arguments in reply.get("tool_calls", ())]


def _completion(request: dict, reply: dict) -> dict:
    content, calls = reply.get("content", ""), _calls(reply)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, (n, a) in enumerate(calls)]
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": request["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply, calls)}],
            "usage": usage_of(request, content, calls)}


def _chunks(request: dict, reply: dict):
    content, calls = reply.get("content", ""), _calls(reply)

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": request["model"],
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(content), 7):
        yield chunk({"content": content[start:start + 7]})
    for i, (name, arguments) in enumerate(calls):
        yield chunk({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                     "function": {"name": name, "arguments": ""}}]})
        for start in range(0, len(arguments), 5):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": arguments[start:start + 5]}}]})
    yield chunk({}, _finish(reply, calls))
    yield {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": request["model"],
           "choices": [], "usage": usage_of(request, content, calls)}


def _finish(reply: dict, calls: list) -> str:
    return reply.get("finish_reason") or ("tool_calls" if calls else "stop")
