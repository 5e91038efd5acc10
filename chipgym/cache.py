"""Where chipgym keeps what it computed once: ``$CHIPGYM_CACHE/<kind>``, by default ``~/.cache/chipgym/<kind>``.

>>> cache_dir("verilator").name
'verilator'
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(kind: str) -> Path:
    """The cache folder for one kind of result (not created here)."""
    return Path(os.environ.get("CHIPGYM_CACHE", Path.home() / ".cache" / "chipgym")) / kind
