"""Process design kits that scoring needs and no package registry carries, installed once per machine.

``install`` fetches a PDK from a local folder or an http(s) URL into ``pdk_home()/<name>``, checks every file
against the checksums shipped in ``chipgym/scoring/pdks/<name>.sha256`` and unpacks the ``*.gz`` files.

>>> KNOWN_PDKS
('asap7',)
>>> sorted(checksums("asap7"))[:2]
['LICENSE', 'asap7sc7p5t_28_R_1x_220121a.lef.gz']
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

from tqdm import tqdm

from chipgym import settings
from chipgym.errors import PdkError, PdkMissingError

KNOWN_PDKS = ("asap7",)
CHECKSUMS = Path(__file__).with_name("pdks")
MARKER = "INSTALLED"
DOWNLOAD_TIMEOUT = 60  # seconds without an answer from the server


def checksums(name: str) -> dict[str, str]:
    """The files of a known PDK, each with its SHA-256, as shipped with chipgym."""
    if name not in KNOWN_PDKS:
        raise PdkError(f"unknown PDK {name!r}; known: {', '.join(KNOWN_PDKS)}")
    lines = (CHECKSUMS / f"{name}.sha256").read_text().splitlines()
    return {filename.lstrip("*"): digest for digest, filename in (line.split(maxsplit=1) for line in lines if line)}


def pdk_home() -> Path:
    """Where PDKs are installed: ``$CHIPGYM_PDK_HOME``, by default ``~/.local/share/chipgym/pdk``."""
    return Path(settings.PDK_HOME.value() or Path.home() / ".local" / "share" / "chipgym" / "pdk")


def pdk_root(name: str) -> Path:
    """The folder of an installed PDK; raises PdkMissingError, saying how to install it, when it is not."""
    checksums(name)  # an unknown name is an error of its own, not a missing install
    root = pdk_home() / name
    if not (root / MARKER).is_file():
        raise PdkMissingError(name, pdk_home())
    return root


def installed_pdks() -> list[str]:
    """The known PDKs installed in ``pdk_home()``."""
    return [name for name in KNOWN_PDKS if (pdk_home() / name / MARKER).is_file()]


def install(name: str, source: str | Path, home: Path | None = None, progress: bool = True) -> Path:
    """Install a PDK from a folder or an http(s) URL of one, replacing any earlier install; returns its folder.

    Every file is fetched and checked before anything is installed, in a folder beside the target that is
    renamed into place at the end, so that a failed install leaves the earlier one (or none) as it was.
    """
    expected = checksums(name)
    home = Path(home) if home is not None else pdk_home()
    home.mkdir(parents=True, exist_ok=True)
    target = home / name
    with tempfile.TemporaryDirectory(prefix=f".{name}-", dir=home) as stage_dir:
        stage = Path(stage_dir) / name
        stage.mkdir()
        for filename, digest in tqdm(expected.items(), desc=f"fetching {name}", unit=" files", file=sys.stderr,
                                     disable=not progress):
            try:
                file = _open(source, filename)
            except OSError as error:
                raise PdkError(f"{filename} is missing from {source} (expected SHA-256 {digest}): {error}") from error
            with file as src, open(stage / filename, "wb") as dst:
                shutil.copyfileobj(src, dst)
            actual = _sha256(stage / filename)
            if actual != digest:
                raise PdkError(f"{filename} from {source} has SHA-256 {actual}, expected {digest}")
        for filename in expected:
            if filename.endswith(".gz"):
                with gzip.open(stage / filename) as src, open(stage / filename.removesuffix(".gz"), "wb") as dst:
                    shutil.copyfileobj(src, dst)
                (stage / filename).unlink()
        origin = source if _is_url(source) else Path(source).resolve()
        date = datetime.now(timezone.utc).isoformat(timespec="seconds")
        (stage / MARKER).write_text(f"source: {origin}\ndate: {date}\n")
        if target.exists():
            os.replace(target, Path(stage_dir) / "replaced")
        os.replace(stage, target)
    return target


def _is_url(source: str | Path) -> bool:
    return str(source).startswith(("http://", "https://"))


def _open(source: str | Path, filename: str) -> BinaryIO:
    """One file of the source, open for reading."""
    if _is_url(source):
        url = f"{str(source).rstrip('/')}/{urllib.parse.quote(filename)}"
        return urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT)
    return open(Path(source) / filename, "rb")


def _sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()
