"""DrcTemplateActions on real drc-v0 tasks and real KLayout: the gold template earns 1 and a wrong one 0, the
mask fits one- and two-layer tasks, every check of the template is valid DSL, and no action crashes the env."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.tasks.drc.suite import build_suite
from chipgym.wrappers.drc_template import (
    CHECK_NAMES,
    CHECKS,
    METRICS,
    NVEC,
    SLOT_FIELDS,
    SLOT_NVEC,
    SLOTS,
    Template,
    compile_deck,
)


@pytest.fixture(scope="module")
def tasks():
    """sky130-0000: diff width >= 0.15 um (one layer); sky130-0004: nwell encloses diff by 0.18 um (two)."""
    return {task.id: task for task in build_suite(ids=["sky130-0000", "sky130-0004"])}


def template_env(tasks, task_id):
    return gymnasium.make("chipgym/DrcTemplate-v0", tasks=[tasks[task_id]], split="all")


def action(*slots: dict[str, int | str]) -> np.ndarray:
    """An action from slots given by field name (check by its name); unnamed fields and slots are 0 (off)."""
    values = np.zeros(len(NVEC), np.int64)
    for i, slot in enumerate(slots):
        for field, value in slot.items():
            values[i * len(SLOT_FIELDS) + SLOT_FIELDS.index(field)] = CHECK_NAMES.index(value) if field == "check" \
                else value
    return values


def slot_mask(mask: np.ndarray, slot: int, field: str) -> list[int]:
    start = slot * sum(SLOT_NVEC) + sum(SLOT_NVEC[:SLOT_FIELDS.index(field)])
    return [int(i) for i in np.flatnonzero(mask[start:start + SLOT_NVEC[SLOT_FIELDS.index(field)]])]


def test_the_gold_template_earns_1_and_a_wrong_check_0(tasks):
    env = template_env(tasks, "sky130-0004")
    obs, info = env.reset(seed=0)
    assert info["layer_names"] == ["diff", "nwell"] and info["numbers"] == [0.18]
    assert "Enclosure of diff by nwell" in info["rule"]
    gold = action({"check": "enclosing", "primary": 1, "secondary": 0})
    obs, reward, terminated, truncated, info = env.step(gold)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["grade"]["success"] and info["run"]["layouts_matched"] == 1.0
    assert "l1.enclosing(l0, 0.18, euclidian).output('difftap_8'" in info["deck"]
    assert obs in env.observation_space
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(action({"check": "enclosing", "primary": 0, "secondary": 1}))
    assert (reward, terminated, info["grade"]["success"]) == (0.0, True, False)
    assert 0.0 <= info["grade"]["layouts_matched"] < 1.0  # kept for shaped rewards
    env.close()


def test_masks_fit_one_and_two_layer_tasks(tasks):
    env = template_env(tasks, "sky130-0000")
    obs, _ = env.reset(seed=0)
    mask = obs["action_mask"]
    assert mask.shape == (sum(NVEC),) and set(np.unique(mask)) == {0.0, 1.0}
    checks = [CHECK_NAMES[i] for i in slot_mask(mask, 0, "check")]
    assert "width" in checks and "area" in checks and "enclosing" not in checks and "not_inside" not in checks
    for field in ("primary", "secondary", "region", "region_layer", "number"):
        assert slot_mask(mask, 0, field) == [0], field
    assert slot_mask(mask, 0, "metric") == list(range(len(METRICS)))
    for slot in range(1, SLOTS):  # one category: the other slots are off
        assert all(slot_mask(mask, slot, field) == [0] for field in SLOT_FIELDS)
    env.close()

    env = template_env(tasks, "sky130-0004")
    mask = env.reset(seed=0)[0]["action_mask"]
    assert {"enclosing", "not_inside", "width"} <= {CHECK_NAMES[i] for i in slot_mask(mask, 0, "check")}
    for field in ("primary", "secondary", "region_layer"):
        assert slot_mask(mask, 0, field) == [0, 1], field
    assert slot_mask(mask, 0, "region") == [0, 1, 2] and slot_mask(mask, 0, "number") == [0]
    env.close()


def test_masked_choices_compile_to_the_nearest_valid_ones(tasks):
    task = tasks["sky130-0000"]
    template = Template(dict(task.layers), task.categories, task.description)
    gold = compile_deck(template, action({"check": "width"}))
    masked = action({"check": "width", "primary": 15, "number": 5, "region": 2, "region_layer": 9},
                    {"check": "space"}, {"check": "area"})
    assert compile_deck(template, masked) == gold.replace("l0.width", "l0.outside(l0).width")
    no_numbers = Template(dict(task.layers), task.categories, "diff must not be drawn")
    assert "width" not in compile_deck(no_numbers, action({"check": "width"}))


def test_every_check_of_the_template_is_valid_klayout_dsl(tasks, pool):
    task = tasks["sky130-0004"]
    template = Template(dict(task.layers), tuple(f"c{i}" for i in range(SLOTS)), task.description)
    slots = [{"check": check.name, "primary": 1, "secondary": 0, "metric": i % len(METRICS), "region": i % 3}
             for i, check in enumerate(CHECKS)]
    decks = [compile_deck(template, action(*slots[i:i + SLOTS])) for i in range(0, len(slots), SLOTS)]
    layout = task.public_examples[0].gds
    results = [pool.run(deck, [layout])[0] for deck in decks]
    assert [(r.status.value, r.error) for r in results if not r.ok] == []


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
def test_hostile_actions_never_crash_and_the_checker_accepts_it(tasks):
    env = template_env(tasks, "sky130-0000")
    check_env(env, skip_render_check=True)
    env.action_space.seed(0)
    hostile = [np.full(len(NVEC), -5), np.full(len(NVEC), 10**9), [1, 2, 3], "width", None, {"check": 1},
               np.full(len(NVEC), np.nan), np.zeros((3, len(SLOT_FIELDS))) + 1, env.action_space.sample()]
    for value in hostile:
        env.reset(seed=1)
        obs, reward, terminated, truncated, info = env.step(value)
        assert obs in env.observation_space and reward in (0.0, 1.0) and terminated and not truncated
        assert ("action_error" in info or "grade" in info) and info["task"] == "sky130-0000"
    env.close()
