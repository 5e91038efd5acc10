"""An agent that plays chipgym's envs through a chat-completions endpoint.

The conversation opens with the system prompt and the task message (:mod:`chipgym.envs.chat`); every step adds
the model's reply and the env's answer to it (a tool result when the reply called a tool, else a user message).
Replies without an action go to the env as they are, which rejects them as feedback: they cost a step and never
end an episode. A reply that cannot be read as an action at all (a tool call without a function, content that is
not text, a reply over the client's limit: ``Reply.problem``) is sent to the env as an empty action, rejected the
same way, and the answer to it names the problem. When the conversation outgrows ``config.context_chars``, the
oldest turns are dropped (a note says how many); the system prompt and the task message, which hold the rule,
are never dropped.

>>> from chipgym.baselines.llm import LlmAgent, LlmConfig
>>> agent = LlmAgent("chipgym/DrcScript-v0", LlmConfig("http://127.0.0.1:8000/v1", "qwen"))  # doctest: +SKIP
"""

from __future__ import annotations

import time
from typing import Any

from chipgym.baselines.agent import Turn
from chipgym.baselines.llm.client import ChatClient, Reply
from chipgym.baselines.llm.config import LlmConfig
from chipgym.envs import chat


class LlmAgent:
    """Plays ``env_id`` (``chipgym/DrcScript-v0`` or ``chipgym/RtlDesign-v0``) with the model of ``config``."""

    def __init__(self, env_id: str, config: LlmConfig, client: ChatClient | None = None):
        self.env_id, self.config = env_id, config
        self.client = client or ChatClient(config)
        self.tools = chat.tools(env_id) if config.tools else []
        self.opening: list[dict[str, Any]] = []
        self.turns: list[list[dict[str, Any]]] = []  # per step: the assistant message and the env's answer
        self.started = 0.0
        self._unread = ""  # why the last reply could not be read as an action

    def reset(self, observation: dict[str, str], info: dict[str, Any], seed: int) -> None:
        self.opening = chat.messages(self.env_id, observation, self.config.context_chars // 2)
        self.turns = []
        self.started = time.monotonic()
        self._unread = ""

    def act(self, observation: dict[str, str], info: dict[str, Any]) -> Turn:
        if self.turns:
            unread = f"Your reply was not read: {self._unread}.\n\n" if self._unread else ""
            self._answer(self.turns[-1], unread + chat.state_message(self.env_id, observation, self._time_note()))
        elif self.config.time_limit is not None:
            self.opening[-1]["content"] += "\n\n" + self._time_note()
        reply = self.client.complete(self.conversation(), self.tools)
        self.turns.append([reply.message])
        self._unread = reply.problem
        return Turn(_action(reply), reply.message, reply.prompt_tokens, reply.completion_tokens, reply.retries,
                    reply.problem)

    def conversation(self) -> list[dict[str, Any]]:
        """The messages of the next request: the opening, a note of dropped turns, and the latest turns that fit
        ``config.context_chars``."""
        budget = self.config.context_chars - sum(_chars(m) for m in self.opening)
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

    def _answer(self, turn: list[dict[str, Any]], content: str) -> None:
        if len(turn) == 1:  # not answered yet
            turn.extend(chat.answer(turn[0], content))

    def _time_note(self) -> str:
        if self.config.time_limit is None:
            return ""
        left = max(0.0, self.config.time_limit - (time.monotonic() - self.started))
        return f"Time left: {left:.0f} s of {self.config.time_limit:.0f} s."


def _action(reply: Reply) -> str:
    """The action of a reply: the one the chat protocol reads, else its text; empty for a reply that cannot be
    read (the env rejects it as any malformed action)."""
    if reply.problem:
        return ""
    action = chat.action_from_reply(reply.message["content"], reply.message.get("tool_calls", ()))
    return reply.message["content"] if action is None else action


def _chars(message: dict[str, Any]) -> int:
    calls = message.get("tool_calls", ())
    return len(message.get("content") or "") + sum(len(c["function"]["arguments"]) + 40 for c in calls)
