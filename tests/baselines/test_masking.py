"""The masking PPO module never samples a choice the observation's action_mask forbids, and its loss terms
stay finite."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces

from chipgym.baselines.masking import MaskedPPOTorchRLModule

NVEC = [4, 3, 5]


def test_sampled_actions_stay_inside_the_mask():
    space = spaces.Dict({"observations": spaces.Box(0, 1, (6,), np.float32),
                         "action_mask": spaces.Box(0, 1, (sum(NVEC),), np.float32)})
    module = MaskedPPOTorchRLModule(observation_space=space, action_space=spaces.MultiDiscrete(NVEC),
                                    model_config={"fcnet_hiddens": [16]})
    rng = np.random.default_rng(0)
    masks = (rng.random((256, sum(NVEC))) < 0.5).astype(np.float32)
    for start, size in zip(np.cumsum([0, *NVEC[:-1]]), NVEC):  # every dimension allows at least one choice
        masks[np.arange(256), start + rng.integers(size, size=256)] = 1.0
    batch = {"obs": {"observations": torch.rand(256, 6), "action_mask": torch.from_numpy(masks)}}
    logits = module.forward_exploration(batch)["action_dist_inputs"]
    distribution = module.get_exploration_action_dist_cls().from_logits(logits)
    actions = distribution.sample().numpy()
    chosen = np.stack([masks[np.arange(256), start + actions[:, i]]
                       for i, start in enumerate(np.cumsum([0, *NVEC[:-1]]))], axis=1)
    assert chosen.min() == 1.0
    assert torch.isfinite(distribution.entropy()).all() and torch.isfinite(distribution.logp(torch.from_numpy(
        actions))).all()
    assert torch.equal(module.forward_train(batch)["action_dist_inputs"], logits)
