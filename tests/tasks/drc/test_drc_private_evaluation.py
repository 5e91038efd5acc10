"""A private evaluation set (issue 39 §3): a suite's evaluation layouts drawn anew from the grading secret, so that
an agent that regenerates the public suite from chipgym's code (every public evaluation layout and its label) has
nothing of it to look up. Real KLayout labels every layout."""
from __future__ import annotations

import gymnasium
import pytest

import chipgym  # noqa: F401  (registers the envs)
from chipgym.envs import drc_actions as act
from chipgym.tasks.drc.labels import discriminates
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.suite import build_private, build_suite
from chipgym.tasks.drc.suite.layouts import gds_scene
from chipgym.tasks.drc.suite.redraw import congruence_key

IDS = ["sky130-0003", "syntax-0005"]
SECRET, OTHER_SECRET = 1234, 5678


def key(case):
    return congruence_key(gds_scene(case.name, case.gds_bytes()))


@pytest.fixture(scope="module")
def private_cache(pool, tmp_path_factory):
    cache = tmp_path_factory.mktemp("drc-private")
    public = build_suite("drc-v2", run_deck=pool.run_deck, cache_dir=cache, ids=IDS)
    private = build_private("drc-v2", SECRET, run_deck=pool.run_deck, cache_dir=cache, ids=IDS)
    return cache, public, private


def test_a_private_set_holds_no_layout_the_public_suite_gives(private_cache):
    """The memoriser's attack: every public evaluation layout (and every taught one) is known to an agent that
    imports chipgym; none of them is a private evaluation layout, turned, mirrored or moved."""
    _, public, private = private_cache
    for before, after in zip(public, private, strict=True):
        known = {key(c) for c in before.hidden_testcases + before.public_examples + before.training_testcases}
        assert after.hidden_testcases and not known & {key(c) for c in after.hidden_testcases}, after.id
        assert not discriminates(after.hidden_testcases, after.categories), after.id
        assert (after.description, after.gold_deck, after.public_examples, after.training_testcases) == \
            (before.description, before.gold_deck, before.public_examples, before.training_testcases)


def test_a_private_set_is_the_secrets_alone(private_cache, pool):
    """Built again (in another cache) under the same secret it is the same; under another secret it is another;
    its folder is its owner's only and its name is not the draw's seed."""
    cache, _, private = private_cache
    again = build_private("drc-v2", SECRET, run_deck=pool.run_deck, cache_dir=cache / "again", ids=IDS[:1])
    assert [c.name for c in again[0].hidden_testcases] == [c.name for c in private[0].hidden_testcases]
    other = build_private("drc-v2", OTHER_SECRET, run_deck=pool.run_deck, cache_dir=cache, ids=IDS[:1])
    assert {key(c) for c in other[0].hidden_testcases} != {key(c) for c in private[0].hidden_testcases}
    folders = [p for p in cache.iterdir() if "-private-" in p.name]
    assert len(folders) == 2 and all(p.stat().st_mode & 0o077 == 0 for p in folders)
    assert not any(str(secret) in p.name for p in folders for secret in (SECRET, OTHER_SECRET))


def test_the_gold_deck_passes_the_private_set_in_the_env(private_cache):
    _, _, private = private_cache
    env = gymnasium.make("chipgym/DrcScript-v0", tasks=private, regime="evaluation", split="all")
    try:
        for task in private:
            env.reset(seed=0, options={"task": task.id})
            env.step(act.write(task.gold_deck))
            assert env.step(act.submit())[1] == 1.0, task.id
    finally:
        env.close()


def test_a_private_set_is_drawn_from_a_suite_only(tmp_path):
    with pytest.raises(ValueError, match="private evaluation set is drawn from a built-in suite"):
        load_tasks(tmp_path, private_secret=SECRET)
    with pytest.raises(ValueError, match="evaluation_set"):
        gymnasium.make("chipgym/DrcScript-v0", tasks="drc-v0", evaluation_set="hidden")


def test_a_task_whose_every_layout_is_public_or_taught_has_no_private_set(pool, tmp_path, capsys):
    """synthetic-0064 checks an exact 40 nm contact: every contact its generators draw is a public evaluation or a
    taught layout, so it has no private set: left out, said, never filled with a public or taught layout."""
    assert build_private("drc-v2", SECRET, run_deck=pool.run_deck, cache_dir=tmp_path, ids=["synthetic-0064"]) == []
    assert "synthetic-0064" in capsys.readouterr().err
