"""ChatEnv: a chipgym env spoken to in chat messages; Gymnasium's checker accepts it, it runs in an
AsyncVectorEnv, a reply's fenced action (or a deck in a fenced ruby block) is carried out, a reply without one
costs a step and is answered "no action found" with the actions, and the same seed and replies give the same
conversation."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.wrappers import ChatEnv

from layout_helpers import MET1_WIDTH_GOLD, met1_width_task


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return met1_width_task(tmp_path_factory.mktemp("task"), {"ex_narrow": 0.1}, {"at": 0.14, "under": 0.139})


def fenced(action: str) -> str:
    return f"Here is my action.\n```json\n{action}\n```"


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")  # the wrapper is what is checked
def test_the_checker_accepts_it(task):
    env = ChatEnv(DrcScriptEnv(tasks=[task], split="all"))
    check_env(env, skip_render_check=True)
    env.close()


def test_a_reply_is_carried_out_and_the_reward_comes_back(task):
    from chipgym.envs import drc_actions as act

    conversations = []
    for _ in range(2):
        env = ChatEnv(DrcScriptEnv(tasks=[task], split="all"))
        messages, _ = env.reset(seed=0)
        assert [m["role"] for m in messages] == ["system", "user"] and "met1" in messages[1]["content"]
        assert "- add_test {" in messages[0]["content"]  # the actions and their fields
        messages, reward, terminated, _, info = env.step("I am not sure yet.")
        assert "action_error" in info and info["step"] == 1 and not terminated
        assert messages[-1]["content"].startswith("## feedback\nYour reply was not read: no action found.")
        assert "- write {" in messages[-1]["content"] and "not valid JSON" not in messages[-1]["content"]
        env.step(f"The deck:\n```ruby\n{MET1_WIDTH_GOLD}\n```")  # read as write, as chipgym select reads it
        messages, reward, terminated, _, info = env.step(act.submit())  # a bare JSON reply works too
        assert (reward, terminated) == (1.0, True)
        assert [m["role"] for m in messages][2:] == ["assistant", "user"] * 3
        assert "Submitted: accepted" in messages[-1]["content"]
        conversations.append(messages)
        env.close()
    assert conversations[0] == conversations[1]


def test_it_runs_in_an_async_vector_env(task):
    envs = gymnasium.vector.AsyncVectorEnv([lambda: ChatEnv(DrcScriptEnv(tasks=[task], split="all"))] * 2,
                                           shared_memory=False)
    try:
        conversations, _ = envs.reset(seed=[0, 1])
        assert len(conversations) == 2 and conversations[0][1]["role"] == "user"
        conversations, rewards, *_ = envs.step([fenced('{"op": "run"}'), "no action"])
        assert [len(c) for c in conversations] == [4, 4]
        assert "Ran the deck" in conversations[0][-1]["content"]
    finally:
        envs.close()
