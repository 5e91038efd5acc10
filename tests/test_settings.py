"""Every environment variable chipgym reads is described once, in chipgym/settings.py, and documented (issue 29
§4: four modules read the environment, with no single list)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from chipgym import settings

PACKAGE = Path(__file__).resolve().parents[1] / "chipgym"
DOCS = [Path(__file__).resolve().parents[1] / "README.md", *(PACKAGE.parent / "docs").glob("*.md")]


def _reads_the_environment(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                alias.name in ("environ", "getenv", "environb") for alias in node.names):
            return True
    return False


def test_only_the_settings_module_reads_the_environment():
    readers = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py") if _reads_the_environment(path))
    assert readers == ["settings.py"]


@pytest.mark.parametrize("variable", settings.VARIABLES, ids=lambda variable: variable.name)
def test_every_variable_is_documented(variable):
    name = variable.name.removesuffix("*")  # a family's members are documented by their common prefix
    assert any(name in doc.read_text() for doc in DOCS), f"{variable.name}: in no page of the docs"


def test_an_empty_variable_is_an_unset_one(monkeypatch, tmp_path):
    # CHIPGYM_PDK_HOME="" installed PDKs into the working folder; CHIPGYM_GRADING_SEED="" was "not an integer"
    from chipgym.scoring.pdk import pdk_home
    from chipgym.tasks.grading_seed import grading_seed

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHIPGYM_PDK_HOME", "")
    monkeypatch.setenv("CHIPGYM_GRADING_SEED", "")
    assert pdk_home() != Path("") and pdk_home().is_absolute() and grading_seed() is None
