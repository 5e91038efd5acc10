"""Any chipgym env as a chat: ``reset()`` gives the opening messages, ``step(assistant_text)`` carries out the
action in the reply as :func:`chipgym.envs.chat.action_from_reply` reads it (a fenced JSON block, the reply
itself when it is one JSON object, a DRC deck in a fenced ``ruby`` block) and gives the conversation with the
env's answer appended, so a multi-turn RL trainer can use a chipgym env as its environment (docs/llm-agents.md
shows the few lines of a trainer's rollout hook).

Observations are the whole conversation so far, a tuple of ``{"role", "content"}`` messages (the last one is
the env's answer); actions are the assistant's text. The system prompt lists the actions and their fields. A
reply without an action costs a step (the env rejects the empty action sent in its place) and is answered "no
action found" with the actions, as the LLM agent answers it.

>>> import gymnasium, chipgym
>>> env = ChatEnv(gymnasium.make("chipgym/RtlDesign-v0", formal=False, max_steps=3, max_episode_steps=3))
>>> messages, info = env.reset(seed=0)
>>> [m["role"] for m in messages]
['system', 'user']
>>> messages, reward, terminated, truncated, info = env.step('```json\\n{"op": "set_clock", "period_ps": 5000}\\n```')
>>> messages[-2]["role"], messages[-1]["content"].splitlines()[1]
('assistant', 'clock_period_ps = 5000 in design.toml.')
>>> env.close()
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium import spaces

from chipgym.envs import chat
from chipgym.envs.base import CHARSET, MAX_TEXT, observation_text


def message_space() -> spaces.Dict:
    text = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
    return spaces.Dict({"role": spaces.Text(max_length=9, min_length=4, charset="abcdefghijklmnopqrstuvwxyz"),
                        "content": text})


class ChatEnv(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A chipgym env (``chipgym/DrcScript-v0`` or ``chipgym/RtlDesign-v0``) spoken to in chat messages.

    ``max_chars`` cuts the task message's long fields (docs, examples; never the rule or the task) to fit.
    """

    def __init__(self, env: gym.Env, max_chars: int | None = None):
        gym.utils.RecordConstructorArgs.__init__(self, max_chars=max_chars)
        gym.Wrapper.__init__(self, env)
        self.env_id = env.spec.id if env.spec is not None else env.unwrapped.env_id
        chat.protocol(self.env_id)  # an env without a chat protocol is refused here
        self.max_chars = max_chars
        self.observation_space = spaces.Sequence(message_space(), stack=False)
        self.action_space = spaces.Text(max_length=env.unwrapped.max_action, min_length=0, charset=CHARSET)
        self.messages: list[dict[str, str]] = []

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self.messages = [{"role": m["role"], "content": observation_text(m["content"])}
                         for m in chat.messages(self.env_id, observation, self.max_chars)]
        return tuple(self.messages), info

    def step(self, action: Any):
        text = action if isinstance(action, str) else ""
        parsed = chat.action_from_reply(text, env_id=self.env_id)
        observation, reward, terminated, truncated, info = self.env.step(parsed or "")
        answer = chat.state_message(self.env_id, observation, unread="" if parsed is not None else chat.NO_ACTION)
        self.messages.append({"role": "assistant", "content": observation_text(text)})
        self.messages.append({"role": "user", "content": observation_text(answer)})
        return tuple(self.messages), reward, terminated, truncated, info
