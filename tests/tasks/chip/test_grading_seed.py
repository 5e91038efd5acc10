"""The grading seed is resolved in one place, and every layer (task checks, scorer, env) uses it."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import chipgym
from chipgym import settings
from chipgym.errors import ConfigurationError
from chipgym.tasks import grading_seed as module
from chipgym.tasks.grading_seed import SEED_ENV, grading_seed, heldout_failure, required_grading_seed


def test_the_argument_wins_then_the_environment_then_none(monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)
    assert grading_seed() is None and grading_seed(5) == 5
    with pytest.raises(ConfigurationError, match=SEED_ENV):
        required_grading_seed()
    monkeypatch.setenv(SEED_ENV, "0x10")
    assert grading_seed() == 16 == required_grading_seed() and grading_seed(5) == 5


def test_a_malformed_seed_is_an_error_that_does_not_repeat_it(monkeypatch):
    monkeypatch.setenv(SEED_ENV, "sekrit-8675309")
    with pytest.raises(ValueError) as error:
        grading_seed()
    assert SEED_ENV in str(error.value) and "8675309" not in str(error.value)


def test_a_heldout_failure_names_no_workload():
    assert heldout_failure("program") == "held-out programs"
    assert heldout_failure("traffic trace") == "held-out traffic traces"


def test_no_other_module_reads_the_seed_variable():
    """Resolution exists once: no module but grading_seed.py names SEED_ENV or the variable in code (settings.py
    describes it)."""
    readers = []
    for path in Path(chipgym.__file__).parent.rglob("*.py"):
        if path in (Path(module.__file__), Path(settings.__file__)):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            named = (isinstance(node, ast.Name) and node.id == "SEED_ENV"
                     or isinstance(node, ast.alias) and node.name == "SEED_ENV"
                     or isinstance(node, ast.Constant) and node.value == SEED_ENV)
            if named:
                readers.append(str(path))
    assert readers == []
