"""One bounded disk cache for what chipgym computes once: ``$CHIPGYM_CACHE``, by default ``~/.cache/chipgym``.

An entry is ``<root>/<kind>/<key>``: a file (a JSON value or bytes) or a folder of files (a simulator build,
a netlist). Every entry is written under a temporary name in its kind's folder and renamed into place, so a
reader finds a whole entry or none; the temporary a crashed writer leaves (a name starting with ``.``) is
never served, and is removed once it is an hour old by the next count of the entries (or ``clear``). A hit
stamps the entry's mtime. A put that takes the entries past ``max_bytes`` (``$CHIPGYM_CACHE_MAX_BYTES``,
default 5 GiB) removes the least recently used ones until they fit again, never the one it wrote. Two writers
of one key both end with a whole entry: a file is replaced, a folder already there stays (keys are content
hashes, so it holds the same thing).

The labelled DRC suites (kind ``drc``, ~40 MB each, one per suite seed) are neither counted nor evicted:
they do not grow with submissions, labelling one takes minutes, and the environments read their files
while they run. ``chipgym cache clear drc`` removes them.

>>> import tempfile
>>> cache = Cache(Path(tempfile.mkdtemp()), max_bytes=1 << 20)
>>> cache.put_json("scores", "a.json", {"reward": 0.5}).name
'a.json'
>>> cache.get_json("scores", "a.json"), cache.get_json("scores", "b.json")
({'reward': 0.5}, None)
>>> (cache.put_folder("verilator", "f00d", {"sim": b"binary"}) / "sim").read_bytes()
b'binary'
>>> sorted((e.kind, e.path.name, e.bytes > 0) for e in cache.entries())
[('scores', 'a.json', True), ('verilator', 'f00d', True)]
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from chipgym import settings

DEFAULT_MAX_BYTES = 5 << 30
UNBOUNDED_KINDS = frozenset({"drc", "secrets"})
"""kinds never counted against the limit nor evicted (the labelled DRC suites, see above, and this machine's
DRC grading secret, :func:`chipgym.tasks.grading_seed.drc_grading_secret`)"""
TEMPORARY = "."
"""the first character of an entry being written or removed, never of a key"""
STALE_SECONDS = 3600
"""a temporary this old belongs to a writer that died"""
RECOUNT_SECONDS = 60.0
"""a put counts every entry again (and evicts) when its own running count passes the limit, or after this
long, since other processes write too: counting a cache of thousands of entries takes a tenth of a second"""

_counted: dict[Path, tuple[float, int]] = {}
"""per cache root: when this process last counted its entries, and the bytes counted plus written since"""


@dataclass(frozen=True)
class Entry:
    kind: str
    path: Path
    bytes: int
    """on disk"""
    used: float
    """when it was last written or read (its mtime, seconds since the epoch)"""


@dataclass(frozen=True)
class Cache:
    root: Path
    max_bytes: int = DEFAULT_MAX_BYTES

    def folder(self, kind: str) -> Path:
        """The folder of one kind of entry (not created here)."""
        return self.root / kind

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        path = self._path(kind, key)
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None
        _stamp(path)
        return data

    def put_bytes(self, kind: str, key: str, data: bytes) -> Path:
        path = self._path(kind, key)
        with self._staging(path) as staging:
            staging.write_bytes(data)
            os.replace(staging, path)
        return self._written(path)

    def get_json(self, kind: str, key: str) -> Any | None:
        data = self.get_bytes(kind, key)
        return None if data is None else json.loads(data)

    def put_json(self, kind: str, key: str, value: Any) -> Path:
        return self.put_bytes(kind, key, json.dumps(value).encode())

    def get_folder(self, kind: str, key: str) -> Path | None:
        path = self._path(kind, key)
        if not path.is_dir():
            return None
        _stamp(path)
        return path

    def put_folder(self, kind: str, key: str, files: Mapping[str, bytes | Path]) -> Path:
        """A folder entry of ``files`` (name -> bytes, or a file to copy); one already there is kept."""
        path = self._path(kind, key)
        with self._staging(path) as staging:
            staging.mkdir()
            for name, content in files.items():
                if isinstance(content, bytes):
                    (staging / name).write_bytes(content)
                else:
                    shutil.copy2(content, staging / name)
            try:
                staging.rename(path)
            except OSError:
                if not path.is_dir():  # not another writer's entry of the same key
                    raise
        return self._written(path)

    def kinds(self) -> list[str]:
        """The kinds it holds."""
        return sorted(c.name for c in _listing(self.root) if c.is_dir(follow_symlinks=False))

    def entries(self, kinds: tuple[str, ...] = ()) -> list[Entry]:
        """Every whole entry of ``kinds`` (every kind if none)."""
        return self._entries(kinds or self.kinds())

    def clear(self, kinds: tuple[str, ...] = (), older_than: float = 0.0) -> list[Entry]:
        """Remove the entries of ``kinds`` (every kind if none) unused for ``older_than`` seconds."""
        cutoff = time.time() - older_than
        removed = [entry for entry in self.entries(kinds) if entry.used <= cutoff]
        for entry in removed:
            _remove(entry.path)
        self._remove_stale_temporaries()
        return removed

    def _path(self, kind: str, key: str) -> Path:
        if not all(name and not name.startswith(TEMPORARY) and "/" not in name for name in (kind, key)):
            raise ValueError(f"a cache kind and key are plain names, not {kind!r} and {key!r}")
        return self.root / kind / key

    @contextlib.contextmanager
    def _staging(self, path: Path) -> Iterator[Path]:
        """A fresh temporary name next to ``path``, removed afterwards if it was not renamed."""
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f"{TEMPORARY}{os.getpid()}-{secrets.token_hex(4)}-{path.name}")
        try:
            yield staging
        finally:
            _remove(staging)

    def _written(self, path: Path) -> Path:
        _stamp(path)
        measured_at, total = _counted.get(self.root, (-RECOUNT_SECONDS, 0))
        total += _size(path)
        if total > self.max_bytes or time.monotonic() - measured_at >= RECOUNT_SECONDS:
            measured_at, total = time.monotonic(), self._shrink(keep=path)
        _counted[self.root] = (measured_at, total)  # a lost update from another thread only delays a recount
        return path

    def _shrink(self, keep: Path) -> int:
        """Remove least recently used entries (never ``keep``) until the counted ones fit in ``max_bytes``;
        the bytes left."""
        self._remove_stale_temporaries()
        counted = self._entries(kind for kind in self.kinds() if kind not in UNBOUNDED_KINDS)
        total = sum(e.bytes for e in counted)
        for entry in sorted(counted, key=lambda e: e.used):
            if total <= self.max_bytes:
                break
            if entry.path != keep:
                _remove(entry.path)
                total -= entry.bytes
        return total

    def _remove_stale_temporaries(self) -> None:
        cutoff = time.time() - STALE_SECONDS
        for child in (c for kind in self.kinds() for c in _listing(self.root / kind)):
            with contextlib.suppress(FileNotFoundError):
                if child.name.startswith(TEMPORARY) and child.stat(follow_symlinks=False).st_mtime < cutoff:
                    _remove(Path(child.path))

    def _entries(self, kinds: Iterable[str]) -> list[Entry]:
        children = (c for kind in kinds for c in _listing(self.root / kind) if not c.name.startswith(TEMPORARY))
        return [entry for child in children if (entry := _entry(child)) is not None]


def folder_digest(folder: Path, skip: Callable[[Path], bool] = lambda path: False) -> str:
    """SHA-256 of every file under ``folder`` but those ``skip`` names: each one's path and content (a link's by
    its target text, as a sandbox shown the folder gets it)."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and not path.is_symlink() or skip(path):
            continue
        content = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
        h.update(f"{path.relative_to(folder)}\0".encode() + hashlib.sha256(content).digest())
    return h.hexdigest()


