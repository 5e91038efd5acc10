"""The scripted agent of ``chipgym eval --agent scripted``, which needs no model: the env's own plan (its class's
``scripted_plan``: :func:`chipgym.envs.drc_keywords.keyword_plan` on ``chipgym/DrcScript-v0``, check then submit
on ``chipgym/RtlDesign-v0``), played as an agent.
"""

from __future__ import annotations

from typing import Any

from chipgym.baselines.agent import Turn
from chipgym.envs.base import Plan
from chipgym.envs.registry import env_class


class ScriptedAgent:
    """Plays the scripted plan of ``env_id``'s env, sent the info of each step; once the plan is over and the
    episode is not, it repeats the plan's last action."""

    def __init__(self, env_id: str):
        self.scripted_plan = getattr(env_class(env_id), "scripted_plan", None)
        if self.scripted_plan is None:
            raise ValueError(f"--agent scripted: {env_id} has no scripted agent (its class's scripted_plan)")
        self._plan: Plan | None = None
        self._started, self._last = False, ""

    def reset(self, observation: dict[str, str], info: dict[str, Any], seed: int) -> None:
        self._plan, self._started, self._last = self.scripted_plan(observation), False, ""

    def act(self, observation: dict[str, str], info: dict[str, Any]) -> Turn:
        try:
            self._last = self._plan.send(info) if self._started else next(self._plan)
        except StopIteration:
            pass
        self._started = True
        return Turn.of_action(self._last)

    def close(self) -> None:
        self._plan = None
