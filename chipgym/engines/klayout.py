"""Run KLayout DRC decks (the Ruby DSL) on layouts, fast and sandboxed.

A :class:`DrcPool` keeps a few long-lived KLayout processes, each in its own sandbox. A deck runs in a
fresh fork of one of them (no two decks share a Ruby heap), on all of its layouts in turn. Results are
cached by the content of the deck and the layout.

>>> from chipgym.engines.klayout import DrcPool
>>> deck = 'source($input); report("demo", $output); input(1, 0).width(0.5).output("w", "width < 0.5 um")'
>>> with DrcPool(workers=1) as pool:                                     # doctest: +SKIP
...     [result] = pool.run(deck, ["layout.gds"])
>>> result.status, result.counts                                          # doctest: +SKIP
(<DrcStatus.OK: 'ok'>, {'w': 2})
"""

from __future__ import annotations

import atexit
import concurrent.futures
import functools
import hashlib
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Iterator, Mapping, Sequence
from xml.etree import ElementTree

from chipgym.engines.sandbox import Mount, Sandbox
from chipgym.errors import EngineError, ToolMissingError

WORKER_SCRIPT = Path(__file__).with_name("klayout_worker.rb")
INSTALL_HINT = "apt-get install -y klayout"

Layout = str | os.PathLike | bytes
Marker = tuple  # ("polygon", (x0, y0, ...), *holes) | ("edge_pair", (x0, y0, x1, y1, x2, y2, x3, y3)) | ...


class DrcStatus(str, Enum):
    """How a deck's run on one layout ended. Everything but OK is the deck's own error."""

    OK = "ok"
    COMPILE = "compile"  # Ruby could not parse the deck
    RUNTIME = "runtime"  # the deck raised (unknown DSL method, bad argument, out of memory, ...)
    TIMEOUT = "timeout"  # it ran past the per-layout time limit and was killed
    CRASHED = "crashed"  # its process died (exit!, a signal, killing its parent, ...)
    NO_REPORT = "no_report"  # it never wrote a report to $output


@dataclass(frozen=True)
class CategoryResult:
    """The markers of one output category: their number and (up to the pool's limit) their geometry in dbu."""

    count: int
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True)
class DrcResult:
    """The outcome of one deck on one layout."""

    status: DrcStatus
    error: str = ""
    categories: Mapping[str, CategoryResult] = field(default_factory=dict)
    seconds: float = field(default=0.0, compare=False)  # time inside KLayout for this layout; not part of the result

    @property
    def ok(self) -> bool:
        return self.status is DrcStatus.OK

    @property
    def counts(self) -> dict[str, int]:
        """Marker count per category."""
        return {name: cat.count for name, cat in self.categories.items()}

    def to_json(self) -> dict:
        return {
            "status": self.status.value,
            "error": self.error,
            "categories": {n: {"count": c.count, "markers": c.markers} for n, c in self.categories.items()},
            "seconds": self.seconds,
        }

    @classmethod
    def from_json(cls, data: Mapping) -> DrcResult:
        categories = {
            name: CategoryResult(cat["count"], tuple(_freeze(m) for m in cat["markers"]))
            for name, cat in data["categories"].items()
        }
        return cls(DrcStatus(data["status"]), data["error"], categories, data.get("seconds", 0.0))


def _freeze(value):
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class DrcJob:
    """One deck to run on a list of layouts (paths or GDS/OASIS bytes)."""

    deck: str
    layouts: Sequence[Layout]


def read_report_counts(path: str | os.PathLike) -> dict[str, int]:
    """Marker count per category of a KLayout report database (.lyrdb), with KLayout's quoting undone."""
    root = ElementTree.parse(path).getroot()
    counts = {_unquote(c.findtext("name", "")): 0 for c in root.iterfind("categories/category")}
    for category in root.iterfind("items/item/category"):
        counts[_unquote(category.text or "")] += 1
    return counts


