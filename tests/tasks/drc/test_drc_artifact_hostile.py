"""A built dataset's artifact is read as untrusted (issue 39, section 4): a task file edited in the cache after
the build (labels flipped, pools swapped, the gold deck replaced, nested 100,000 deep) is refused at load, naming
the file and how to rebuild, because a frozen suite's content is pinned in code; without a pin (another seed) the
reader is still bounded. The slice these tests build is itself checked against the pins, so a build that stops
being reproducible fails here too."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

import pytest

from chipgym.tasks.drc import artifact
from chipgym.tasks.drc.artifact import ArtifactError
from chipgym.tasks.drc.suite import SUITE_SEED, build_suite, pin_suite
from chipgym.tasks.drc.suites import get_suite


def flip_labels(record: dict) -> None:
    for entry in record["pools"]["evaluation"]:
        entry["labels"] = {c: 1 - v for c, v in entry["labels"].items()}


def swap_pools(record: dict) -> None:
    record["pools"]["evaluation"] = record["pools"]["training"]


def replace_gold(record: dict) -> None:
    record["gold_deck"] = "source($input)\nreport('x', $output)\n"


EDITS: dict[str, Callable[[dict], None]] = {"labels flipped": flip_labels, "pools swapped": swap_pools,
                                            "gold deck replaced": replace_gold}


@pytest.fixture
def scratch(labelled_slice, suite_cache, tmp_path) -> tuple[Path, Path]:
    """A copy of the slice's cache, and the copied json file of its first task."""
    [root] = suite_cache.glob("drc-v0-*")
    copy = tmp_path / "cache"
    shutil.copytree(root, copy / root.name)
    return copy, copy / root.name / "tasks" / f"{labelled_slice[0].id}.json"


def test_the_built_slice_is_the_pinned_content(labelled_slice):
    pins = get_suite("drc-v0").pinned_content()
    assert pins is not None and all(task.id in pins for task in labelled_slice)


@pytest.mark.parametrize("edit", EDITS)
def test_a_task_file_edited_after_the_build_is_refused(labelled_slice, scratch, edit):
    cache, path = scratch
    record = json.loads(path.read_bytes())
    EDITS[edit](record)
    path.write_text(json.dumps(record, sort_keys=True))
    with pytest.raises(ArtifactError, match=r"not the content pinned for it.*build it again") as error:
        build_suite(seed=SUITE_SEED, cache_dir=cache, ids=[labelled_slice[0].id])
    assert str(path) in str(error.value)


def test_a_task_file_nested_deep_is_the_readers_own_error_with_or_without_a_pin(labelled_slice, scratch):
    cache, path = scratch
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ArtifactError, match="not the content pinned"):
        build_suite(seed=SUITE_SEED, cache_dir=cache, ids=[labelled_slice[0].id])
    with pytest.raises(ArtifactError, match="RecursionError"):
        artifact.read_task(path.parent, labelled_slice[0].id)


def test_only_a_frozen_suite_fully_built_is_pinned(tmp_path):
    with pytest.raises(ValueError, match="not fully built"):
        pin_suite("drc-v1", cache_dir=tmp_path)
