"""chipgym/RtlDesign-v0 with the real cpu checks (Verilator, yosys) behind it."""

from __future__ import annotations

import json

import gymnasium
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.envs import rtl_actions as act
from chipgym.envs import rtl_design
from chipgym.envs.episode import replay
from chipgym.envs.rtl_design import PUBLIC_SEED, RtlDesignEnv
from chipgym.errors import ToolMissingError
from chipgym.scoring.chip import ChipScore
from chipgym.tasks.chip.cpu.workloads import KERNELS
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.grading_seed import SEED_ENV
from chipgym.wrappers import RtlRewardShaping

CPU = load_task("cpu")

MUTANTS = CPU.mutants
SECRET_SEED = 987654321


@pytest.fixture
def env():
    env = RtlDesignEnv(formal=False, max_steps=12)
    yield env
    env.close()


@pytest.fixture
def checks(monkeypatch):
    """Counts the env's calls of check_design."""
    calls = []

    def counting(*args, **kwargs):
        calls.append(kwargs)
        return check_design(*args, **kwargs)

    check_design = rtl_design.check_design
    monkeypatch.setattr(rtl_design, "check_design", counting)
    return calls


def mutant_actions(name: str) -> list[str]:
    return [act.patch(file, old, new) for file, old, new in MUTANTS[name].edits]


def test_reset_shows_contracts_workloads_and_an_empty_folder(env):
    obs, info = env.reset(seed=0)
    assert set(obs) == {"task", "contracts", "ports", "workloads", "files", "feedback", "budget"}
    assert "Chip task `cpu`" in obs["task"] and '"op": "submit"' in obs["task"]
    assert "== arch.xml ==" in obs["contracts"] and "== isa.xml ==" in obs["contracts"]
    assert "chipgym_cpu" in obs["ports"]
    assert "memcpy: 10 words" in obs["workloads"] and "random-1000-illegal" in obs["workloads"]
    assert obs["files"] == "The design folder is empty." and obs["budget"] == "12 of 12 steps left"
    assert info == {"start": "empty", "step": 0, "budget": 12}
    obs, _ = env.reset(seed=0, options={"start": "pipelined"})
    assert "rtl/chipgym_cpu.v" in obs["files"] and "clock_period_ps = " in obs["files"]
    with pytest.raises(ValueError, match="start"):
        env.reset(options={"start": "superscalar"})


def test_edits_stay_inside_the_folder_and_malformed_actions_cost_a_step(env, tmp_path):
    env.reset(seed=0)
    (env.root / "outside").symlink_to(tmp_path)
    rejected = {
        act.write("/etc/passwd", "x"): "path: absolute",
        act.write("rtl/../../x.v", "x"): "path: '..'",
        act.write("outside/x.v", "x"): "path: outside/x.v leads outside",
        act.write("rtl/x.v", "x" * (act.MAX_FILE + 1)): "text: longer than",
        act.write("a" * 200, "x"): "path: longer than",
        act.patch("rtl/none.v", "a", "b"): "path: no file rtl/none.v",
        act.delete("design.toml"): "path: no file design.toml",
        act.set_clock(0): "period_ps: expected an integer",
        '{"op": "check", "estimate": 1}': "estimate: expected true or false",
        '{"op": "write", "path": "a.v", "text": "\\ud800"}': "text: not valid Unicode",
        "not json": "action: not valid JSON",
        '["op"]': "action: expected a JSON object",
    }
    for step, (action, message) in enumerate(rejected.items(), start=1):
        obs, reward, terminated, truncated, info = env.step(action)
        assert message in info["action_error"] and obs["feedback"].startswith("Action rejected: " + message)
        assert (reward, terminated, info["step"]) == (0.0, False, step)
    assert list(tmp_path.iterdir()) == [] and obs["files"] == "The design folder is empty."
    assert truncated and obs["budget"] == "0 of 12 steps left"


