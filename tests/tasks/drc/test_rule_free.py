"""The rule-free learner (issue 39 §1's measure) on a built slice of drc-v0: taught a task's evaluation layouts it
passes every task (so memorising is all it needs), and on the pools drc-v0 teaches it finds every evaluation
layout's rank pattern among the taught layouts, which is how redrawn pools leak (the figures per group come from
benchmarks/rule_free_learner.py). It parses only a built dataset's own layouts."""
from __future__ import annotations

import dataclasses

import pytest

from chipgym.tasks.drc.rule_free import measure


def test_taught_the_evaluation_layouts_it_passes_every_task(labelled_slice):
    assert all(measure(task, task.hidden_testcases).passed for task in labelled_slice)


def test_on_redrawn_pools_every_evaluation_pattern_was_taught(labelled_slice):
    for task in labelled_slice:
        taught = measure(task, task.public_examples + task.training_testcases)
        assert taught.known == taught.layouts, task.id


def test_it_parses_no_layout_of_a_folder(labelled_slice):
    folder_task = dataclasses.replace(labelled_slice[0], built=False)
    with pytest.raises(ValueError, match="only a built dataset"):
        measure(folder_task, folder_task.public_examples)
