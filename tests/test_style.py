"""The code passes ``ruff check`` with the settings in pyproject.toml ([tool.ruff])."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ("chipgym", "tests", "benchmarks", "examples")


def _ruff() -> list[str] | None:
    """The ruff installed with this Python (the venv's binary, or its module), or None."""
    binary = Path(sys.executable).parent / ("ruff.exe" if sys.platform == "win32" else "ruff")
    if binary.is_file():
        return [str(binary)]
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    return None


def test_ruff_check_passes():
    ruff = _ruff()
    if ruff is None:
        pytest.skip(f"ruff is not installed next to {sys.executable} (pip install -e '.[dev]')")
    run = subprocess.run([*ruff, "check", "--no-cache", *PATHS], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, f"ruff check {' '.join(PATHS)} failed:\n{run.stdout}{run.stderr}"