def test_write_patch_delete_and_set_clock(env):
    env.reset(seed=0)
    env.step(act.set_clock(3000))
    assert (env.root / "design.toml").read_text() == 'top = "chipgym_cpu"\nclock_period_ps = 3000\n'
    obs, *_ = env.step(act.set_clock(2200))
    assert "clock_period_ps = 2200" in obs["files"] and "3000" not in obs["files"]
    env.step(act.write("rtl/cpu.v", "module a; endmodule\nmodule a; endmodule\n"))
    *_, info = env.step(act.patch("rtl/cpu.v", "module a;", "module b;"))
    assert info["action_error"] == "search: occurs 2 times in rtl/cpu.v; it must occur exactly once"
    env.step(act.patch("rtl/cpu.v", "module a; endmodule\nmodule a", "module b; endmodule\nmodule c"))
    assert (env.root / "rtl/cpu.v").read_text() == "module b; endmodule\nmodule c; endmodule\n"
    *_, info = env.step(act.write("rtl", "x"))
    assert info["action_error"] == "path: rtl is a folder"
    obs, *_ = env.step(act.delete("rtl/cpu.v"))
    assert "rtl/cpu.v" not in obs["files"] and obs["feedback"] == "Deleted rtl/cpu.v."


def test_fixture_passes_and_identical_content_hits_the_cache(checks):
    env = RtlDesignEnv(formal=False, timings=True)
    env.reset(seed=0, options={"start": "multicycle"})
    obs, reward, terminated, _, info = env.step(act.check())
    assert info["status"] == "ok" and (reward, terminated) == (0.0, False), obs["feedback"]
    assert obs["feedback"].startswith("Check: PASS. All 21 public programs pass.")
    assert info["check"]["programs_passed"] == 21 and info["check"]["cycles"]["memcpy"] > 12000
    text = (env.root / "rtl/chipgym_cpu.v").read_text()
    env.step(act.write("rtl/chipgym_cpu.v", text))
    _, _, _, _, again = env.step(act.check())
    assert len(checks) == 1 and again["check"] == info["check"]
    assert set(again["seconds"]) == {"step"}, "a remembered check reports no check times"
    env.reset(seed=1, options={"start": "multicycle"})
    env.step(act.check())
    assert len(checks) == 1, "the cache outlives an episode"
    env.close()


def test_a_timing_model_change_is_checked_again_and_fails_lockstep(env, checks):
    env.reset(seed=0, options={"start": "multicycle"})
    env.step(act.check())
    for action in mutant_actions("timing_model_off_by_one"):
        env.step(action)
    obs, reward, _, _, info = env.step(act.check())
    assert len(checks) == 2 and info["status"] == "failed" and reward == 0.0
    assert info["check"]["failed_checks"] == ["lockstep"]
    check, detail = info["check"]["failures"][0]
    assert check == "lockstep" and "model says" in detail and detail in obs["feedback"]
    assert obs["feedback"].startswith("Check: FAIL in lockstep. 8 of 21 public programs pass.")
    assert info["check"]["programs_passed"] == 8, "the model is late on programs that halt, not on those that fault"


def test_check_never_runs_held_out_kernels(env, monkeypatch):
    monkeypatch.setenv(SEED_ENV, str(SECRET_SEED))
    env.reset(seed=0, options={"start": "multicycle"})
    obs, _, _, _, info = env.step(act.check())
    assert info["status"] == "ok" and info["check"]["programs"] == 21
    assert not any("heldout" in name for name in info["check"]["cycles"])


def test_tool_missing_is_unavailable_not_a_failure(env, monkeypatch):
    def missing(*args, **kwargs):
        raise ToolMissingError("verilator", "apt-get install -y verilator")

    monkeypatch.setattr(rtl_design, "check_design", missing)
    env.reset(seed=0, options={"start": "multicycle"})
    obs, reward, terminated, _, info = env.step(act.check())
    assert info["status"] == "unavailable" and "verilator was not found" in info["reason"]
    assert obs["feedback"].startswith("Check unavailable (not the design's fault)") and reward == 0.0
    assert not env._checks, "an unavailable check is not remembered"


