"""One chat-completions request with the official ``openai`` client, streamed or not, whose reply is read as
untrusted input: the whole exchange has a wall-clock deadline (``config.timeout``) whatever the server trickles,
at most MAX_REPLY_BYTES of the body are read, and the body is parsed here, against the chat-completions schema.

- What is the infrastructure's fault (HTTP 429 and 5xx, a timeout, a lost connection, a body that is not a chat
  completion, usage that is not token counts) is retried with backoff; after the last retry, or on any other API
  error, :class:`EndpointUnavailable`.
- A request the server refuses as longer than its context (HTTP 400 saying so) is :class:`ContextOverflow`,
  the episode's failure: what the model's replies made of the conversation does not fit.
- What the model wrote that cannot be read as an action (content that is not text, a tool call without a
  function or a name, arguments that are not text, a reply over MAX_REPLY_CHARS or MAX_REPLY_BYTES) is a
  :class:`Reply` whose ``problem`` says so; its message keeps at most KEPT_CHARS of the text.
- Every failure keeps the server's own message, at most MAX_ERROR_CHARS of it.

:meth:`ChatClient.server_info` asks the server what it says of itself: its context in tokens (llama.cpp's
``/props``, else ``max_model_len`` or llama.cpp's ``meta.n_ctx`` in ``/v1/models``) and whether its chat
template takes tools (llama.cpp's ``chat_template_caps``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import httpx2
import openai

from chipgym.baselines.agent import ContextOverflow, EndpointUnavailable
from chipgym.baselines.llm.config import LlmConfig
from chipgym.errors import AgentError, InfrastructureError

RETRIED = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError)
MAX_REPLY_BYTES = 32 << 20  # of one response body, streamed or not (a streamed token costs ~200 bytes of events)
MAX_REPLY_CHARS = 1 << 20  # of content and tool calls, above the longest action of any env
KEPT_CHARS = 2000  # of the text of a rejected reply, in the conversation and the log
MAX_TOKENS = 1 << 40  # a usage count above this is not a count
MAX_ERROR_CHARS = 500  # of a server's error message, in a reason
MAX_INFO_BYTES = 4 << 20  # of /props or /v1/models (llama.cpp's /props holds its chat template)
INFO_TIMEOUT = 10.0  # seconds of asking /props or /v1/models
OVERFLOW = re.compile(r"context|too long|too many tokens|maximum.{0,40}length", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    message: dict[str, Any]  # the assistant message: role, content (text) and tool_calls when there are some
    prompt_tokens: int
    completion_tokens: int
    retries: int = 0
    seconds: float = 0.0  # wall time of the request, retries and backoff included
    problem: str = ""  # why the reply cannot be an action ("" when it can)
    finish_reason: str = ""  # the server's: stop, length (cut at max_tokens or the context), tool_calls; "" if none


@dataclass(frozen=True)
class ServerInfo:
    """What a server says of itself; None where it does not say."""

    context_tokens: int | None = None  # of one request, prompt and reply
    tool_calls: bool | None = None  # whether its chat template renders tools and reads tool calls
    source: str = ""  # where the context came from ("/props", "/v1/models")


class _Retried(InfrastructureError):
    """One attempt failed for a reason of the infrastructure's; the message says which."""


class _TooLong(AgentError):
    """A body over MAX_REPLY_BYTES (the model's reply is at fault)."""


