"""A real HTTP server speaking the chat-completions protocol, for the LLM agent's tests: bound to loopback
only, on a free port, in a thread of the test process; it stops at the end of its ``with`` block, or by itself
after ``max_seconds``.

Replies come from ``policy(request) -> dict``, so that every conversation gets the same reply whatever the
order requests arrive in (several Ray actors at once): ``{"content": TEXT}``, ``{"tool_calls": [(NAME,
ARGUMENTS)]}`` or both. Before any policy reply, ``faults`` are served in order, one per request: an HTTP status
(429, 500, ...), or ``("slow", SECONDS)`` to answer only after that long. A request with ``"stream": true`` is
answered with server-sent events, content and tool-call arguments in pieces, usage in the last chunk.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Policy = Callable[[dict[str, Any]], dict[str, Any]]


def usage_of(request: dict[str, Any], content: str, calls: list) -> dict[str, int]:
    """Token counts the same for the same request and reply: characters / 4."""
    prompt = len(json.dumps(request["messages"])) // 4
    completion = (len(content) + sum(len(arguments) for _, arguments in calls)) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class ChatServer:
    def __init__(self, policy: Policy, faults: list = (), max_seconds: float = 600.0):
        self.policy, self.faults = policy, deque(faults)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(body)
                    fault = server.faults.popleft() if server.faults else None
                if isinstance(fault, int):
                    return self._send(fault, {"error": {"message": f"injected {fault}", "type": "server_error"}})
                if isinstance(fault, tuple):
                    time.sleep(fault[1])
                reply = server.policy(body)
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
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
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
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
    yield chunk({}, "tool_calls" if calls else "stop")
    yield {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": request["model"],
           "choices": [], "usage": usage_of(request, content, calls)}
