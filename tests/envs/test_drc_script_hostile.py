"""chipgym/DrcScript-v0 attacked as a hostile agent would, through env.step only, on real KLayout.

One test (or more) per class of attack: hidden data flowing back through what a deck controls, reward
from probing instead of a right deck, an action or a layout that brings the env down, sandbox state that
poisons later decks.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re

import gymnasium
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.scoring.drc import TRAINING_DRAW, training_draw

from layout_helpers import (
    MET1,
    MET1_WIDTH_GOLD,
    gds_box,
    gds_cell,
    gds_header,
    gds_records,
    huge_array_gds,
    met1_width_task,
    recursive_gds,
)

GOLD = MET1_WIDTH_GOLD
PREFIX = 'source($input)\nreport("m1", $output)\n'


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    hidden = {f"hidden{i}": width for i, width in enumerate((0.1, 0.139, 0.14, 0.141, 0.3))}
    return [met1_width_task(tmp_path_factory.mktemp("hostile-task"), {"ex_narrow": 0.12, "ex_wide": 0.25}, hidden)]


@pytest.fixture(scope="module", params=["training", "evaluation"])
def env(request, tasks):
    env = DrcScriptEnv(tasks=tasks, regime=request.param, grade="markers", max_steps=50)
    yield env
    env.close()


def new_episode(env, seed=0):
    env.reset(seed=seed)
    env.unwrapped._submitted.clear()  # evaluation grades a task once; these tests need more than one episode


def submit(env, deck, seed=0):
    new_episode(env, seed)
    env.step(act.write(deck))
    return env.step(act.submit())


def everything_said(obs, info) -> str:
    """All the env tells the agent after a submit, but the deck it wrote itself."""
    return json.dumps({k: v for k, v in obs.items() if k != "script"}) + json.dumps(info, default=str)


# -- 1. hidden data flows back through what a deck controls ------------------------------------------------

def test_a_deck_cannot_send_hidden_layouts_back_in_errors_or_category_names(env):
    for body in ('raise "LEAK" + File.binread($input).unpack1("H*")',
                 'input(68, 20).output("LEAK" + File.binread($input).unpack1("H*")[0, 64], "leak")\n'
                 + GOLD.splitlines()[2]):
        obs, reward, terminated, _, info = submit(env, PREFIX + body)
        said = everything_said(obs, info)
        assert reward == 0.0 and terminated
        assert "LEAK" not in said and not re.search("[0-9a-f]{32}", said)


def test_a_deck_sees_one_hidden_layout_under_a_fixed_name(env):
    check = 'raise "saw #{Dir.children("/job").sort}" unless Dir.children("/job").sort == ["deck.drc", "layout.gds"]\n'
    _, reward, *_ = submit(env, check + GOLD)
    assert reward == 1.0


def test_the_gold_deck_is_nowhere_a_deck_can_find_it(env):
    """Markers mode: a deck that finds the gold deck in its memory, /job or /tmp and runs it would pass."""
    submit(env, GOLD.replace("0.14", "0.2"))  # graded beside whatever gold run this env does
    thief = (
        'gold = ObjectSpace.each_object(String).find { |s| s.valid_encoding? && s.include?("met1 width " + "below") '
        '&& !s.include?("thief") }\n'
        'gold ||= (Dir.glob("/job/*") + Dir.glob("/tmp/**/*")).map { |f| File.read(f) rescue "" }'
        '.find { |t| t.include?("met1 width " + "below") }\n'
        '# thief\n'
        'instance_eval(gold) if gold\n'
    )
    _, reward, *_ = submit(env, PREFIX + thief)
    assert reward == 0.0


# -- 2. reward from probing instead of a right deck ---------------------------------------------------------

def test_a_lookup_table_of_every_hidden_label_earns_nothing_in_training(tasks):
    """The end product of probing: a deck that knows each hidden layout's label by its hash and checks no rule."""
    table = {hashlib.sha256(c.gds).hexdigest(): c.labels["m1.1"] for c in tasks[0].hidden_testcases}
    lookup = (
        'require "digest"\n' + PREFIX + f"table = JSON.parse(%q({json.dumps(table)}))\n"
        'input(68, 20).output("m1.1", "w") if table[Digest::SHA256.file($input).hexdigest] == 1\n'
    )
    env = DrcScriptEnv(tasks=tasks)
    rewards = [submit(env, lookup, seed)[1] for seed in range(3)]
    env.close()
    assert rewards == [0.0, 0.0, 0.0]
    once = DrcScriptEnv(tasks=tasks, regime="evaluation")  # where the table is right; learning it takes probing,
    assert submit(once, lookup)[1] == 1.0                  # which one success-only submit per task does not allow
    once.close()


