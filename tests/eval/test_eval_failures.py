"""Who failed decides an episode's status: an exception of the agent or of the env (on reset or on a step) is
the episode's failure, naming it; only the infrastructure's (an InfrastructureError, running out of memory)
makes it unavailable. And no rate rises by dropping episodes: rates are over the episodes attempted."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium import spaces

from chipgym.baselines.agent import EndpointUnavailable, Turn
from chipgym.baselines.episode_runner import EpisodeRunner, EpisodeSpec, end_record
from chipgym.baselines.eval_summary import summarize
from chipgym.baselines.step_log import LoggedEpisode
from chipgym.errors import EngineError

ERRORS = {"bug": IndexError("list index out of range"), "engine": EngineError("the KLayout worker died"),
          "memory": MemoryError(), "endpoint": EndpointUnavailable("http://x/v1: HTTP 500 after 5 attempts")}


class RaisingEnv(gymnasium.Env):
    """Raises ``options["error"]`` (a key of ERRORS) on reset or on its first step (``options["on"]``)."""

    observation_space = spaces.Dict({"feedback": spaces.Text(100, min_length=0)})
    action_space = spaces.Text(100, min_length=0)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.options = options or {}
        if self.options.get("on") == "reset":
            raise ERRORS[self.options["error"]]
        return {"feedback": ""}, {}

    def step(self, action):
        if self.options.get("on") == "step":
            raise ERRORS[self.options["error"]]
        return {"feedback": ""}, 0.0, False, False, {}


class RaisingAgent:
    """Raises ``ERRORS[error]`` when it is to act (a test's stand-in for an agent whose own code fails)."""

    def __init__(self, error: str | None):
        self.error = error

    def reset(self, observation, info, seed):
        pass

    def act(self, observation, info):
        if self.error:
            raise ERRORS[self.error]
        return Turn.of_action("{}")

    def close(self):
        pass


@pytest.mark.parametrize("on, error, status, reason", [
    ("reset", "bug", "failure", "reset raised IndexError: list index out of range"),
    ("step", "bug", "failure", "the env's step raised IndexError: list index out of range"),
    ("act", "bug", "failure", "the agent raised IndexError: list index out of range"),
    ("reset", "engine", "unavailable", "the KLayout worker died"),
    ("step", "memory", "unavailable", "MemoryError"),
    ("act", "endpoint", "unavailable", "http://x/v1: HTTP 500 after 5 attempts"),
])
def test_the_agent_and_the_env_fail_episodes_only_the_infrastructure_makes_them_unavailable(on, error, status,
                                                                                          reason):
    runner = EpisodeRunner("chipgym/RtlDesign-v0", {"formal": False}, "random")
    runner.env.close()
    runner.env, runner.agent = RaisingEnv(), RaisingAgent(error if on == "act" else None)
    records = runner.start(EpisodeSpec("t#0", {"on": on, "error": error}, seed=0))
    while records[-1]["type"] != "end":
        records += runner.advance()
    runner.close()
    assert (records[-1]["status"], records[-1]["reason"]) == (status, reason)


def logged(key: str, status: str) -> LoggedEpisode:
    spec = EpisodeSpec(key, {}, 0, "g")
    return LoggedEpisode({"episode": key, "group": "g"}, [], end_record(spec, 0, status, "", steps=2))


def test_an_unavailable_episode_counts_as_attempted_and_unsolved():
    summary = summarize([logged("a#0", "success"), logged("b#0", "unavailable")])
    figures = summary["all"]
    assert (figures["attempted"], figures["unavailable"], figures["successes"]) == (2, 1, 1)
    assert figures["success_rate"] == summary["groups"]["g"]["success_rate"] == 0.5
    samples = summarize([logged("a#0", "success"), logged("a#1", "unavailable")], samples=2)["all"]
    assert (samples["pass@1"], samples["pass@2"]) == (0.5, 1.0)
