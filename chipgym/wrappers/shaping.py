"""Reward shaping for chipgym's envs, read from ``info``: the envs return the task's sparse reward only.

>>> import gymnasium, chipgym
>>> env = RtlRewardShaping(gymnasium.make("chipgym/RtlDesign-v0", formal=False))
>>> _ = env.reset(seed=0, options={"start": "multicycle"})
>>> env.step('{"op": "check"}')[1]       # every public program passes: the potential rises to its full weight
0.5
>>> env.close()
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from chipgym.results import Status


class DrcRewardShaping(gym.Wrapper):
    """``chipgym/DrcScript-v0`` with a cost for each ``run`` and each malformed action, and partial credit for a
    failed submit in proportion to the hidden layouts it matched (training regime; evaluation says only
    whether a submit succeeded, so it earns none).

    Args:
        env: a DrcScript env.
        run_cost: what each run and each malformed action costs.
        partial_weight: a failed submit earns this times the fraction of layouts matched.
    """

    def __init__(self, env: gym.Env, run_cost: float = 0.01, partial_weight: float = 0.5):
        super().__init__(env)
        self.run_cost, self.partial_weight = run_cost, partial_weight

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(reward) + self.shaping(info), terminated, truncated, info

    def shaping(self, info: dict[str, Any]) -> float:
        if "action_error" in info or "run" in info:
            return -self.run_cost
        grade = info.get("grade", {})
        if grade.get("success") is False and "layouts_matched" in grade:
            return self.partial_weight * grade["layouts_matched"]
        return 0.0


class RtlRewardShaping(gym.Wrapper):
    """``chipgym/RtlDesign-v0`` with potential-based shaping, so an episode's return is its sparse return.

    The potential is ``weight * programs_passed / programs`` of the last ``check`` (programs passing both
    simulation and lockstep; 0 when the ports or the build fail; an unavailable check leaves it as it was).
    A ``check`` earns the change of potential; ``submit`` earns the reward less the potential (unless grading
    was unavailable); the step that runs out of budget earns minus the potential.

    Args:
        env: an RtlDesign env.
        weight: the potential of a design that passes every public program.
    """

    def __init__(self, env: gym.Env, weight: float = 0.5):
        super().__init__(env)
        self.weight = weight
        self.potential = 0.0
        self._ended = False

    def reset(self, **kwargs):
        self.potential, self._ended = 0.0, False
        return self.env.reset(**kwargs)

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, self._shaped(reward, terminated, truncated, info), terminated, truncated, info

    def _shaped(self, reward: SupportsFloat, terminated: bool, truncated: bool, info: dict[str, Any]) -> float:
        reward = float(reward)
        if self._ended:
            return reward
        self._ended = terminated or truncated
        available = info.get("status") != Status.UNAVAILABLE
        if "check" in info and available:
            check = info["check"]
            potential = self.weight * check["programs_passed"] / check["programs"]
            reward, self.potential = reward + potential - self.potential, potential
        elif terminated and available:
            reward -= self.potential
        if truncated and not terminated:
            reward -= self.potential
        return reward
