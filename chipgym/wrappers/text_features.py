"""A fixed-size numeric view of an env's text observations, for learners that cannot read text (RLlib).

Each named text field becomes ``dim`` features: hashed word 1-2-grams (numbers are words, so ``0.14`` is one
token) in the first half, hashed character 2-4-grams within words in the second, each half L2-normalised
(scikit-learn's :class:`~sklearn.feature_extraction.text.HashingVectorizer`, non-negative). The
observation is a ``Box`` of ``len(fields) * dim`` values in [0, 1], the fields in the order given.

>>> import gymnasium, chipgym
>>> env = TextFeatures(gymnasium.make("chipgym/RtlDesign-v0", formal=False), fields=("task", "feedback"), dim=256)
>>> env.observation_space.shape
(512,)
"""
from __future__ import annotations

from typing import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from sklearn.feature_extraction.text import HashingVectorizer

TOKENS = r"\d+(?:\.\d+)?|[^\W\d]\w*"
"""Words and numbers (``0.14``, ``met1``, ``m1_1``): scikit-learn's default pattern drops one-letter words and
splits numbers at the dot."""


class TextFeatures(gymnasium.ObservationWrapper, gymnasium.utils.RecordConstructorArgs):
    """Hashed word and character n-gram features of the text fields ``fields`` of a Dict observation."""

    def __init__(self, env: gymnasium.Env, fields: Sequence[str] = ("rule", "layers", "feedback"), dim: int = 1024):
        gymnasium.utils.RecordConstructorArgs.__init__(self, fields=tuple(fields), dim=dim)
        gymnasium.ObservationWrapper.__init__(self, env)
        texts = env.observation_space
        if not isinstance(texts, spaces.Dict):
            raise TypeError(f"TextFeatures: the env's observation space is {texts}, not a Dict of text fields")
        wrong = [f for f in fields if not isinstance(texts.spaces.get(f), spaces.Text)]
        if wrong or not fields:
            known = ", ".join(k for k, s in texts.spaces.items() if isinstance(s, spaces.Text))
            raise ValueError(f"TextFeatures: fields {list(wrong) or '[]'} are not text fields of the observation "
                             f"(text fields: {known})")
        if dim < 2 or dim % 2:
            raise ValueError(f"TextFeatures: dim must be an even number >= 2, got {dim}")
        self.fields = tuple(fields)
        self.dim = dim
        self._words = HashingVectorizer(n_features=dim // 2, ngram_range=(1, 2), token_pattern=TOKENS,
                                        alternate_sign=False, lowercase=True)
        self._chars = HashingVectorizer(n_features=dim // 2, analyzer="char_wb", ngram_range=(2, 4),
                                        alternate_sign=False, lowercase=True)
        self.observation_space = spaces.Box(0.0, 1.0, (len(self.fields) * dim,), np.float32)

    def observation(self, observation: dict) -> np.ndarray:
        texts = [observation[f] for f in self.fields]
        words, chars = self._words.transform(texts).toarray(), self._chars.transform(texts).toarray()
        return np.concatenate([words, chars], axis=1).astype(np.float32).ravel()
