"""What every agent of ``chipgym eval`` is: ``reset`` with the first observation, then ``act`` once per step,
each turn giving the action text, the assistant message it came from, and what it cost.

>>> turn = Turn.of_action('{"op": "run"}')
>>> turn.message["content"]
'```json\\n{"op": "run"}\\n```'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from chipgym.errors import AgentError, InfrastructureError


@dataclass(frozen=True)
class Turn:
    """One step of an agent: the action sent to the env and the assistant message it was read from."""

    action: str
    message: dict[str, Any]  # the assistant message, as chat-completions writes it
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0  # requests retried (429, 5xx, timeouts) before the reply came
    problem: str = ""  # why the reply could not be read as an action (the action is then empty), "" if it could
    finish_reason: str = ""  # why the model stopped (the server's: stop, length, tool_calls), "" if not said

    @classmethod
    def of_action(cls, action: str) -> Turn:
        """The turn of an agent that writes actions directly: its message is the action as a fenced JSON block."""
        return cls(action, {"role": "assistant", "content": f"```json\n{action}\n```"})


class EndpointUnavailable(InfrastructureError):
    """The model's endpoint could not be reached or kept failing after every retry: the episode is
    ``unavailable``, not the agent's 0."""


class ContextOverflow(AgentError):
    """The model's server refused a request as longer than its context, after the agent cut the conversation
    to the budget it knew: the episode's failure (the conversation its replies made does not fit), not the
    infrastructure's, so ``--resume`` does not play it again."""


class Agent(Protocol):
    def reset(self, observation: dict[str, str], info: dict[str, Any], seed: int) -> None:
        """Starts an episode."""

    def act(self, observation: dict[str, str], info: dict[str, Any]) -> Turn:
        """The next action, from the observation and info the last step gave; may raise EndpointUnavailable
        (any other exception is the agent's failure)."""

    def close(self) -> None:
        """Frees what the agent holds."""