def _unquote(name: str) -> str:
    """KLayout writes a category name with characters beyond [A-Za-z0-9_$] in single quotes."""
    if len(name) >= 2 and name[0] == name[-1] == "'":
        return name[1:-1].replace("\\'", "'").replace("\\\\", "\\")
    return name


@functools.cache
def klayout_version() -> str:
    """The version of the KLayout binary that runs decks, e.g. ``'KLayout 0.28.5'``."""
    if shutil.which("klayout") is None:
        raise ToolMissingError("klayout", INSTALL_HINT)
    run = subprocess.run(["klayout", "-b", "-v"], capture_output=True, text=True, timeout=60)
    return run.stdout.strip() or run.stderr.strip()


@functools.cache
def engine_id() -> str:
    """Identifies everything a result depends on besides deck and layout: KLayout and this worker."""
    return f"{klayout_version()} worker-{hashlib.sha256(WORKER_SCRIPT.read_bytes()).hexdigest()[:12]}"


def _layout_bytes(layout: Layout) -> bytes:
    return layout if isinstance(layout, bytes) else Path(layout).read_bytes()


class DrcCache:
    """Results keyed by sha256 of (engine, deck, layout, marker limit): an LRU in memory, optionally on disk."""

    def __init__(self, size: int = 4096, directory: str | os.PathLike | None = None):
        self.size = size
        self.directory = Path(directory) if directory else None
        self._memory: OrderedDict[str, DrcResult] = OrderedDict()
        self._lock = threading.Lock()
        if self.directory:
            self.directory.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def key(deck: str, layout: bytes, max_markers: int) -> str:
        digest = hashlib.sha256()
        for part in (engine_id().encode(), deck.encode(), hashlib.sha256(layout).digest(), str(max_markers).encode()):
            digest.update(hashlib.sha256(part).digest())
        return digest.hexdigest()

    def get(self, key: str) -> DrcResult | None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        if self.directory and (path := self.directory / f"{key}.json").exists():
            result = DrcResult.from_json(json.loads(path.read_text()))
            self._remember(key, result)
            return result
        return None

    def put(self, key: str, result: DrcResult) -> None:
        if result.status in (DrcStatus.TIMEOUT, DrcStatus.CRASHED):
            return  # these depend on the machine's load and luck, not only on the deck
        self._remember(key, result)
        if self.directory:
            tmp = self.directory / f".{key}.{os.getpid()}.{threading.get_ident()}"
            tmp.write_text(json.dumps(result.to_json()))
            tmp.replace(self.directory / f"{key}.json")

    def _remember(self, key: str, result: DrcResult) -> None:
        with self._lock:
            self._memory[key] = result
            self._memory.move_to_end(key)
            while len(self._memory) > self.size:
                self._memory.popitem(last=False)


# A process started with --die-with-parent dies with the *thread* that started it, so every worker is
# started from one thread that lives as long as the interpreter. A forked child (AsyncVectorEnv, Ray) gets
# a fresh one: the parent's thread does not exist there.
_spawner: concurrent.futures.ThreadPoolExecutor | None = None


def _spawn(argv: list[str], **popen) -> subprocess.Popen:
    global _spawner
    if _spawner is None:
        _spawner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="chipgym-spawn")
    return _spawner.submit(subprocess.Popen, argv, **popen).result()


def _forget_spawner_after_fork() -> None:
    global _spawner
    _spawner = None
    _live_pools.clear()  # the parent's pools belong to the parent: a child must not stop their workers


os.register_at_fork(after_in_child=_forget_spawner_after_fork)