def default_cache() -> Cache:
    """The cache in ``$CHIPGYM_CACHE`` (default ``~/.cache/chipgym``), limited to ``$CHIPGYM_CACHE_MAX_BYTES``."""
    root = Path(settings.CACHE.value() or Path.home() / ".cache" / "chipgym")
    limit = settings.CACHE_MAX_BYTES.value() or str(DEFAULT_MAX_BYTES)
    if not limit.isdigit():
        raise ValueError(f"CHIPGYM_CACHE_MAX_BYTES must be a whole number of bytes, not {limit!r}")
    return Cache(root, int(limit))


def _listing(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as children:
            return list(children)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _entry(child: os.DirEntry) -> Entry | None:
    """The entry ``child`` of a kind's folder, or None if it vanished meanwhile."""
    path = Path(child.path)
    try:
        return Entry(path.parent.name, path, _size(path), child.stat(follow_symlinks=False).st_mtime)
    except FileNotFoundError:
        return None


def _size(path: Path) -> int:
    """The bytes a file, or a folder and every file in it, take on disk (as ``du`` counts them)."""
    if not path.is_dir() or path.is_symlink():
        return path.lstat().st_blocks * 512
    return sum((Path(folder) / name).lstat().st_blocks * 512
               for folder, _, names in os.walk(path) for name in ("", *names))


def _stamp(path: Path) -> None:
    """Mark ``path`` used now, finer than the file system's own clock (a read-only cache stays unmarked)."""
    now = time.time_ns()
    with contextlib.suppress(OSError):
        os.utime(path, ns=(now, now), follow_symlinks=False)


def _remove(path: Path) -> None:
    """Remove a file or folder; a folder is renamed to a temporary name first, so it vanishes at once."""
    doomed = path.with_name(f"{TEMPORARY}{os.getpid()}-{secrets.token_hex(4)}-removed")
    try:
        os.rename(path, doomed)
    except FileNotFoundError:
        return
    if doomed.is_dir() and not doomed.is_symlink():
        shutil.rmtree(doomed, ignore_errors=True)
    else:
        doomed.unlink(missing_ok=True)
