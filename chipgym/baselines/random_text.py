"""The random agent of ``chipgym eval --agent random``: random Text actions (as ``check_env`` sends them), and a
submit one step in five. It never writes a working deck or design, so its success rate is the floor any agent
should beat; it shows that malformed actions are feedback, not crashes.

>>> agent = RandomTextAgent(max_length=40)
>>> agent.reset({}, {}, seed=0)
>>> [agent.act({}, {}).action == agent.act({}, {}).action for _ in range(1)]
[False]
"""

from __future__ import annotations

import json
import random
from typing import Any

from gymnasium import spaces

from chipgym.baselines.agent import Turn
from chipgym.envs.base import CHARSET

SUBMIT_CHANCE = 0.2
SUBMIT = json.dumps({"op": "submit"})


class RandomTextAgent:
    """Random text of up to ``max_length`` characters, seeded by ``reset``; a submit with SUBMIT_CHANCE."""

    def __init__(self, max_length: int = 1000):
        self.space = spaces.Text(max_length=max_length, min_length=0, charset=CHARSET)
        self.rng = random.Random(0)

    def reset(self, observation: dict[str, str], info: dict[str, Any], seed: int) -> None:
        self.rng = random.Random(seed)
        self.space.seed(seed)

    def act(self, observation: dict[str, str], info: dict[str, Any]) -> Turn:
        return Turn.of_action(SUBMIT if self.rng.random() < SUBMIT_CHANCE else self.space.sample())

    def close(self) -> None:
        pass