def test_training_grades_enough_layouts_that_guessing_does_not_pay(tasks):
    """Five evaluation layouts, one category: a coin-flip deck would pass 1 in 32. Training grades at least
    TRAINING_DRAW layouts: the deck that fails on its TRAINING_DRAW-th layout fails, one more passes."""
    env = DrcScriptEnv(tasks=tasks)
    counter = 'raise "counted" if ($n = ($n || 0) + 1) >= {}\n'
    *_, last = submit(env, counter.format(TRAINING_DRAW) + GOLD)
    _, reward, *_ = submit(env, counter.format(TRAINING_DRAW + 1) + GOLD)
    env.close()
    assert len(tasks[0].hidden_testcases) < TRAINING_DRAW
    assert last["grade"]["errors"] == ["runtime"] and reward == 1.0


def test_evaluation_grades_a_task_once_and_says_only_whether_it_passed(tasks):
    env = DrcScriptEnv(tasks=tasks, regime="evaluation")
    env.reset(seed=0)
    env.step(act.write(GOLD.replace("0.14", "0.139")))
    *_, info = env.step(act.submit())
    assert info["grade"] == {"success": False}
    env.reset(seed=1, options={"task": "m1-width"})
    env.step(act.write(GOLD))
    _, reward, terminated, _, info = env.step(act.submit())
    env.close()
    assert reward == 0.0 and not terminated and "once" in info["action_error"]


# -- 3. one action or one layout brings the env down --------------------------------------------------------

BAD_ACTIONS = {
    "nested": "[" * 100_000 + "]" * 100_000,
    "huge integer": '{"op": "write", "script": ' + "9" * 5000 + "}",
    "lone surrogate": '{"op": "write", "script": "\\ud800"}',
    "over-long": json.dumps({"op": "write", "script": "x" * (act.MAX_ACTION + 10)}),
    "not text": None,
    "bytes": b'{"op": "run"}',
}


def test_malformed_actions_are_feedback_naming_the_field(tasks, tmp_path):
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=tasks, max_steps=50).unwrapped
    env.reset(seed=0)
    for name, action in BAD_ACTIONS.items():
        obs, reward, terminated, truncated, info = env.step(action)
        field = "script" if name == "lone surrogate" else "action"
        assert obs["feedback"].startswith(f"Action rejected: {field}:") and not terminated, name
    env.step(act.write("x" * act.MAX_SCRIPT))
    _, _, _, _, info = env.step(act.patch("x", "yy"))
    assert info["action_error"].startswith("replace:")  # a patch cannot grow the deck past its cap
    env.step(act.write(GOLD))
    obs, *_ = env.step(act.run())  # the env still works, and the surrogate never reached a later run
    assert "100% match" in obs["feedback"]


def test_saved_episodes_keep_over_long_actions_by_their_length(tasks, tmp_path):
    from chipgym.envs.episode import replay
    from chipgym.tasks.drc.rule2drc import write_rule2drc

    problems = write_rule2drc(tasks, tmp_path / "suite")
    env = DrcScriptEnv(tasks=str(problems), split="all")
    env.reset(seed=0)
    rewards = [env.step(BAD_ACTIONS["over-long"])[1] for _ in range(5)]
    env.save_episode(tmp_path / "episode.json")
    env.close()
    assert (tmp_path / "episode.json").stat().st_size < 10_000
    result = replay(tmp_path / "episode.json")
    assert result.ok and result.rewards == rewards


def test_one_bad_action_does_not_bring_down_a_vector_env(tasks):
    envs = gymnasium.vector.AsyncVectorEnv([lambda: DrcScriptEnv(tasks=tasks)] * 2, shared_memory=False)
    envs.reset(seed=[0, 1])
    envs.step([BAD_ACTIONS["nested"], BAD_ACTIONS["lone surrogate"]])
    envs.step([act.write(GOLD)] * 2)
    _, rewards, terminated, _, _ = envs.step([act.submit()] * 2)
    envs.close()
    assert list(rewards) == [1.0, 1.0] and all(terminated)


BAD_LAYOUTS = {
    "garbage": b"\x00\x01garbage" * 30,
    "truncated": None,  # filled in below from a real layout
    "recursive hierarchy": recursive_gds(),
    "32767 x 32767 array": huge_array_gds(),
    "OASIS magic, then garbage": b"%SEMI-OASIS\r\n" + b"\xff" * 200,
}


def test_extreme_coordinates_are_shown_or_refused_but_never_crash(tasks):
    env = DrcScriptEnv(tasks=tasks)
    env.reset(seed=0)
    for corner in (2**31 - 1, -(2**31)):
        gds = gds_records(*gds_header(), *gds_cell("TOP", *gds_box(corner, corner, 100)), (0x04, 0x00, b""))
        obs, _, terminated, _, info = env.step(act.add_test(gds, {"m1.1": 0}))
        assert not terminated and ("action_error" not in info or info["action_error"].startswith("gds:"))
    env.step(act.write(GOLD))
    obs, *_ = env.step(act.run())
    env.close()
    assert "Ran the deck" in obs["feedback"]


