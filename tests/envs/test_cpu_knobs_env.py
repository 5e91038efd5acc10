"""chipgym/CpuKnobs-v0 on the real flow: a design's reward is its real score (from the cache the scorer fills), a
design that misses timing gets 0 and the reason, an unavailable flow is not the design's 0, and no action
crashes the env. Two designs only (the multicycle core at 8,000 and 6,600 ps): the full sweep is
benchmarks/cpu_knob_calibration.py. Gymnasium's checker, determinism, replay and AsyncVectorEnv are in
test_conformance.py."""
import gymnasium
import numpy as np
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.scoring.chip import score_design
from chipgym.scoring.profile import load_profile
from chipgym.tasks.chip.cpu.generator import Knobs, generate

TWO_DESIGNS = {"pipeline": ["multicycle"], "forwarding": ["full"], "branch": ["predict-not-taken"],
               "multiplier": ["single-cycle"], "period": [0, 2]}
"""the multicycle fixture's design at 6,600 ps (misses timing) and at 8,000 ps (scores)"""
MEETS, MISSES = [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]


@pytest.fixture
def env():
    env = gymnasium.make("chipgym/CpuKnobs-v0", evaluations=3, choices=TWO_DESIGNS)
    yield env
    env.close()


def test_the_reward_is_the_real_score_and_a_missed_clock_scores_zero(env, tmp_path):
    obs, info = env.reset(seed=0)
    assert obs[4] == -1 and info == {"step": 0, "budget": 3}
    obs, reward, terminated, truncated, info = env.step(MEETS)
    score = score_design(generate(Knobs(period=2), tmp_path / "design"), profile="osu018")
    assert info["status"] == "ok" == score.status and info["design"] == "multicycle/mul-single-cycle/p2"
    assert reward == score.reward == pytest.approx(1 / (1 + info["cost"])) and 0 < reward < 1
    units = load_profile("osu018")
    expected = [score.T_us / units.time_us, score.E_nJ / units.energy_nJ, score.A_um2 / units.area_um2, score.cost]
    assert obs[:4] == pytest.approx(expected, rel=1e-6) and obs[4] == 1 and obs[-1] == pytest.approx(1 / 3)
    assert not terminated and not truncated

    obs, reward, terminated, _, info = env.step(MISSES)
    assert info["status"] == "failed" and reward == 0.0 and obs[4] == 0 and not obs[:4].any()
    assert info["failures"][0][0] == "timing" and info["period_ps"] == 6600 and "slack" in info["failures"][0][1]
    obs, reward, terminated, _, info = env.step(MEETS)
    assert terminated and info["budget"] == 0 and reward > 0
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(MEETS)


def test_an_unavailable_flow_is_not_the_designs_zero(tmp_path, monkeypatch):
    monkeypatch.setenv("CHIPGYM_PDK_HOME", str(tmp_path))  # no asap7 cells here
    env = gymnasium.make("chipgym/CpuKnobs-v0", profile="asap7", evaluations=1)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step([1, 1, 1, 1, 0])
    env.close()
    assert info["status"] == "unavailable" and "asap7" in info["reason"] and reward == 0.0
    assert obs[4] == -1 and terminated


@pytest.mark.parametrize("action", [[0, 0, 0, 0, 5], [0, 0, 0, -1, 0], [0.5] * 5, [0, 0], [[0] * 5], "submit",
                                    None, {"pipeline": 0}, [2**63 - 1] * 5])
def test_no_action_crashes_the_env(env, action):
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(action)
    assert reward == 0.0 and info["action_error"].startswith("action:") and obs in env.observation_space
    assert info["budget"] == 2 and not terminated


def test_the_env_refuses_arguments_that_name_no_knob():
    with pytest.raises(ValueError, match="choices: unknown knob 'pipe'"):
        gymnasium.make("chipgym/CpuKnobs-v0", choices={"pipe": ["multicycle"]})
    with pytest.raises(ValueError, match="profile"):
        gymnasium.make("chipgym/CpuKnobs-v0", profile="sky130")
    assert np.array_equal(gymnasium.make("chipgym/CpuKnobs-v0").action_space.nvec, [2, 2, 2, 2, 3])
