"""An agent that plays chipgym's envs through a chat-completions endpoint.

The conversation opens with the system prompt and the task message (:mod:`chipgym.envs.chat`); every step adds
the model's reply and the env's answer to it (a tool result when the reply called a tool, else a user message).
The system prompt lists the actions and their fields unless the tools are certainly in use (offered, and the
server says its chat template takes them: a server may drop tools it cannot render, and says nothing).

A reply without an action (``chat.NO_ACTION``), or one that cannot be read as an action at all (a tool call
without a function, content that is not text, a reply over the client's limit: ``Reply.problem``), is sent to
the env as an empty action, which it rejects: it costs a step and never ends an episode; the answer says why
and lists the actions.

The context is a budget in tokens: ``config.context_tokens``, else what the server says (llama.cpp's ``/props``,
vLLM's ``max_model_len``), else FALLBACK_CONTEXT; less room for the reply (``max_tokens``, else an eighth) and
the tools' schemas. Characters are counted as tokens at the ratio the server's usage shows in the episode
(CHARS_PER_TOKEN until it shows one). The task message's long fields are cut to half the budget; when the
conversation outgrows it, the oldest turns are dropped (a note says how many); the system prompt and the task
message, which hold the rule, are never dropped. A request the server still refuses as over its context ends
the episode a failure (``ContextOverflow``) that names the server's message.

>>> from chipgym.baselines.llm import LlmAgent, LlmConfig
>>> agent = LlmAgent("chipgym/DrcScript-v0", LlmConfig("http://127.0.0.1:8000/v1", "qwen"))  # doctest: +SKIP
"""

from __future__ import annotations

import json
import time
from typing import Any

from chipgym.baselines.agent import Turn
from chipgym.baselines.llm.client import ChatClient, Reply, ServerInfo
from chipgym.baselines.llm.config import LlmConfig
from chipgym.envs import chat

FALLBACK_CONTEXT = 100_000  # tokens, when neither the config nor the server says
CHARS_PER_TOKEN = 2.5  # before the server's usage says: code and markup run 2.5 to 4 characters a token


class LlmAgent:
    """Plays ``env_id`` (``chipgym/DrcScript-v0`` or ``chipgym/RtlDesign-v0``) with the model of ``config``."""

    def __init__(self, env_id: str, config: LlmConfig, client: ChatClient | None = None):
        self.env_id, self.config = env_id, config
        self.client = client or ChatClient(config)
        self.tools = chat.tools(env_id) if config.tools else []
        self.server: ServerInfo | None = None  # asked at the first reset
        self.chars_per_token = CHARS_PER_TOKEN
        self.opening: list[dict[str, Any]] = []
        self.turns: list[list[dict[str, Any]]] = []  # per step: the assistant message and the env's answer
        self.started = 0.0
        self._unread = ""  # why the last reply could not be read as an action

    @property
    def setup(self) -> dict[str, Any]:
        """What the model is shown and the budget, for the episode's start record."""
        return {"context_tokens": self._context()[0], "context_from": self._context()[1],
                "tools": "offered" if self.tools else "off",
                "server_tool_calls": self.server.tool_calls if self.server else None,
                "ops_in_prompt": self._describe_ops()}

    def reset(self, observation: dict[str, str], info: dict[str, Any], seed: int) -> None:
        if self.server is None:
            needed = self.config.context_tokens is None or self.tools
            self.server = self.client.server_info() if needed else ServerInfo()
        self.chars_per_token = CHARS_PER_TOKEN  # learnt anew in each episode, so that episodes do not depend on order
        self.opening = chat.messages(self.env_id, observation, self._budget() // 2, self._describe_ops())
        self.turns = []
        self.started = time.monotonic()
        self._unread = ""

    def act(self, observation: dict[str, str], info: dict[str, Any]) -> Turn:
        if self.turns:
            self._answer(self.turns[-1], chat.state_message(self.env_id, observation, self._time_note(),
                                                            self._unread))
        elif self.config.time_limit is not None:
            self.opening[-1]["content"] += "\n\n" + self._time_note()
        messages = self.conversation()
        reply = self.client.complete(messages, self.tools)
        if reply.prompt_tokens:  # the server's count calibrates the next budgets (tools not counted: conservative)
            self.chars_per_token = min(max(sum(_chars(m) for m in messages) / reply.prompt_tokens, 1.0), 6.0)
        action = _action(self.env_id, reply)
        self._unread = reply.problem or ("" if action is not None else chat.NO_ACTION)
        self.turns.append([reply.message])
        return Turn(action or "", reply.message, reply.prompt_tokens, reply.completion_tokens, reply.retries,
                    self._unread, reply.finish_reason)

    def conversation(self) -> list[dict[str, Any]]:
        """The messages of the next request: the opening, a note of dropped turns, and the latest turns that fit
        the budget."""
        budget = self._budget() - sum(_chars(m) for m in self.opening)
        kept: list[list[dict[str, Any]]] = []
        for turn in reversed(self.turns):
            budget -= sum(_chars(m) for m in turn)
            if budget < 0 and kept:
                break
            kept.insert(0, turn)
        dropped = len(self.turns) - len(kept)
        note = [{"role": "user", "content": f"({dropped} earlier turns were dropped to fit the context.)"}]
        return self.opening + (note if dropped else []) + [m for turn in kept for m in turn]

    def close(self) -> None:
        self.client.close()

    def _context(self) -> tuple[int, str]:
        """The context in tokens and where it came from."""
        if self.config.context_tokens is not None:
            return self.config.context_tokens, "config"
        if self.server is not None and self.server.context_tokens is not None:
            return self.server.context_tokens, f"server {self.server.source}"
        return FALLBACK_CONTEXT, "default"

    def _budget(self) -> int:
        """Characters the messages of a request may hold: the context less the reply's room and the tools."""
        context = self._context()[0]
        prompt = context - (self.config.max_tokens or context // 8)
        return int(prompt * self.chars_per_token) - len(json.dumps(self.tools) if self.tools else "")

    def _describe_ops(self) -> bool:
        """Whether the system prompt lists the actions: unless tools are offered and the server says its
        template takes them."""
        return not (self.tools and self.server is not None and self.server.tool_calls)

    def _answer(self, turn: list[dict[str, Any]], content: str) -> None:
        if len(turn) == 1:  # not answered yet
            turn.extend(chat.answer(turn[0], content))

    def _time_note(self) -> str:
        if self.config.time_limit is None:
            return ""
        left = max(0.0, self.config.time_limit - (time.monotonic() - self.started))
        return f"Time left: {left:.0f} s of {self.config.time_limit:.0f} s."


def _action(env_id: str, reply: Reply) -> str | None:
    """The action of a reply as the chat protocol reads it; None for a reply without one, or one that cannot be
    read (the env gets an empty action, which it rejects as any malformed one)."""
    if reply.problem:
        return None
    return chat.action_from_reply(reply.message["content"], reply.message.get("tool_calls", ()), env_id)


def _chars(message: dict[str, Any]) -> int:
    calls = message.get("tool_calls", ())
    return len(message.get("content") or "") + sum(len(c["function"]["arguments"]) + 40 for c in calls)
