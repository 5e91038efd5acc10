"""Episodes of ``chipgym eval`` logs as conversations in the messages format LLM SFT and RL trainers read:
one JSON object per episode, with ``messages`` (system, user, assistant and tool turns, as chat-completions
writes them) and the reward attached (``reward``: the return; ``rewards``: one per assistant turn).

The conversation is the whole episode as the protocol of :mod:`chipgym.envs.chat` puts it, including turns an
agent's context budget dropped from its own requests, and ending with the env's answer to the last action.

>>> import tempfile, pathlib
>>> from chipgym.baselines.step_log import StepLog
>>> path = pathlib.Path(tempfile.mkdtemp()) / "steps.jsonl"
>>> with StepLog(path) as log:
...     log.write({"type": "start", "episode": "t#0", "attempt": 0, "env": "chipgym/DrcScript-v0", "seed": 0,
...                "options": {}, "group": "g", "messages": [{"role": "user", "content": "the rule"}]})
...     log.write({"type": "step", "episode": "t#0", "attempt": 0, "reward": 1.0, "answer": "accepted",
...                "message": {"role": "assistant", "content": "submit"}})
...     log.write({"type": "end", "episode": "t#0", "attempt": 0, "status": "success", "return": 1.0, "steps": 1})
>>> [record] = chat_records([path])
>>> [m["role"] for m in record["messages"]], record["reward"], record["rewards"]
(['user', 'assistant', 'user'], 1.0, [1.0])
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator, Sequence

from chipgym.baselines.step_log import LoggedEpisode, read_episodes
from chipgym.envs import chat

FORMATS = ("chat",)


def log_paths(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """The step logs named: files, or folders holding ``steps.jsonl``."""
    found = []
    for path in map(Path, paths):
        log = path / "steps.jsonl" if path.is_dir() else path
        if not log.is_file():
            raise FileNotFoundError(f"LOGS: no step log at {log}")
        found.append(log)
    return found


def episode_chat(episode: LoggedEpisode) -> dict[str, Any]:
    """One episode as a conversation with its rewards."""
    messages = list(episode.start.get("messages", []))
    for step in episode.steps:
        messages.append(step["message"])
        messages.extend(chat.answer(step["message"], step["answer"]))
    start, end = episode.start, episode.end
    return {"id": start["episode"], "env": start.get("env"), "group": start.get("group"), "seed": start.get("seed"),
            "options": start.get("options"), "messages": messages, "reward": end["return"],
            "rewards": [step["reward"] for step in episode.steps], "status": end["status"], "steps": end["steps"],
            "prompt_tokens": end.get("prompt_tokens", 0), "completion_tokens": end.get("completion_tokens", 0)}


def chat_records(paths: Sequence[str | os.PathLike], include_unavailable: bool = False) -> Iterator[dict[str, Any]]:
    """Every finished episode of the logs as a conversation; unavailable ones (no verdict) only when asked."""
    for path in log_paths(paths):
        for episode in read_episodes(path):
            if include_unavailable or episode.end["status"] != "unavailable":
                yield episode_chat(episode)


def write_chat(paths: Sequence[str | os.PathLike], out, include_unavailable: bool = False) -> int:
    """Writes the conversations to the text stream ``out``, one JSON object a line; returns how many."""
    count = 0
    for record in chat_records(paths, include_unavailable):
        out.write(json.dumps(record) + "\n")
        count += 1
    return count
