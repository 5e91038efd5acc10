"""The DRC template baselines: the random policy stays inside the mask; the heuristic turns rule sentences into the
slot a reader would write, and solves a two-category drc-v0 task on real KLayout."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.baselines.drc_policies import HeuristicPolicy, RandomPolicy, allowed_values
from chipgym.tasks.drc.rule_text import rule_text
from chipgym.tasks.drc.suite import build_suite
from chipgym.wrappers.drc_template import CHECK_NAMES, NVEC, REGIONS, Template, action_mask


def test_random_actions_stay_inside_the_mask_and_depend_on_the_seed():
    template = Template({"met1": (68, 20), "via": (68, 44)}, ("m1.1",), "met1 encloses via by 0.03 um or 0.06 um.")
    observation = {"action_mask": action_mask(template)}
    allowed = allowed_values(observation["action_mask"])
    actions = [RandomPolicy(seed)(observation) for seed in range(20)]
    assert all(value in ok for action in actions for value, ok in zip(action, allowed))
    assert len({tuple(a) for a in actions}) > 1
    assert np.array_equal(RandomPolicy(3)(observation), RandomPolicy(3)(observation))
    assert all(action.shape == (len(NVEC),) for action in actions)


@pytest.mark.parametrize("sentence, expected", [
    ("Minimum width of met1 is 0.14 um.", {"check": "width", "primary": "met1", "number": 0.14}),
    ("met1 shapes smaller than 0.083 µm² are not allowed.", {"check": "area", "primary": "met1"}),
    ("Minimum enclosure of via by met1 is 0.03 um.", {"check": "enclosing", "primary": "met1", "secondary": "via"}),
    ("met1 must enclose via by at least 0.06 um.", {"check": "enclosing", "primary": "met1", "secondary": "via"}),
    ("via shall be enclosed by met1 with a margin of 0.03 um.", {"check": "enclosing", "primary": "met1"}),
    ("Every via shape shall be completely covered by met1.", {"check": "not_inside", "primary": "via"}),
    ("Keep via at a distance of 0.06 um or more from met1. Only facing parallel edges are checked.",
     {"check": "separation", "primary": "via", "secondary": "met1", "metric": 1, "number": 0.06}),
    ("via on field must be spaced at least 0.06 um from met1.", {"check": "separation", "region": "outside"}),
])
def test_the_heuristic_reads_keywords_layers_and_numbers(sentence, expected):
    layers, numbers = ["met1", "via"], [0.03, 0.06, 0.083, 0.14]
    slot = HeuristicPolicy().slot(sentence, layers, numbers)
    decoded = {"check": CHECK_NAMES[slot["check"]], "primary": layers[slot["primary"]],
               "secondary": layers[slot["secondary"]], "number": numbers[slot["number"]],
               "metric": slot["metric"], "region": REGIONS[slot.get("region", 0)]}
    assert {key: decoded[key] for key in expected} == expected


def test_the_heuristic_solves_a_two_category_task():
    [task] = build_suite(ids=["sky130-0075"])  # li1 spacing and li1 area
    assert len(task.categories) == 2
    env = gymnasium.make("chipgym/DrcTemplate-v0", tasks=[task], split="all")
    obs, info = env.reset(seed=0)
    assert info["rule"] == rule_text(task)
    _, reward, _, _, info = env.step(HeuristicPolicy()(obs, info))
    assert reward == 1.0, info["deck"]
    env.close()