def test_shaped_rewards_telescope_to_the_sparse_return():
    env = RtlRewardShaping(RtlDesignEnv(formal=False, max_steps=4))
    env.reset(seed=0, options={"start": "multicycle"})
    rewards = []
    for action in (act.check(), *mutant_actions("timing_model_off_by_one"), act.check(), act.set_clock(1250)):
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
    assert truncated and not terminated
    weight = env.weight
    passing = weight * 8 / 21
    assert rewards == pytest.approx([weight, 0.0, passing - weight, -passing])
    assert sum(rewards) == pytest.approx(0.0)
    env.close()


def test_same_seed_and_actions_give_the_same_episode(tmp_path):
    actions = [act.set_clock(1500), *mutant_actions("timing_model_off_by_one"), act.check(), "oops", act.check()]

    def play():
        env = RtlDesignEnv(formal=False, timings=True)
        out = [env.reset(seed=3, options={"start": "multicycle"})]
        for action in actions:
            obs, reward, terminated, truncated, info = env.step(action)
            info.pop("seconds")
            out.append((obs, reward, terminated, truncated, info))
        env.save_episode(tmp_path / "episode.json")
        env.close()
        return out

    assert play() == play()
    saved = json.loads((tmp_path / "episode.json").read_text())
    assert saved["options"] == {"start": "multicycle"} and len(saved["steps"]) == len(actions)
    result = replay(tmp_path / "episode.json")
    assert result.ok and result.rewards == [step["reward"] for step in saved["steps"]]


def test_async_vector_env_with_two_private_folders():
    envs = gymnasium.vector.AsyncVectorEnv(
        [lambda: gymnasium.make("chipgym/RtlDesign-v0", task="cpu", formal=False)] * 2, shared_memory=False
    )
    try:
        envs.reset(seed=[0, 1], options={"start": "multicycle"})
        roots = envs.get_attr("root")
        assert roots[0] != roots[1]
        envs.step([act.write("notes.txt", "zero"), act.set_clock(1400)])
        obs, rewards, terminated, truncated, info = envs.step([act.check(), act.check()])
        assert "notes.txt" in obs["files"][0] and "notes.txt" not in obs["files"][1]
        assert list(info["status"]) == ["ok", "ok"] and list(rewards) == [0.0, 0.0]
    finally:
        envs.close()
    assert not any(root.exists() for root in roots)


def test_close_removes_the_design_folder(env):
    env.reset(seed=0, options={"start": "pipelined"})
    env.close()
    assert not env.root.exists()


# -- submit ---------------------------------------------------------------------------------------------------
def fake_score(status: str, reward: float = 0.0, failures=(), reason: str = "") -> ChipScore:
    workloads = {"memcpy": {"T_us": 1.0}, "heldout-0-crc32": {"T_us": 2.0}}
    return ChipScore(status, reward, "osu018", key="0" * 64, failures=list(failures), reason=reason, T_us=1.5,
                     E_nJ=2.0, A_um2=3.0, cost=3.0, period_ps=2500, slack_ps=10.0, cells=900, cycles=12345,
                     retired=678, workloads=workloads, seconds={"check": 2.0})


@pytest.fixture
def fake_scoring(monkeypatch):
    """Stands in for score_design: records the calls, answers with ``scores[0]``."""
    calls, scores = [], []

    def score_design(design_dir, task, profile, grading_seed):
        calls.append({"task": task, "profile": profile, "grading_seed": grading_seed})
        return scores[0]

    monkeypatch.setattr(rtl_design, "score_design", score_design)
    return calls, scores


