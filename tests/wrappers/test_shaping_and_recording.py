"""The shaping wrappers give exactly the returns of the envs' former ``reward_mode="shaped"`` (figures recorded
from the last version that had it, commit 808c0b2, on the same actions), and RecordEpisodes writes episodes that
``chipgym replay`` plays as saved."""

from __future__ import annotations

import json

import pytest

from chipgym import cli
from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.wrappers import DrcRewardShaping, RecordEpisodes

from layout_helpers import MET1_WIDTH_GOLD as GOLD
from layout_helpers import met1_width_task

ACTIONS = {
    "fail": [act.write(GOLD.replace("0.14)", "0.1)")), act.run(), "oops", act.submit(), act.run()],
    "pass": [act.run(), act.write(GOLD), act.submit()],
    "budget": [act.run(), "x", act.run(), act.run()],
    "crash": [act.write("raise 'x'"), act.run(), act.submit()],
}
FORMER_SHAPED = {  # reward_mode="shaped" at 808c0b2, max_steps=4, reset(seed=1); since the training pools, a
    # training submit's partial credit is the fraction of a draw of training layouts matched, in eighths
    ("training", "fail"): [0.0, -0.01, -0.01, 3 / 8, -0.01],
    ("training", "pass"): [-0.01, 0.0, 1.0],
    ("training", "budget"): [-0.01, -0.01, -0.01, -0.01],
    ("training", "crash"): [0.0, -0.01, 0.0],
    ("evaluation", "fail"): [0.0, -0.01, -0.01, 0.0, -0.01],
    ("evaluation", "pass"): [-0.01, 0.0, 1.0],
    ("evaluation", "crash"): [0.0, -0.01, 0.0],
}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    hidden = {"hidden_at": 0.14, "hidden_under": 0.139, "hidden_wide": 0.5}
    return [met1_width_task(tmp_path_factory.mktemp("task"), {"ex_narrow": 0.1, "ex_wide": 0.3}, hidden)]


@pytest.mark.parametrize("regime", ["training", "evaluation"])
def test_drc_shaping_reproduces_the_former_shaped_returns(tasks, regime):
    for (mode, name), expected in FORMER_SHAPED.items():
        if mode != regime:
            continue
        env = DrcRewardShaping(DrcScriptEnv(tasks=tasks, regime=regime, max_steps=4))
        env.reset(seed=1)
        rewards = [env.step(action)[1] for action in ACTIONS[name]]
        env.close()
        assert rewards == pytest.approx(expected), name


def test_recorded_episodes_replay_as_saved(tasks, tmp_path, capsys):
    from chipgym.tasks.drc.rule2drc import write_rule2drc

    problems = write_rule2drc(tasks, tmp_path / "suite")
    env = RecordEpisodes(DrcScriptEnv(tasks=str(problems), split="all", max_steps=3), tmp_path / "episodes")
    for seed, name in ((0, "pass"), (1, "budget")):
        env.reset(seed=seed)
        for action in ACTIONS[name][:3]:
            env.step(action)
    env.close()
    saved = sorted((tmp_path / "episodes").iterdir())
    assert [path.name for path in saved] == ["episode-000000.json", "episode-000001.json"]
    tampered = tmp_path / "tampered.json"
    record = json.loads(saved[0].read_text())
    record["steps"][2]["reward"] = 0.0  # the gold deck's submit, saved as a failure
    tampered.write_text(json.dumps(record))
    (tmp_path / "junk.json").write_text("{}")
    importing = tmp_path / "importing.json"  # an id that names a module would make gymnasium import it
    importing.write_text(json.dumps({**record, "env_id": "antigravity:Fly-v0"}))

    assert cli.main(["replay", *map(str, saved), "--workers", "2"]) == 0
    assert capsys.readouterr().out.count("as saved") == 2
    assert cli.main(["replay", str(saved[0]), str(tampered), str(tmp_path / "junk.json")]) == 1
    table = capsys.readouterr().out.splitlines()
    assert "as saved" in table[1]
    assert table[2].endswith("diverged at step 2: reward 1.0, saved 0.0")
    assert "error: ValueError" in table[3] and "not a saved chipgym episode" in table[3]
    assert cli.main(["replay", str(importing)]) == 1
    assert "'antigravity:Fly-v0' is not a registered env id" in capsys.readouterr().out