class _Deadline:
    """Shuts the connections of one attempt down when its time is up. httpx's timeouts bound each read, not the
    exchange, so a server that trickles a byte at a time would otherwise hold a request for ever."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds
        self._timers: list[threading.Timer] = []

    def trace(self, event: str, info: dict[str, Any]) -> None:  # httpcore's trace extension
        if event == "connection.connect_tcp.complete":
            timer = threading.Timer(max(0.0, self.end - time.monotonic()), _shut,
                                    (info["return_value"].get_extra_info("socket"),))
            timer.daemon = True
            timer.start()
            self._timers.append(timer)

    def passed(self) -> bool:
        return time.monotonic() >= self.end

    def cancel(self) -> None:
        for timer in self._timers:
            timer.cancel()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes the read blocked on it, unlike close()
    except OSError:  # closed already
        pass


class ChatClient:
    """Requests completions from the endpoint of ``config``."""

    def __init__(self, config: LlmConfig):
        self.config = config
        self._deadline = _Deadline(0.0)
        # a new connection per request (no keep-alive), so that each attempt's deadline holds its socket;
        # retries are ours (so they are counted, and a timeout of a stream is retried too)
        self._http = openai.DefaultHttpxClient(timeout=config.timeout,
                                               limits=httpx2.Limits(max_keepalive_connections=0),
                                               event_hooks={"request": [self._traced]})
        self._client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key, timeout=config.timeout,
                                     max_retries=0, http_client=self._http)

    def complete(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> Reply:
        start = time.perf_counter()
        for attempt in range(self.config.retries + 1):
            if attempt:
                time.sleep(self.config.backoff * 2 ** (attempt - 1))
            try:
                reply = self._attempt(messages, tools)
            except _Retried as error:
                failure = str(error)
                continue
            return dataclasses.replace(reply, retries=attempt, seconds=time.perf_counter() - start)
        raise EndpointUnavailable(f"{self.config.base_url}: {failure} after {self.config.retries + 1} attempts")

    def server_info(self) -> ServerInfo:
        """What the server says of its context and tools (llama.cpp's ``/props``, else ``/v1/models``); a server
        that says nothing, or answers what is not a schema's JSON, gives None for what it did not say."""
        props = self._get(re.sub(r"/v1/?$", "", self.config.base_url.rstrip("/")) + "/props")
        context = _count(_field(props, "default_generation_settings", "n_ctx"))
        tool_calls = _field(props, "chat_template_caps", "supports_tool_calls")
        tool_calls = tool_calls if isinstance(tool_calls, bool) else None
        if context is not None:
            return ServerInfo(context, tool_calls, "/props")
        models = _field(self._get(self.config.base_url.rstrip("/") + "/models"), "data")
        models = [m for m in models if isinstance(m, dict)] if isinstance(models, list) else []
        model = next((m for m in models if m.get("id") == self.config.model), models[0] if models else {})
        context = _count(model.get("max_model_len")) or _count(_field(model, "meta", "n_ctx"))
        return ServerInfo(context, tool_calls, "/v1/models" if context else "")

    def close(self) -> None:
        self._client.close()

    def _get(self, url: str) -> Any:
        """The JSON of a GET of ``url``, read as any reply is (deadline, size cap), or None."""
        self._deadline = _Deadline(min(self.config.timeout, INFO_TIMEOUT))
        try:
            with self._http.stream("GET", url, headers={"Authorization": f"Bearer {self.config.api_key}"}) as got:
                return _json(_read(got.iter_bytes(), MAX_INFO_BYTES), "an answer") if got.status_code == 200 else None
        except (httpx2.HTTPError, OSError, _Retried, _TooLong):
            return None
        finally:
            self._deadline.cancel()

    def _traced(self, request: httpx2.Request) -> None:
        request.extensions["trace"] = self._deadline.trace

    def _arguments(self, messages, tools) -> dict[str, Any]:
        config = self.config
        arguments: dict[str, Any] = {"model": config.model, "messages": list(messages),
                                     "temperature": config.temperature}
        optional = {"top_p": config.top_p, "seed": config.seed, "max_tokens": config.max_tokens}
        arguments.update({name: value for name, value in optional.items() if value is not None})
        if tools:
            arguments["tools"] = list(tools)
        if config.stream:
            arguments.update(stream=True, stream_options={"include_usage": True})
        return arguments

    def _attempt(self, messages, tools) -> Reply:
        self._deadline = _Deadline(self.config.timeout)
        try:
            body = self._body(self._arguments(messages, tools))
        except _TooLong:
            return Reply(_message("", None)[0], 0, 0, problem=f"the reply is over {MAX_REPLY_BYTES} bytes")
        finally:
            self._deadline.cancel()
        message, usage, finish = _streamed(body) if self.config.stream else _completion(body)
        kept, problem = _message(message.get("content"), message.get("tool_calls"))
        return Reply(kept, *_usage(usage), problem=problem, finish_reason=_finish_reason(finish))

    def _body(self, arguments: dict[str, Any]) -> bytes:
        try:
            with self._client.chat.completions.with_streaming_response.create(**arguments) as response:
                return _read(response.iter_bytes())
        except RETRIED + (httpx2.HTTPError,) as error:
            if self._deadline.passed():
                raise _Retried(f"no whole reply within the timeout of {self.config.timeout:g} s") from None
            raise _Retried(_describe(error)) from None
        except openai.BadRequestError as error:
            if OVERFLOW.search(_server_message(error)) or error.type == "exceed_context_size_error":
                raise ContextOverflow(f"the server refused the request as over its context: {_describe(error)}"
                                      ) from None
            raise EndpointUnavailable(f"{self.config.base_url}: {_describe(error)}") from None
        except openai.APIError as error:
            raise EndpointUnavailable(f"{self.config.base_url}: {_describe(error)}") from None


def _read(chunks: Iterable[bytes], limit: int = MAX_REPLY_BYTES) -> bytes:
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise _TooLong
    return bytes(body)


def _json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data)
    except RecursionError:
        raise _Retried(f"{what} nested too deeply") from None
    except ValueError:  # JSONDecodeError, UnicodeDecodeError, integers of too many digits
        raise _Retried(f"{what} that is not JSON") from None


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Retried(f"{what} that is not a JSON object")
    return value


