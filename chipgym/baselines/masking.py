"""An RLlib PPO module that never samples an action its observation's ``action_mask`` forbids.

The env's observation is a Dict of ``"observations"`` (what the networks read) and ``"action_mask"`` (0/1, one
entry per logit). For a ``MultiDiscrete`` action the logits are the per-dimension logits concatenated, so the
mask has ``sum(nvec)`` entries; for a ``Discrete`` action, ``n``. A forbidden logit is pushed to the lowest
float, so its probability is zero and the entropy and KL terms stay finite. Every dimension must allow at
least one choice (the env's job). Written after the facts of RLlib's action-masking example.

>>> from gymnasium import spaces
>>> import numpy as np, torch
>>> space = spaces.Dict({"observations": spaces.Box(0, 1, (3,), np.float32),
...                      "action_mask": spaces.Box(0, 1, (5,), np.float32)})
>>> module = MaskedPPOTorchRLModule(observation_space=space, action_space=spaces.MultiDiscrete([2, 3]),
...                                 model_config={"fcnet_hiddens": [8]})
>>> batch = {"obs": {"observations": torch.zeros(1, 3), "action_mask": torch.tensor([[0., 1., 1., 0., 0.]])}}
>>> logits = module.forward_inference(batch)["action_dist_inputs"]
>>> [int(i) for i in greedy_actions(logits, [2, 3])[0]]
[1, 0]
"""

from __future__ import annotations

from typing import Sequence

import gymnasium
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

MASK, FEATURES = "action_mask", "observations"
LOWEST = torch.finfo(torch.float32).min


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module on ``obs["observations"]``, its action logits masked by ``obs["action_mask"]``."""

    def __init__(self, *, observation_space: gymnasium.Space | None = None, **kwargs):
        if not is_masked_space(observation_space):
            raise ValueError(f"MaskedPPOTorchRLModule: the observation space must be a Dict of exactly "
                             f"'{FEATURES}' and '{MASK}', got {observation_space}")
        self.masked_space = observation_space
        super().__init__(observation_space=observation_space[FEATURES], **kwargs)

    def setup(self):
        super().setup()  # builds the networks for the features only; RLlib then sees the whole Dict
        self.observation_space = self.masked_space

    def _forward_inference(self, batch, **kwargs):
        mask, batch = _split(batch)
        return _masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        mask, batch = _split(batch)
        return _masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        _mask, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def is_masked_space(space: gymnasium.Space | None) -> bool:
    """Whether ``space`` is the Dict of exactly ``"observations"`` and ``"action_mask"`` this module reads."""
    return isinstance(space, gymnasium.spaces.Dict) and set(space.spaces) == {MASK, FEATURES}


def _split(batch: dict) -> tuple[torch.Tensor, dict]:
    """The mask, and a shallow copy of the batch whose observation is the features alone."""
    observation = batch[Columns.OBS]
    return observation[MASK], {**batch, Columns.OBS: observation[FEATURES]}


def _masked(outputs: dict, mask: torch.Tensor) -> dict:
    outputs[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0.5, outputs[Columns.ACTION_DIST_INPUTS], LOWEST)
    return outputs


def greedy_actions(logits: torch.Tensor, nvec: Sequence[int]) -> torch.Tensor:
    """The most likely choice of each MultiDiscrete dimension, from concatenated logits (batch, sum(nvec))."""
    return torch.stack([part.argmax(dim=-1) for part in torch.split(logits, list(nvec), dim=-1)], dim=-1)
