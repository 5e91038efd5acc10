"""What the LLM parts of selection are shown of a task, and how a deck is read from a reply: the rule, the
layers and the public examples as the env's observation writes them, never a hidden layout.

>>> deck_from_reply("Here it is:\\n```ruby\\nsource($input)\\n```")
'source($input)\\n'
>>> deck_from_reply('```json\\n{"op": "write", "script": "report(1)"}\\n```'), deck_from_reply("no deck")
('report(1)', None)
"""

from __future__ import annotations

import zlib
from typing import Sequence

import numpy as np

from chipgym.baselines.agent import ContextOverflow
from chipgym.baselines.llm import ChatClient, LlmConfig
from chipgym.envs import chat, drc_actions
from chipgym.envs.drc_script import examples_text
from chipgym.envs.json_action import ActionError
from chipgym.tasks.drc.rule_text import layers_text, rule_text
from chipgym.tasks.drc.task import DrcTaskView

DRC = "chipgym/DrcScript-v0"


def task_text(task: DrcTaskView) -> str:
    """The rule, the layers and the public examples of a task, as sections of one message."""
    return "\n\n".join(f"## {name}\n{text}" for name, text in
                       (("rule", rule_text(task)), ("layers", layers_text(task)), ("examples", examples_text(task))))


def deck_from_reply(content: str) -> str | None:
    """The deck of a reply: the script of the ``write`` action the DRC env's chat protocol reads in it (fenced
    JSON, or a deck in a fenced ``ruby`` block), else None."""
    action = chat.action_from_reply(content, env_id=DRC)
    try:
        parsed = drc_actions.parse(action) if action is not None else None
    except ActionError:
        return None
    return parsed.script if isinstance(parsed, drc_actions.Write) else None


def decks_text(decks: Sequence[str]) -> str:
    """Decks as numbered sections of a message (deck 1, deck 2, ...)."""
    return "\n\n".join(f"### deck {i + 1}\n```ruby\n{deck}\n```" for i, deck in enumerate(decks))


def ask(config: LlmConfig, system: str, user: str) -> str:
    """The content of the model's reply to one system and one user message; "" when the server refuses the
    request as over its context (the model gave nothing to use: a candidate without a deck, no tests, no
    verdict), as ``chipgym eval`` makes it the episode's failure, not the infrastructure's."""
    client = ChatClient(config)
    try:
        return client.complete([{"role": "system", "content": system},
                                {"role": "user", "content": user}]).message["content"]
    except ContextOverflow:
        return ""
    finally:
        client.close()


def task_rng(seed: int, task_id: str, purpose: str) -> np.random.Generator:
    """A random generator of its own for one task, seed and purpose: the same whatever order tasks run in."""
    return np.random.default_rng([seed, zlib.crc32(f"{task_id}/{purpose}".encode())])