def test_unreadable_or_oversized_test_layouts_are_refused_naming_gds(tasks):
    real = tasks[0].public_examples[0].gds
    layouts = {**BAD_LAYOUTS, "truncated": real[: len(real) // 2]}
    env = DrcScriptEnv(tasks=tasks, max_steps=50)
    env.reset(seed=0)
    for name, gds in layouts.items():
        obs, reward, terminated, _, info = env.step(act.add_test(gds, {"m1.1": 1}))
        assert info.get("action_error", "").startswith("gds:"), (name, info)
        assert obs["tests"] == ""
    env.step(act.add_test([act.box(MET1, 0, 0, 0.1, 2)], {"m1.1": 1}, name="fine"))
    env.step(act.write(GOLD))
    obs, *_ = env.step(act.run())
    env.close()
    assert "fine: m1.1 expected 1 got 1" in obs["feedback"]


def test_a_far_away_shape_is_shown_and_run_without_harm(tasks):
    env = DrcScriptEnv(tasks=tasks, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(act.add_test([act.box(MET1, 900_000, 900_000, 900_000.1, 900_002)], {"m1.1": 1}))
    env.step(act.write(GOLD))
    obs, *_ = env.step(act.run())
    image = env.render()
    env.close()
    assert "box (900000,900000) (900000.1,900002)" in obs["tests"] and image.shape == (480, 640, 3)


def test_forged_results_are_the_decks_crash_not_the_envs(env):
    forge = 'IO.for_fd(Integer($results_fd), autoclose: false).syswrite("{\\"nonce\\": 1}\\n")\nsleep 0.1\n'
    new_episode(env)
    env.step(act.write(PREFIX + forge))
    obs, *_ = env.step(act.run())
    assert "crashed: the deck's process wrote an unreadable result" in obs["feedback"]
    _, reward, terminated, _, _ = env.step(act.submit())
    assert reward == 0.0 and terminated


# -- 4. sandbox state that poisons later decks ----------------------------------------------------------------

def test_a_deck_that_fills_or_locks_tmp_does_not_fail_the_next(env):
    poison = (PREFIX + 'File.open("/tmp/fill", "w") { |f| loop { f.write("z" * (1 << 20)) } } rescue nil\n'
              'File.chmod(0o555, "/tmp")\n')
    submit(env, poison)
    _, reward, *_ = submit(env, GOLD)
    assert reward == 1.0


def test_a_deck_cannot_stop_its_own_time_limit(tasks):
    env = DrcScriptEnv(tasks=tasks, timeout=2.0)
    env.reset(seed=0)
    env.step(act.write(PREFIX + "Process.kill(:STOP, Process.ppid) rescue nil\nloop { }"))
    obs, *_ = env.step(act.run())
    env.close()
    assert obs["feedback"].count("timeout") >= 1


def test_gds_given_as_base64_round_trips(tasks):
    env = DrcScriptEnv(tasks=tasks)
    env.reset(seed=0)
    gds = tasks[0].public_examples[0].gds
    action = json.dumps({"op": "add_test", "gds": base64.b64encode(gds).decode(), "expected": {"m1.1": 1}})
    obs, *_ = env.step(action)
    env.close()
    assert "box (0,0) (0.12,2)" in obs["tests"]


def test_no_training_draw_tells_the_size_of_the_evaluation_pool(tmp_path):
    """Issue 39, section 2: a training draw held as many layouts as the evaluation pool whenever that was over
    TRAINING_DRAW, so the feedback's "of N training layouts" told it."""
    widths = tuple(0.1 + 0.01 * i for i in range(40))
    small = met1_width_task(tmp_path, {}, {"narrow": 0.1, "ok": 0.5}, training=widths)
    large = dataclasses.replace(small, hidden_testcases=small.hidden_testcases * 20)
    for index in range(3):
        assert training_draw(small, 7, index) == training_draw(large, 7, index)
        assert len(training_draw(large, 7, index)) == TRAINING_DRAW


def test_in_evaluation_nothing_a_deck_computed_on_one_layout_is_there_on_the_next(tasks):
    """Issue 39, section 3: a deck that is right on all but one layout and flips its verdict at its p-th counted
    layout passed in the p-th fresh evaluation env. Now each evaluation layout runs in a fresh fork: a deck that
    fails from its second layout on never fails there, and in training (one fork a submit) it does."""
    counter = 'raise "counted" if ($n = ($n || 0) + 1) >= 2\n'
    evaluation = DrcScriptEnv(tasks=tasks, regime="evaluation")
    _, reward, *_ = submit(evaluation, counter + GOLD)
    evaluation.close()
    training = DrcScriptEnv(tasks=tasks)
    _, _, _, _, info = submit(training, counter + GOLD)
    training.close()
    assert reward == 1.0 and info["grade"]["errors"] == ["runtime"]
