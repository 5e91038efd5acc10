"""A toy env written against chipgym's env contract alone (issue 29 §1): guess a hidden digit, told after each
wrong guess whether it is higher or lower. This module is the whole of it, and its last line registers it;
``tests/envs/test_toy_env.py`` shows that it passes the conformance checks, works under ``ChatEnv`` and runs in
``chipgym eval`` (``--env toy_env:toy/Guess-v0``) with nothing else touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import gymnasium
from gymnasium import spaces

from chipgym.envs.base import SKELETON_INFO, Plan, StepOutcome, TextActionEnv, chosen, text_space
from chipgym.envs.chat import REPLY_RULES, ChatProtocol
from chipgym.envs.json_action import ActionError, Op, fields, integer, parse
from chipgym.envs.registry import SmokeEpisode

TASK = "Guess the hidden digit, from 0 to 9. After a wrong guess you are told whether it is higher or lower."


def _digit(data: Mapping) -> int:
    value = data.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9:
        raise ActionError("value: expected an integer from 0 to 9")
    return value


OPS = (Op("guess", "Guess the digit; a right guess ends the episode with reward 1.",
          fields({"value": integer(0, 9)}, ["value"]), _digit),)


def guess(value: int) -> str:
    return json.dumps({"op": "guess", "value": value})


class GuessEnv(TextActionEnv):
    env_id = "toy/Guess-v0"
    max_action = 200
    default_max_steps = 5
    chat = ChatProtocol("You guess a hidden digit.\n" + REPLY_RULES, kept=("task",), cuttable=(),
                        state=("feedback",), ops=OPS)
    info_keys = {**SKELETON_INFO, "hint": "after a guess: higher, lower or right"}

    def __init__(self, max_steps: int | None = None, timings: bool = False, render_mode: str | None = None):
        super().__init__({"max_steps": max_steps, "timings": timings, "render_mode": render_mode}, max_steps,
                         timings, render_mode)
        self.observation_space = spaces.Dict({"task": text_space(), "feedback": text_space()})
        self.digit = 0

    @classmethod
    def evaluation_episodes(cls, kwargs: Mapping[str, Any], names: Sequence[str] | None = None
                            ) -> list[tuple[str, dict[str, Any], str]]:
        return chosen([(f"digit-{d}", {"digit": d}, "odd" if d % 2 else "even") for d in range(10)], names, "digits")

    @staticmethod
    def scripted_plan(observation: dict[str, str]) -> Plan:
        """Bisection: right within four guesses."""
        low, high = 0, 9
        while low <= high:
            middle = (low + high) // 2
            info = yield guess(middle)
            low, high = (middle + 1, high) if info.get("hint") == "higher" else (low, middle - 1)

    @classmethod
    def smoke_episodes(cls, folder: Path) -> dict[str, SmokeEpisode]:
        return {"digit-3": SmokeEpisode({}, {"digit": 3}, [guess(5), "oops", guess(3)])}

    def parse_action(self, text: Any) -> int:
        return parse(text, OPS, self.max_action)

    def _begin(self, options: dict[str, Any]) -> dict[str, Any]:
        digit = options.get("digit", int(self.np_random.integers(10)))
        if isinstance(digit, bool) or not isinstance(digit, int) or not 0 <= digit <= 9:
            raise ValueError(f"options.digit: expected an integer from 0 to 9, got {digit!r}")
        self.digit, self.feedback = digit, ""
        return {"digit": digit}

    def _apply(self, value: int) -> StepOutcome:
        if value == self.digit:
            self.feedback = f"{value} is right."
            return StepOutcome(1.0, True, {"hint": "right"})
        hint = "higher" if self.digit > value else "lower"
        self.feedback = f"{value} is wrong: the digit is {hint}."
        return StepOutcome(info={"hint": hint})

    def _observation(self) -> dict[str, str]:
        return {"task": TASK, "feedback": self.feedback}

    def render(self) -> str:
        self._require_reset()
        return self.feedback


gymnasium.register("toy/Guess-v0", entry_point="toy_env:GuessEnv", max_episode_steps=GuessEnv.default_max_steps)
