"""What training can teach about evaluation, attacked through env.step on real KLayout: nothing.

The classes of issue 26: a deck that recognises layouts by a signature blind to turning, mirroring and
moving, and learns their labels in training (the three pools of a built dataset); figures of the grade that
the deck can move (made-up categories, counts); grading order known from the reset seed; the grading secret
seen from inside the sandbox; and valid actions on a task without public examples.
"""

from __future__ import annotations

import dataclasses

import klayout.db as kdb
import pytest

from chipgym.envs import drc_actions as act
from chipgym.envs.drc_script import DrcScriptEnv
from chipgym.scoring.drc import evaluation_order, graded_cases
from chipgym.tasks.drc.suite import build_suite
from chipgym.tasks.grading_seed import SEED_ENV

from layout_helpers import MET1_WIDTH_GOLD, met1_width_task

ATTACKED = ["sky130-0122", "synthetic-0300"]  # m1.4 (one category), and a rule set of two or more categories


@pytest.fixture(scope="module")
def drc_v1_tasks(tmp_path_factory):
    return build_suite("drc-v1", cache_dir=tmp_path_factory.mktemp("drc-v1"), ids=ATTACKED)


@pytest.fixture(scope="module")
def width_task(tmp_path_factory):
    hidden = {f"hidden{i}": width for i, width in enumerate((0.1, 0.139, 0.14, 0.141, 0.3))}
    return met1_width_task(tmp_path_factory.mktemp("task"), {"ex_narrow": 0.12}, hidden)


def signature(gds: bytes, layers) -> str:
    """Area and perimeter of every merged polygon per layer, sorted: the same whatever the layout's orientation
    and position; computed exactly as :func:`lookup_deck` computes it in KLayout."""
    layout = kdb.Layout()
    layout.read_bytes(gds)
    top = layout.top_cell()
    parts = []
    for layer, datatype in layers.values():
        index = layout.find_layer(layer, datatype)
        if index is None:
            continue
        for polygon in kdb.Region(top.begin_shapes_rec(index)).merged().each():
            parts.append(f"{layer}/{datatype}:{polygon.area()}:{polygon.perimeter()}")
    return ",".join(sorted(parts))


def lookup_deck(task, table: dict[str, dict[str, int]]) -> str:
    """A deck that checks no rule: it recognises a layout by its signature and answers from ``table``."""
    entries = ", ".join(f'"{key}" => {{{", ".join(f"{c!r} => {v}" for c, v in labels.items())}}}'
                        for key, labels in table.items())
    layers = ", ".join(f"[{layer}, {datatype}]" for layer, datatype in task.layers.values())
    outputs = "\n".join(f'(verdict["{c}"] == 1 ? extent : polygon_layer).output("{c}", "{c}")'
                        for c in task.categories)
    return f"""source($input)
report("lookup", $output)
parts = []
[{layers}].each do |layer, datatype|
  input(layer, datatype).data.merged.each {{ |p| parts << "#{{layer}}/#{{datatype}}:#{{p.area}}:#{{p.perimeter}}" }}
end
table = {{{entries}}}
verdict = table[parts.sort.join(",")] || {{}}
{outputs}
"""


def evaluate(task, deck: str, **kwargs) -> float:
    env = DrcScriptEnv(tasks=[task], split="all", regime="evaluation", **kwargs)
    env.reset(seed=0)
    env.step(act.write(deck))
    _, reward, *_ = env.step(act.submit())
    env.close()
    return reward


def test_a_lookup_deck_taught_in_training_cannot_pass_evaluation(drc_v1_tasks):
    """The attack in full, given more than probing can learn: the labels of every public and training layout.
    The same deck given the evaluation layouts' labels passes, so it would have worked had training taught them."""
    for task in drc_v1_tasks:
        taught = {signature(c.gds_bytes(), task.layers): dict(c.labels)
                  for c in task.public_examples + task.training_testcases}
        tested = {signature(c.gds_bytes(), task.layers): dict(c.labels) for c in task.hidden_testcases}
        assert not set(taught) & set(tested), task.id
        assert evaluate(task, lookup_deck(task, tested)) == 1.0, task.id
        assert evaluate(task, lookup_deck(task, taught)) == 0.0, task.id