def _completion(body: bytes) -> tuple[dict[str, Any], Any, Any]:
    """The message, usage and finish reason of a chat completion."""
    data = _object(_json(body, "a reply"), "a reply")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise _Retried("a reply without choices")
    choice = _object(choices[0], "a choice")
    return _object(choice.get("message"), "a choice's message"), data.get("usage"), choice.get("finish_reason")


def _events(body: bytes) -> Iterator[dict[str, Any]]:
    for line in body.splitlines():
        if line.startswith(b"data:"):
            data = line[5:].strip()
            if data == b"[DONE]":
                return
            yield _object(_json(data, "a streamed chunk"), "a streamed chunk")


def _list(value: Any, what: str) -> list[Any]:
    if value is not None and not isinstance(value, list):
        raise _Retried(f"{what} that is not a list")
    return value or []


def _streamed(body: bytes) -> tuple[dict[str, Any], Any, Any]:
    """The message, usage and finish reason of a streamed reply: its deltas joined."""
    content: list[Any] = []
    calls: dict[int, dict[str, Any]] = {}
    usage = finish = None
    for event in _events(body):
        if "error" in event:  # what a server streams when generation fails midway
            raise _Retried(f"a streamed error: {_server_message(event['error'])}")
        usage = event.get("usage") or usage
        for choice in _list(event.get("choices"), "a streamed chunk's choices")[:1]:
            choice = _object(choice, "a streamed choice")
            finish = choice.get("finish_reason") or finish
            delta = _object(choice.get("delta"), "a streamed delta")
            content.append(delta.get("content"))
            for piece in _list(delta.get("tool_calls"), "a streamed delta's tool_calls"):
                piece = _object(piece, "a streamed tool call")
                function = _object(piece.get("function") or {}, "a streamed tool call's function")
                call = calls.setdefault(_index(piece.get("index", 0)), {"id": "", "name": [], "arguments": []})
                call["id"] = piece.get("id") or call["id"]
                call["name"].append(function.get("name"))
                call["arguments"].append(function.get("arguments"))
    joined = [{"id": c["id"], "function": {"name": _join(c["name"]), "arguments": _join(c["arguments"])}}
              for _, c in sorted(calls.items())]
    return {"content": _join(content), "tool_calls": joined}, usage, finish


