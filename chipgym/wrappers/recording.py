"""Recording every episode of a chipgym env as a JSON file that ``chipgym replay`` plays again.

>>> import gymnasium, tempfile, chipgym
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> env = RecordEpisodes(gymnasium.make("chipgym/RtlDesign-v0", formal=False), folder)
>>> _ = env.reset(seed=0)
>>> _ = env.step('{"op": "submit", "extra": [')    # malformed: feedback, and a step
>>> env.close()
>>> [path.name for path in folder.iterdir()]
['episode-000000.json']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import gymnasium as gym


class RecordEpisodes(gym.Wrapper):
    """Writes each episode of the env (from its ``episode_record``) to ``folder/episode-NNNNNN.json``: when it
    ends, at the next reset, or at close, whichever comes first, and only once it has a step."""

    def __init__(self, env: gym.Env, folder: str | os.PathLike):
        super().__init__(env)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.episodes = 0
        self._pending = False

    def reset(self, **kwargs):
        self._write()
        result = self.env.reset(**kwargs)
        self._pending = False
        return result

    def step(self, action: Any):
        result = self.env.step(action)
        self._pending = True
        if result[2] or result[3]:
            self._write()
        return result

    def close(self):
        self._write()
        super().close()

    def _write(self) -> None:
        if self._pending:
            self.env.unwrapped.save_episode(self.folder / f"episode-{self.episodes:06d}.json")
            self.episodes += 1
            self._pending = False