def test_a_training_submit_tells_no_count_the_deck_chooses(width_task):
    """The number of made-up categories was read back exactly (12 bits a submit); now it is yes or no, and every
    fraction is in eighths."""
    infos = []
    for extra in (1, 50):
        made_up = "".join(f'extent.output("x{i}", "x")\n' for i in range(extra))
        env = DrcScriptEnv(tasks=[width_task])
        env.reset(seed=0)
        env.step(act.write(MET1_WIDTH_GOLD + made_up))
        infos.append(env.step(act.submit())[-1]["grade"])
        env.close()
    assert infos[0] == infos[1] and infos[0]["extra_categories"] is True
    fractions = [infos[0][k] for k in ("layouts_matched", "f1", "compile_rate")]
    fractions += list(infos[0]["category_f1"].values())
    assert all(f * 8 == int(f * 8) for f in fractions)


def test_in_evaluation_no_verdict_depends_on_the_order_whatever_the_deck_knows(width_task):
    """The order comes from the secret, not the reset seed; and a deck that counts layouts and answers from the
    labels in the order it meets them passed evaluation where it knew the order (secret 1234) until each
    evaluation layout ran in a fresh fork (issue 39, section 3): now every layout is its first, so the deck fails
    under that secret too, whatever the seed. It passes where every layout has the label of the first, so it runs."""
    order = evaluation_order(width_task, graded_cases(width_task), secret=1234)
    assert order != evaluation_order(width_task, graded_cases(width_task), secret=99)
    verdicts = [case.labels["m1.1"] for case in order]
    counter = ('source($input)\nreport("m1", $output)\n$n = ($n || 0) + 1\n'
               f'(({verdicts})[$n - 1] == 1 ? extent : polygon_layer).output("m1.1", "m1.1")\n')
    assert len(set(verdicts)) == 2 and evaluate(width_task, counter, grading_secret=1234) == 0.0
    for seed in (0, 7):
        env = DrcScriptEnv(tasks=[width_task], grading_secret=1234, regime="evaluation")
        env.reset(seed=seed)
        env.step(act.write(counter))
        assert env.step(act.submit())[1] == 0.0
        env.close()
    same = tuple(case for case in width_task.hidden_testcases if case.labels["m1.1"] == verdicts[0])
    assert evaluate(dataclasses.replace(width_task, hidden_testcases=same), counter, grading_secret=1234) == 1.0


def test_no_deck_can_read_the_grading_secret(width_task, monkeypatch):
    """The secret in the grader's environment is in no process environment, command line or file a deck sees
    (the deck holds it reversed, so as not to find itself); the same search finds a string that is there (the
    worker's PATH), so it did run."""
    monkeypatch.setenv(SEED_ENV, "8675309123")
    search = """source($input)
report("m1", $output)
seen = Dir.glob("/proc/[0-9]*/{environ,cmdline}").map { |f| File.read(f) rescue "" }.join
files = Dir.glob("/{tmp,job,usr/share/chipgym*}/**/*").select { |f| File.file?(f) }
seen += files.map { |f| File.read(f) rescue "" }.join
extent.output("secret_seen", "x") if seen.include?("3219035768".reverse)
extent.output("path_seen", "x") if seen.include?("PATH=/usr/bin")
"""
    env = DrcScriptEnv(tasks=[width_task])
    env.reset(seed=0)
    env.step(act.write(search))
    obs, *_ = env.step(act.run())
    env.close()
    assert "path_seen" in obs["feedback"] and "secret_seen" not in obs["feedback"]


def test_a_task_without_public_examples_is_first_class(width_task):
    bare = dataclasses.replace(width_task, public_examples=())
    env = DrcScriptEnv(tasks=[bare])
    obs, _ = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(act.run())
    assert "no public examples" in obs["feedback"] and "action_error" not in info and not terminated
    env.step(act.add_test([act.box((68, 20), 0, 0, 0.1, 2)], {"m1.1": 1}))
    env.step(act.write(MET1_WIDTH_GOLD))
    obs, *_ = env.step(act.run())
    assert "100% match" in obs["feedback"]
    env.close()


def test_the_training_regime_refuses_tasks_without_training_layouts(width_task):
    with pytest.raises(ValueError, match="no training layouts.*regime='evaluation'"):
        DrcScriptEnv(tasks=[dataclasses.replace(width_task, training_testcases=())])
    DrcScriptEnv(tasks=[dataclasses.replace(width_task, training_testcases=())], regime="evaluation").close()


def test_two_tasks_of_one_id_are_refused(width_task):
    """Suites reuse ids (sky130-0000 is in drc-v0 and drc-v1): mixed in one env, one would shadow the other."""
    with pytest.raises(ValueError, match="more than one task is called m1-width"):
        DrcScriptEnv(tasks=[width_task, dataclasses.replace(width_task, title="another")])