class KlayoutWorker:
    """One sandboxed, long-lived KLayout process that forks a child per deck.

    Its layouts are hard-linked (or copied) into a private folder that the sandbox sees as ``/job``,
    for the length of one job only.
    """

    START_TIMEOUT = 120.0

    def __init__(self, memory_bytes: int = 1536 << 20):
        self.root = Path(tempfile.mkdtemp(prefix="chipgym-klayout-"))
        self.job_dir = self.root / "job"
        self.job_dir.mkdir(mode=0o755)
        os.chmod(self.root, 0o755)
        # A copy in this world-readable folder: the package itself may sit where the sandbox's uid cannot reach.
        driver = Path(shutil.copy(WORKER_SCRIPT, self.root / WORKER_SCRIPT.name))
        driver.chmod(0o644)
        self.sandbox = Sandbox(
            mounts=[Mount(self.job_dir, "/job"), Mount(driver, "/driver/klayout_worker.rb")],
            memory_bytes=memory_bytes,
        )
        self.process: subprocess.Popen | None = None
        self._buffer = b""
        self._ready = False
        self._jobs = 0

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self) -> None:
        """Starts the KLayout process (about 2 s); returns before it is ready."""
        if shutil.which("klayout") is None:
            raise ToolMissingError("klayout", INSTALL_HINT)
        argv = self.sandbox.command(["klayout", "-b", "-r", "/driver/klayout_worker.rb"])
        stderr = open(self.root / "stderr.log", "wb")
        self.process = _spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
        stderr.close()
        self._buffer = b""
        self._ready = False

    def _await_ready(self) -> None:
        line = self._read_line(time.monotonic() + self.START_TIMEOUT)
        try:
            hello = json.loads(line or b"{}")
        except json.JSONDecodeError:
            hello = {}
        if not hello.get("ready"):
            raise EngineError(
                "a KLayout DRC worker did not start. Check `chipgym doctor`; KLayout said: "
                + self._stderr_tail()
            )
        self._ready = True

    def _stderr_tail(self) -> str:
        path = self.root / "stderr.log"
        return path.read_bytes()[-2000:].decode(errors="replace").strip() if path.exists() else ""

    def _read_line(self, deadline: float) -> bytes | None:
        """The next line from the worker, or None when it ended or the deadline passed."""
        out = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([out], [], [], left)[0]:
                return None
            chunk = os.read(out, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def run(self, deck: str, layouts: Sequence[Layout], timeout: float, max_markers: int) -> list[DrcResult]:
        """Runs the deck on each layout; a worker that dies is restarted and the job tried once more."""
        for attempt in range(2):
            replies = self._run_once(deck, layouts, timeout, max_markers)
            if replies is not None:
                return [DrcResult.from_json(r) for r in replies]
            self.stop()
        return [DrcResult(DrcStatus.CRASHED, "the deck killed its KLayout worker twice")] * len(layouts)

    def _run_once(self, deck, layouts, timeout, max_markers) -> list[dict] | None:
        if self.process is None:
            self.start()
        if not self._ready:
            self._await_ready()
        names = self._stage(layouts)
        self._jobs += 1
        job = {"id": self._jobs, "deck": deck, "layouts": names, "timeout": timeout, "max_markers": max_markers}
        try:
            self.process.stdin.write(json.dumps(job).encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return None
        # The worker enforces the per-layout timeout itself; this is the backstop for a stuck worker.
        line = self._read_line(time.monotonic() + timeout * len(layouts) + 30.0)
        self._clear_stage()
        if line is None:
            return None
        reply = json.loads(line)
        return reply["results"] if reply.get("id") == self._jobs else None

    def _stage(self, layouts: Sequence[Layout]) -> list[str]:
        self._clear_stage()
        names = []
        for i, layout in enumerate(layouts):
            suffix = "" if isinstance(layout, bytes) else "".join(Path(layout).suffixes[-2:])
            target = self.job_dir / f"{i}{suffix or '.gds'}"
            _place(layout, target)
            names.append(f"/job/{target.name}")
        return names

    def _clear_stage(self) -> None:
        for path in self.job_dir.iterdir():
            path.unlink()

    def stop(self) -> None:
        """Kills the sandbox's whole process group; the next job starts a fresh process."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()
        self.process = None
        self.sandbox.wait_for_exit()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def _place(layout: Layout, target: Path) -> None:
    """Puts a layout where the sandbox can read it: a hard link when possible (fast), else a copy."""
    if isinstance(layout, bytes):
        target.write_bytes(layout)
    else:
        source = Path(layout)
        if not source.is_file():
            raise FileNotFoundError(f"layout {source} does not exist")
        try:
            if not source.stat().st_mode & 0o004:
                raise PermissionError("not readable by the sandbox's uid")
            os.link(source, target)
            return
        except OSError:
            shutil.copyfile(source, target)
    target.chmod(0o644)


class DrcPool:
    """A pool of sandboxed KLayout workers that runs decks on layouts.

    ``timeout`` is the wall-clock limit for one deck on one layout; ``memory_bytes`` caps each
    process's address space. Results come back in input order.
    """

    def __init__(
        self,
        workers: int = 2,
        timeout: float = 20.0,
        memory_bytes: int = 1536 << 20,
        max_markers: int = 10_000,
        cache: DrcCache | None = None,
    ):
        klayout_version()  # fail early, with an install hint, when KLayout is missing
        self.timeout = timeout
        self.max_markers = max_markers
        self.cache = cache if cache is not None else DrcCache()
        self.workers = [KlayoutWorker(memory_bytes) for _ in range(workers)]
        self._idle: queue.Queue[KlayoutWorker] = queue.Queue()
        for worker in self.workers:
            worker.start()
            self._idle.put(worker)
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chipgym-drc")
        self._closed = False
        self._owner = os.getpid()
        _live_pools.add(self)
        _exit_on_sigterm()

    def run(self, deck: str, layouts: Sequence[Layout]) -> list[DrcResult]:
        """Runs one deck on each layout."""
        return self.run_batch([DrcJob(deck, layouts)])[0]

    def run_batch(self, jobs: Sequence[DrcJob], progress: bool = False) -> list[list[DrcResult]]:
        """Runs many decks, each on its own layouts, spread over the pool; results in input order."""
        if self._closed:
            raise EngineError("this DrcPool is closed")
        results: list[list[DrcResult | None]] = []
        pending = []
        for job in jobs:
            contents = [_layout_bytes(layout) for layout in job.layouts]
            keys = [DrcCache.key(job.deck, content, self.max_markers) for content in contents]
            cached = [self.cache.get(key) for key in keys]
            results.append(cached)
            missing = [i for i, hit in enumerate(cached) if hit is None]
            if missing:
                pending.append((len(results) - 1, missing, keys, job))
        futures = {
            self._executor.submit(self._run_on_idle_worker, job.deck, [job.layouts[i] for i in missing]): (j, missing, keys)
            for j, missing, keys, job in pending
        }
        for future in _progress(concurrent.futures.as_completed(futures), len(futures), progress):
            j, missing, keys = futures[future]
            for i, result in zip(missing, future.result()):
                results[j][i] = result
                self.cache.put(keys[i], result)
        return results  # type: ignore[return-value]

    def _run_on_idle_worker(self, deck: str, layouts: Sequence[Layout]) -> list[DrcResult]:
        worker = self._idle.get()
        try:
            return worker.run(deck, layouts, self.timeout, self.max_markers)
        finally:
            self._idle.put(worker)

    def close(self) -> None:
        """Stops every worker and removes their folders. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if os.getpid() != self._owner:
            return  # a forked copy: the workers belong to the parent process
        self._executor.shutdown(wait=True)
        for worker in self.workers:
            worker.close()
        _live_pools.discard(self)

    def __enter__(self) -> DrcPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if not getattr(self, "_closed", True):
            self.close()


def _progress(items: Iterator, total: int, show: bool) -> Iterator:
    if not show:
        return items
    from tqdm import tqdm

    return tqdm(items, total=total, desc="drc", unit="deck")


_live_pools: weakref.WeakSet[DrcPool] = weakref.WeakSet()


@atexit.register
def _close_live_pools() -> None:
    for pool in list(_live_pools):
        pool.close()


def _exit_on_sigterm() -> None:
    """Turns SIGTERM into a normal exit (so that pools close) unless the program handles it itself."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