def test_submit_passes_the_grading_seed_and_never_shows_it(fake_scoring, tmp_path):
    calls, scores = fake_scoring
    scores.append(fake_score("ok", reward=0.25))
    env = RtlDesignEnv(formal=False, grading_seed=SECRET_SEED, profile="asap7", timings=True)
    with pytest.raises(ValueError, match="profile"):
        RtlDesignEnv(profile="tsmc3")
    env.reset(seed=0, options={"start": "multicycle"})
    obs, reward, terminated, _, info = env.step(act.submit())
    assert calls == [{"task": "cpu", "profile": "asap7", "grading_seed": SECRET_SEED}]
    assert (reward, terminated, info["status"], info["graded_with"]) == (0.25, True, "ok", "grading seed")
    assert obs["feedback"].startswith("Submitted: accepted, reward 0.2500 (osu018): cost 3 = T 1.5 us")
    assert info["score"]["T_us"] == 1.5 and info["seconds"]["submit"] == {"check": 2.0}
    assert info["score"]["workloads"] == {"memcpy": {"T_us": 1.0}} and "key" not in info["score"]
    assert not {"cycles", "retired"} & set(info["score"])  # totals over held-out kernels too
    env.save_episode(tmp_path / "episode.json")
    shown = json.dumps([obs, info]) + (tmp_path / "episode.json").read_text()
    assert str(SECRET_SEED) not in shown
    *_, info = env.step(act.check())
    assert info["action_error"] == "the episode has ended; call reset()"
    env.close()


def test_submit_without_a_seed_says_it_is_not_an_evaluation(fake_scoring, monkeypatch, env):
    monkeypatch.delenv(SEED_ENV, raising=False)
    calls, scores = fake_scoring
    scores.append(fake_score("failed", failures=[("functional", f"{env.root}/rtl/x.v: heldout-0-crc32: retirement 3")]))
    env.reset(seed=5, options={"start": "multicycle"})
    obs, reward, _, _, info = env.step(act.submit())
    assert reward == 0.0 and info["graded_with"] == PUBLIC_SEED and info["status"] == "failed"
    assert info["failures"] == [["functional", "rtl/x.v: heldout-0-crc32: retirement 3"]]
    assert obs["feedback"].startswith("Submitted: rejected, reward 0. functional: rtl/x.v")
    env.reset(seed=5)
    env.step(act.submit())
    assert calls[0]["grading_seed"] == calls[1]["grading_seed"] != SECRET_SEED


def test_submit_unavailable_is_flagged(fake_scoring, env):
    _, scores = fake_scoring
    scores.append(fake_score("unavailable", reason="sta: out of memory"))
    env.reset(seed=0, options={"start": "multicycle"})
    obs, reward, terminated, _, info = env.step(act.submit())
    assert (reward, info["status"], info["reason"]) == (0.0, "unavailable", "sta: out of memory")
    assert "grading is unavailable" in obs["feedback"]


def test_real_score_of_a_fixture_and_of_a_mutant(monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)  # a public-derived seed: the example agent's, so often cached
    env = RtlDesignEnv()
    env.reset(seed=0, options={"start": "pipelined"})
    _, reward, terminated, _, info = env.step(act.submit())
    assert info["status"] == "ok" and 0.0 < reward < 1.0 and terminated, info
    assert {"T_us", "E_nJ", "A_um2", "slack_ps"} <= set(info["score"]) and info["graded_with"] == PUBLIC_SEED
    assert set(info["score"]["workloads"]) == set(KERNELS)
    env.reset(seed=0, options={"start": "multicycle"})
    for action in mutant_actions("zero_extended_imm"):
        env.step(action)
    obs, reward, _, _, info = env.step(act.submit())
    assert reward == 0.0 and info["status"] == "failed" and info["failures"][0][0] == "functional"
    assert obs["feedback"].startswith("Submitted: rejected, reward 0. functional: ")
    env.close()


def test_check_with_estimate_reports_area_and_timing(env):
    env.reset(seed=0, options={"start": "multicycle"})
    obs, _, _, _, info = env.step(act.check(estimate=True))
    assert info["status"] == "ok" and "area_um2" in info["check"]["estimate"]
    assert "Estimate: " in obs["feedback"]
