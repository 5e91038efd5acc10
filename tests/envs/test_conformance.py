"""Every env registered under ``chipgym/`` passes the conformance checks (``tests/env_conformance.py``) on each
smoke episode its class lists (``smoke_episodes``: one per chip task for ``chipgym/RtlDesign-v0``; four sampled
actions for an env that lists none). A new env registered is a tested env, with no code here."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import gymnasium
import pytest
from env_conformance import CHECKS

import chipgym  # noqa: F401  (registers the env ids)
from chipgym.envs.registry import smoke_episodes

FOLDER = Path(tempfile.mkdtemp(prefix="chipgym-conformance-"))  # what the smoke episodes write (a DRC folder)
EPISODES = {(env_id, name): episode for env_id in sorted(gymnasium.registry) if env_id.startswith("chipgym/")
            for name, episode in smoke_episodes(env_id, FOLDER / env_id.replace("/", "_")).items()}


@pytest.fixture(scope="module", autouse=True)
def _remove_folder():
    yield
    shutil.rmtree(FOLDER, ignore_errors=True)


@pytest.mark.parametrize("check", CHECKS, ids=[check.__name__ for check in CHECKS])
@pytest.mark.parametrize("env_id, name", [pytest.param(*key, id="-".join(key)) for key in EPISODES])
@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")  # a wrapper id: the wrapper is checked
def test_every_env_conforms(env_id, name, check, tmp_path):
    check(env_id, EPISODES[env_id, name], tmp_path)
