"""One chat-completions request with the official ``openai`` client, streamed or not, retried with backoff on
what is the infrastructure's fault (HTTP 429 and 5xx, timeouts, lost connections); after the last retry, or on
any other API error, :class:`EndpointUnavailable`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import openai

from chipgym.baselines.agent import EndpointUnavailable
from chipgym.baselines.llm.config import LlmConfig

RETRIED = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError)


@dataclass(frozen=True)
class Reply:
    message: dict[str, Any]  # the assistant message: role, content and tool_calls when there are some
    prompt_tokens: int
    completion_tokens: int
    retries: int
    seconds: float  # wall time of the request, retries and backoff included


class ChatClient:
    """Requests completions from the endpoint of ``config``."""

    def __init__(self, config: LlmConfig):
        self.config = config
        # retries are ours (so they are counted, and a timeout of a stream is retried too)
        self._client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key, timeout=config.timeout,
                                     max_retries=0)

    def complete(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> Reply:
        start = time.perf_counter()
        attempt = 0
        while True:
            try:
                message, usage = self._request(messages, tools)
                return Reply(message, usage[0], usage[1], attempt, time.perf_counter() - start)
            except RETRIED as error:
                if attempt == self.config.retries:
                    raise EndpointUnavailable(f"{self.config.base_url}: {_describe(error)} "
                                              f"after {attempt + 1} attempts") from None
            except openai.APIError as error:
                raise EndpointUnavailable(f"{self.config.base_url}: {_describe(error)}") from None
            time.sleep(self.config.backoff * 2**attempt)
            attempt += 1

    def close(self) -> None:
        self._client.close()

    def _arguments(self, messages, tools) -> dict[str, Any]:
        config = self.config
        arguments: dict[str, Any] = {"model": config.model, "messages": list(messages),
                                     "temperature": config.temperature}
        optional = {"top_p": config.top_p, "seed": config.seed, "max_tokens": config.max_tokens}
        arguments.update({name: value for name, value in optional.items() if value is not None})
        if tools:
            arguments["tools"] = list(tools)
        return arguments

    def _request(self, messages, tools) -> tuple[dict[str, Any], tuple[int, int]]:
        arguments = self._arguments(messages, tools)
        if not self.config.stream:
            response = self._client.chat.completions.create(**arguments)
            if not response.choices:
                raise EndpointUnavailable(f"{self.config.base_url}: a reply without choices")
            reply = response.choices[0].message
            calls = [{"id": c.id, "type": "function", "function": {"name": c.function.name,
                                                                  "arguments": c.function.arguments}}
                     for c in reply.tool_calls or ()]
            return _message(reply.content, calls), _usage(response.usage)
        stream = self._client.chat.completions.create(**arguments, stream=True,
                                                      stream_options={"include_usage": True})
        content: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage = None
        for chunk in stream:
            usage = chunk.usage or usage
            for choice in chunk.choices[:1]:
                content.append(choice.delta.content or "")
                for delta in choice.delta.tool_calls or ():
                    call = calls.setdefault(delta.index, {"id": "", "type": "function",
                                                          "function": {"name": "", "arguments": ""}})
                    call["id"] = delta.id or call["id"]
                    if delta.function is not None:
                        call["function"]["name"] += delta.function.name or ""
                        call["function"]["arguments"] += delta.function.arguments or ""
        return _message("".join(content), [calls[i] for i in sorted(calls)]), _usage(usage)


def _message(content: str | None, calls: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content or ""}
    if calls:
        message["tool_calls"] = calls
    return message


def _usage(usage) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    return int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)


def _describe(error: openai.APIError) -> str:
    status = getattr(error, "status_code", None)
    return f"HTTP {status}" if status else type(error).__name__
