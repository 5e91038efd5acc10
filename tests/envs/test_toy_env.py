"""An env written in a test (``tests/toy_env.py``: its module and one registration line, nothing else touched)
passes the conformance checks, speaks chat under ``ChatEnv`` and runs in ``chipgym eval`` with its scripted agent,
in a process of its own as a user runs it (issue 29 §1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
import toy_env  # noqa: F401  (registers toy/Guess-v0)
from env_conformance import CHECKS

from chipgym.envs import chat
from chipgym.envs.registry import smoke_episodes
from chipgym.wrappers import ChatEnv

TOY = "toy/Guess-v0"


@pytest.mark.parametrize("check", CHECKS, ids=[check.__name__ for check in CHECKS])
def test_the_toy_env_passes_the_conformance_checks(check, tmp_path):
    [episode] = smoke_episodes(TOY, tmp_path).values()
    check(TOY, episode, tmp_path)


def test_the_toy_env_speaks_chat_with_its_ops_as_tools():
    assert [tool["function"]["name"] for tool in chat.tools(TOY)] == ["guess"]
    env = ChatEnv(gymnasium.make(TOY))
    messages, _ = env.reset(seed=0, options={"digit": 7})
    assert [m["role"] for m in messages] == ["system", "user"] and "- guess" in messages[0]["content"]
    messages, reward, terminated, _, _ = env.step('```json\n{"op": "guess", "value": 2}\n```')
    assert (reward, terminated) == (0.0, False) and "the digit is higher" in messages[-1]["content"]
    messages, reward, terminated, _, _ = env.step('{"op": "guess", "value": 7}')
    assert (reward, terminated) == (1.0, True)
    env.close()


def test_chipgym_eval_plays_the_toy_env_with_its_scripted_agent_on_ray(tmp_path):
    out = tmp_path / "eval"
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}  # where toy_env is, as a user's
    result = subprocess.run([sys.executable, "-m", "chipgym", "eval", "--env", f"toy_env:{TOY}", "--agent", "scripted",
                             "--out", str(out), "--no-progress"], env=environment, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["all"]["attempted"], summary["all"]["successes"]) == (10, 10)
    assert sorted(summary["groups"]) == ["even", "odd"]