def _index(value: Any) -> int:
    if type(value) is not int or not 0 <= value < 1024:
        raise _Retried("a streamed tool call whose index is not a small number")
    return value


def _join(pieces: list[Any]) -> Any:
    """Streamed pieces of one field as one text; the first piece that is neither text nor null, if any, instead
    (for :func:`_problem` to name)."""
    wrong = [piece for piece in pieces if piece is not None and not isinstance(piece, str)]
    return wrong[0] if wrong else "".join(piece for piece in pieces if piece)


def _problem(content: Any, calls: Any) -> str:
    """What in a message cannot be read as an action ("" if nothing)."""
    if content is not None and not isinstance(content, str):
        return "its content is not text"
    if calls is not None and not isinstance(calls, list):
        return "its tool_calls are not a list"
    for i, call in enumerate(calls or ()):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return f"tool call {i} has no function"
        if not isinstance(function.get("name"), str) or not function["name"]:
            return f"tool call {i} has no function name"
        if not isinstance(function.get("arguments") or "", str):
            return f"the arguments of tool call {i} are not text"
    size = len(content or "") + sum(len(c["function"]["name"]) + len(c["function"].get("arguments") or "") + 40
                                    for c in calls or ())
    return f"the reply is {size} characters long, over the limit of {MAX_REPLY_CHARS}" if size > MAX_REPLY_CHARS else ""


def _message(content: Any, calls: Any) -> tuple[dict[str, Any], str]:
    """The assistant message a reply leaves in the conversation and the log, and its problem: a reply that
    cannot be read keeps only the start of its text."""
    text = content if isinstance(content, str) else ""
    problem = _problem(content, calls)
    if problem:
        cut = f"\n... ({len(text) - KEPT_CHARS} characters cut)" if len(text) > KEPT_CHARS else ""
        return {"role": "assistant", "content": text[:KEPT_CHARS] + cut}, problem
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": call["id"] if isinstance(call.get("id"), str) and call["id"] else f"call_{i}", "type": "function",
             "function": {"name": call["function"]["name"], "arguments": call["function"].get("arguments") or ""}}
            for i, call in enumerate(calls)]
    return message, ""


def _usage(usage: Any) -> tuple[int, int]:
    """The prompt and completion tokens of a reply's usage (0 when the endpoint gives none)."""
    if usage is None:
        return 0, 0
    names = ("prompt_tokens", "completion_tokens")
    counts = tuple(usage.get(name) or 0 for name in names) if isinstance(usage, dict) else (usage, usage)
    if not all(type(count) is int and 0 <= count <= MAX_TOKENS for count in counts):
        raise _Retried("a reply whose usage is not token counts")
    return counts


def _finish_reason(value: Any) -> str:
    if value is not None and not isinstance(value, str):
        raise _Retried("a reply whose finish_reason is not text")
    return _printable(value or "")[:40]


def _field(data: Any, *names: str) -> Any:
    """``data[name][...]`` down ``names``, or None where a level is missing or not an object."""
    for name in names:
        data = data.get(name) if isinstance(data, dict) else None
    return data


def _count(value: Any) -> int | None:
    return value if type(value) is int and 0 < value <= MAX_TOKENS else None


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else " " for c in text)


def _server_message(error: Any) -> str:
    """The server's own message in an error (an APIStatusError, or a streamed error object), printable and cut
    to MAX_ERROR_CHARS; "" when it gave none."""
    body = getattr(error, "body", error)
    if isinstance(body, dict):  # {"error": {"message": ...}}, of which the openai client keeps the inner object
        body = body.get("message", body)
    text = body if isinstance(body, str) else json.dumps(body, default=str) if body else ""
    return _printable(text[:MAX_ERROR_CHARS])


def _describe(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    if not status:
        return type(error).__name__
    message = _server_message(error)
    return f"HTTP {status}: {message}" if message else f"HTTP {status}"
