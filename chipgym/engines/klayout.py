"""Run KLayout DRC decks (the Ruby DSL) on layouts, fast and sandboxed.

A :class:`DrcPool` keeps a few long-lived KLayout processes, each in its own sandbox. A deck runs in a
fresh fork of one of them (no two decks share a Ruby heap, and no deck is forked from memory that ever held
another deck, layout or result), on its layouts one at a time: the sandbox shows it only the current layout,
always under the same name. Results are checked against their schema and cached by the content of the deck
and the layout.

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
import secrets
import shutil
import subprocess
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence
from xml.etree import ElementTree

from chipgym.cache import Cache
from chipgym.engines.process import Lines, kernel_resources, kill_group, spawn, wait_readable
from chipgym.engines.sandbox import Mount, Sandbox, private_folder, reap_orphaned_folders
from chipgym.engines.versions import TOOLS, require_tool
from chipgym.errors import AgentError, EngineError, ToolMissingError

WORKER_SCRIPT = Path(__file__).with_name("klayout_worker.rb")
FOLDER_PREFIX = "chipgym-klayout-"
"""Of each worker's temporary folder; a pool's start removes those of processes that died without closing."""
DSL_PROBE = Path(__file__).with_name("klayout_dsl_probe.rb")

Layout = str | os.PathLike | bytes
Marker = tuple  # ("polygon", (x0, y0, ...), *holes) | ("edge_pair", (x0, y0, x1, y1, x2, y2, x3, y3)) | ...


class DrcStatus(str, Enum):
    """How a deck's run on one layout ended. Everything but OK and UNAVAILABLE is the deck's own error."""

    OK = "ok"
    COMPILE = "compile"  # Ruby could not parse the deck
    RUNTIME = "runtime"  # the deck raised (unknown DSL method, bad argument, out of memory, ...)
    TIMEOUT = "timeout"  # it ran past the per-layout time limit and was killed
    CRASHED = "crashed"  # its process died (exit!, a signal, killing its parent, ...)
    NO_REPORT = "no_report"  # it never wrote a report to $output
    UNAVAILABLE = "unavailable"  # not the deck's doing: the worker died or did not answer; never cached


DECK_STATUSES = {DrcStatus.OK, DrcStatus.COMPILE, DrcStatus.RUNTIME, DrcStatus.NO_REPORT}
"""What a deck's own process may report; the pool alone decides TIMEOUT, CRASHED and UNAVAILABLE."""
MARKER_KINDS = {"polygon", "edge_pair", "edge", "box", "path", "text"}
MAX_ERROR = 4000  # characters of an error message kept


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
    def from_json(cls, data: Any, max_markers: int | None = None) -> DrcResult:
        """A result from its JSON form, checked field by field; raises ValueError naming what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("categories"), dict):
            raise ValueError("a result is an object with status, error and categories")
        try:
            status = DrcStatus(data.get("status"))
        except ValueError:
            status = None
        if status not in DECK_STATUSES:
            raise ValueError(f"status: expected one of {sorted(s.value for s in DECK_STATUSES)}")
        error = data.get("error")
        seconds = data.get("seconds", 0.0)
        if not isinstance(error, str) or not _is_number(seconds):
            raise ValueError("error: expected a string, seconds: a number")
        categories = {}
        for name, category in data["categories"].items():
            if not isinstance(category, dict) or not _is_count(category.get("count")):
                raise ValueError("categories: each is {count: N, markers: [...]}")
            markers = category.get("markers")
            if not isinstance(markers, list) or max_markers is not None and len(markers) > max_markers:
                raise ValueError("markers: expected a list within the marker limit")
            categories[name] = CategoryResult(category["count"], tuple(_marker(m) for m in markers))
        return cls(status, error[:MAX_ERROR], categories, float(seconds))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return _is_int(value) and value >= 0


def _coords(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) % 2 or not all(_is_int(v) for v in value):
        raise ValueError("markers: coordinates are a flat list of integer pairs")
    return tuple(value)


def _marker(value: Any) -> Marker:
    if not isinstance(value, list) or len(value) < 2 or value[0] not in MARKER_KINDS:
        raise ValueError(f"markers: a marker is [KIND, coordinates] with KIND one of {sorted(MARKER_KINDS)}")
    if value[0] == "text":
        if len(value) != 2 or not isinstance(value[1], str):
            raise ValueError("markers: a text marker is ['text', STRING]")
        return ("text", value[1])
    return (value[0], *(_coords(part) for part in value[1:]))


@dataclass(frozen=True)
class DrcJob:
    """One deck to run on a list of layouts (paths or GDS/OASIS bytes). ``isolated``: each layout in a fresh fork
    of its own (about 40 ms more a layout), so that nothing the deck computed on one layout (a counter, a global)
    is there on the next, and its verdicts cannot depend on the order it meets them in."""

    deck: str
    layouts: Sequence[Layout]
    isolated: bool = False


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


def klayout_version() -> str:
    """The version of the KLayout binary that runs decks, e.g. ``'KLayout 0.28.5'``."""
    return require_tool("klayout")


def probe_dsl_methods(klayout: str = "klayout") -> dict[str, list[str]]:
    """Ask a KLayout binary for its DSL methods: ``{"layer": [...], "engine": [...]}`` (a trusted script,
    run outside the sandbox)."""
    out = subprocess.run([klayout, "-b", "-r", str(DSL_PROBE)], capture_output=True, text=True, check=True).stdout
    found: dict[str, list[str]] = {"layer": [], "engine": []}
    for kind, name in (line.split(" ", 1) for line in out.splitlines() if " " in line):
        if name[:1].isalpha():
            found[kind].append(name)
    return found


@functools.cache
def engine_id() -> str:
    """Identifies everything a result depends on besides deck and layout: KLayout and this worker."""
    return f"{klayout_version()} worker-{hashlib.sha256(WORKER_SCRIPT.read_bytes()).hexdigest()[:12]}"


def _layout_bytes(layout: Layout) -> bytes:
    return layout if isinstance(layout, bytes) else Path(layout).read_bytes()


class DrcCache:
    """Results keyed by sha256 of (engine, deck, layout, marker limit, isolation): an LRU in memory, optionally also
    entries ``drc-results/<key>.json`` of a disk cache (e.g. :func:`chipgym.cache.default_cache`).

    The memory part holds at most ``size`` results and ``max_bytes`` of them (as JSON).
    """

    UNCACHED = (DrcStatus.TIMEOUT, DrcStatus.CRASHED, DrcStatus.UNAVAILABLE)  # the machine's load and luck
    DISK_KIND = "drc-results"

    def __init__(self, size: int = 4096, disk: Cache | None = None, max_bytes: int = 256 << 20):
        self.size = size
        self.max_bytes = max_bytes
        self.disk = disk
        self._memory: OrderedDict[str, tuple[DrcResult, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(deck: str, layout: bytes, max_markers: int, isolated: bool = False) -> str:
        digest = hashlib.sha256()
        parts = (engine_id().encode(), deck.encode(), hashlib.sha256(layout).digest(), str(max_markers).encode())
        for part in parts + ((b"isolated",) if isolated else ()):
            digest.update(hashlib.sha256(part).digest())
        return digest.hexdigest()

    def get(self, key: str) -> DrcResult | None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key][0]
        if self.disk is not None and (text := self.disk.get_bytes(self.DISK_KIND, f"{key}.json")) is not None:
            result = DrcResult.from_json(json.loads(text))
            self._remember(key, result, len(text))
            return result
        return None

    def put(self, key: str, result: DrcResult) -> None:
        if result.status in self.UNCACHED or (self.size == 0 and self.disk is None):
            return
        text = json.dumps(result.to_json())
        self._remember(key, result, len(text))
        if self.disk is not None:
            self.disk.put_bytes(self.DISK_KIND, f"{key}.json", text.encode())

    def _remember(self, key: str, result: DrcResult, size: int) -> None:
        with self._lock:
            if key in self._memory:
                self._bytes -= self._memory.pop(key)[1]
            self._memory[key] = (result, size)
            self._bytes += size
            while self._memory and (len(self._memory) > self.size or self._bytes > self.max_bytes):
                self._bytes -= self._memory.popitem(last=False)[1][1]


def _forget_pools_after_fork() -> None:
    _live_pools.clear()  # the parent's pools belong to the parent: a child must not stop their workers


os.register_at_fork(after_in_child=_forget_pools_after_fork)


class _WorkerLost(EngineError):
    """The worker process ended or stopped answering its control pipe: the infrastructure's failure."""


class _Stuck(AgentError):
    """A deck ran past the deadline that the worker itself should have enforced."""


@dataclass(frozen=True)
class LayoutSummary:
    """A layout read in the sandbox: every polygon's hull per (layer, datatype), flattened, in dbu."""

    error: str = ""
    dbu: float = 0.001
    layers: Mapping[tuple[int, int], tuple[tuple[int, ...], ...]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.error

    @classmethod
    def from_json(cls, data: Any, max_shapes: int) -> LayoutSummary:
        if data.get("status") != "ok":
            return cls(error=str(data.get("error", "gds: unreadable"))[:MAX_ERROR])
        layers, count = {}, 0
        for key, polygons in data["layers"].items():
            layer, datatype = (int(part) for part in key.split("/"))
            layers[layer, datatype] = tuple(_coords(p) for p in polygons)
            count += len(polygons)
        if count > max_shapes or not _is_number(data["dbu"]) or not data["dbu"] > 0:
            raise ValueError("summary: over the shape limit, or no database unit")
        return cls("", float(data["dbu"]), layers)


class KlayoutWorker:
    """One sandboxed, long-lived KLayout process that forks a child per deck.

    The worker is pid 1 of its sandbox, where no deck can signal it. A job's deck and its current layout are
    hard-linked (or copied) into a private folder that the sandbox sees as ``/job``, one layout at a time.
    The deck's process writes its results to a pipe of their own, read here; the worker enforces the time
    limit per layout, and this side enforces it again (plus ``GRACE`` seconds) in case the worker cannot.
    """

    START_TIMEOUT = 120.0
    GRACE = 10.0  # seconds past a layout's time limit before this side kills the whole sandbox
    CONTROL_TIMEOUT = 60.0  # seconds the worker may take to answer a control message (cleaning /tmp, ...)
    MAX_RESULT_BYTES = 32 << 20  # of one layout's result

    def __init__(self, memory_bytes: int = 1536 << 20, total_memory_bytes: int = 3 << 30):
        self.root = private_folder(FOLDER_PREFIX)
        self.job_dir = self.root / "job"
        self.job_dir.mkdir(mode=0o755)
        os.chmod(self.root, 0o755)
        # A copy in this world-readable folder: the package itself may sit where the sandbox's uid cannot reach.
        driver = Path(shutil.copy(WORKER_SCRIPT, self.root / WORKER_SCRIPT.name))
        driver.chmod(0o644)
        self.sandbox = Sandbox(
            mounts=[Mount(self.job_dir, "/job"), Mount(driver, "/driver/klayout_worker.rb")],
            memory_bytes=memory_bytes,
            total_memory_bytes=total_memory_bytes,
            pid1=True,
        )
        self.process: subprocess.Popen | None = None
        self._control: Lines | None = None
        self._results: Lines | None = None
        self._ready = self._has_started = False
        self._cleaning = False  # "end" was sent; its reply (is the sandbox clean?) is read before the next job

    def start(self) -> None:
        """Starts the KLayout process (about 2 s); returns before it is ready."""
        if shutil.which("klayout") is None:
            raise ToolMissingError("klayout", TOOLS["klayout"].install)
        results_read, results_write = os.pipe()
        argv = self.sandbox.command(
            ["klayout", "-b", "-r", "/driver/klayout_worker.rb", "-rd", f"results_fd={results_write}"]
        )
        stderr = open(self.root / "stderr.log", "wb")
        try:
            self.process = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                  start_new_session=True, pass_fds=(results_write,))
        finally:
            stderr.close()
            os.close(results_write)
        self._control = Lines(self.process.stdout.fileno(), 1 << 16)
        self._results = Lines(results_read, self.MAX_RESULT_BYTES)
        self._ready = False

    def _await_ready(self) -> None:
        try:
            hello = self._reply(self.START_TIMEOUT)
        except _WorkerLost:
            hello = {}
        if not hello.get("ready"):
            raise EngineError(
                "a KLayout DRC worker did not start. Check `chipgym doctor`; KLayout said: " + self._stderr_tail()
            )
        self._ready = self._has_started = True

    def _stderr_tail(self) -> str:
        path = self.root / "stderr.log"
        return path.read_bytes()[-2000:].decode(errors="replace").strip() if path.exists() else ""

    def _send(self, message: dict) -> None:
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise _WorkerLost from None

    def _reply(self, timeout: float) -> dict:
        """The worker's next control message."""
        deadline = time.monotonic() + timeout
        while (line := self._control.next()) is None:
            if self._control.overflowing or not wait_readable([self._control], deadline) or not self._control.read():
                raise _WorkerLost
        return json.loads(line)

    def run(self, deck: str, layouts: Sequence[Layout], timeout: float, max_markers: int,
            kind: str = "deck") -> list[dict | DrcResult]:
        """Runs the deck (or, with ``kind="summary"``, the layout reader) on each layout in turn.

        A worker that is lost is restarted and the job tried once more; then its layouts are UNAVAILABLE.
        Only a worker that never started raises (EngineError, with what KLayout said).
        """
        for _attempt in range(2):
            try:
                return self._run_job(deck, layouts, timeout, max_markers, kind)
            except _WorkerLost:
                self.stop()
            except EngineError:
                if not self._has_started:
                    raise
                self.stop()
        lost = DrcResult(DrcStatus.UNAVAILABLE, "the KLayout worker died twice; see `chipgym doctor`")
        return [lost] * len(layouts)

    def _run_job(self, deck, layouts, timeout, max_markers, kind) -> list[dict | DrcResult]:
        if self.process is not None and self._cleaning:
            self._cleaning = False
            if not self._reply(self.CONTROL_TIMEOUT).get("clean"):
                self.stop()  # this job starts in a fresh sandbox
        if self.process is None:
            self.start()
        if not self._ready:
            self._await_ready()
        self._clear_stage()
        _place(deck.encode(), self.job_dir / "deck.drc")
        self._results.drain()
        self._send({"op": "job", "kind": kind, "deck": "/job/deck.drc", "timeout": timeout, "max_markers": max_markers})
        results: list[dict | DrcResult] = []
        try:
            for index, layout in enumerate(layouts):
                try:
                    results.append(self._run_layout(layout, timeout))
                except _Stuck:
                    self.stop()
                    results.append(DrcResult(DrcStatus.TIMEOUT,
                                             f"the deck ran longer than {timeout} s on one layout and was killed"))
                    skipped = DrcResult(DrcStatus.TIMEOUT, "not run: the deck had to be killed on an earlier layout")
                    return results + [skipped] * (len(layouts) - index - 1)
            self._send({"op": "end"})  # the worker cleans up while the caller reads the results
            self._cleaning = True
            return results
        finally:
            self._clear_stage()

    def _run_layout(self, layout: Layout, timeout: float) -> dict | DrcResult:
        """The raw result (a dict, unchecked) of the current job's deck on one layout, or the pool's verdict."""
        for path in self.job_dir.iterdir():
            if path.name != "deck.drc":
                path.unlink()
        suffix = "" if isinstance(layout, bytes) else "".join(Path(layout).suffixes[-2:])
        target = self.job_dir / f"layout{suffix or '.gds'}"
        _place(layout, target)
        nonce = secrets.token_hex(8)
        self._send({"op": "layout", "path": f"/job/{target.name}", "nonce": nonce})
        deadline = time.monotonic() + timeout + self.GRACE
        while True:
            if (line := self._results.next()) is not None:
                return self._result(line, nonce)
            if self._results.overflowing:
                self._kill_child()
                return DrcResult(DrcStatus.CRASHED,
                                 f"the deck's process wrote a result over {self.MAX_RESULT_BYTES} bytes")
            if (line := self._control.next()) is not None:
                message = json.loads(line)
                if message.get("timeout") == nonce:
                    self._results.drain()
                    return DrcResult(DrcStatus.TIMEOUT,
                                     f"the deck ran longer than {timeout} s on one layout and was killed")
                if message.get("ended") == nonce:
                    if (wait_readable([self._results], time.monotonic()) and self._results.read()
                            and (line := self._results.next())):
                        return self._result(line, nonce)
                    self._results.drain()
                    return DrcResult(DrcStatus.CRASHED, f"the deck's process {message.get('how', 'ended')}")
                continue
            ready = wait_readable([self._results, self._control], deadline)
            if not ready:
                raise _Stuck
            for stream in ready:
                if not stream.read():
                    raise _WorkerLost

    def _result(self, line: bytes, nonce: str) -> dict | DrcResult:
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or data.pop("nonce", None) != nonce:
                raise ValueError("not this layout's result")
            return data
        except (ValueError, RecursionError):
            self._kill_child()
            return DrcResult(DrcStatus.CRASHED, UNREADABLE)

    def _kill_child(self) -> None:
        """Ends the deck's process (the worker forks a fresh one for the next layout) and drops its output."""
        self._send({"op": "kill"})
        self._reply(self.CONTROL_TIMEOUT)
        self._results.drain()

    def _clear_stage(self) -> None:
        for path in self.job_dir.iterdir():
            path.unlink()

    def stop(self) -> None:
        """Kills the sandbox's whole process group; the next job starts a fresh process."""
        if self.process is None:
            return
        kill_group(self.process, (self.process.stdin, self.process.stdout), (self._results.fd,))
        self.process = self._control = self._results = None
        self._cleaning = False
        self.sandbox.wait_for_exit()

    def close(self) -> None:
        self.stop()
        self.sandbox.release()
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
    process's address space and ``total_memory_bytes`` the memory of one worker's whole sandbox (where the
    machine allows control groups: :func:`chipgym.engines.cgroup.available`). Results come back in input order.
    """

    def __init__(
        self,
        workers: int = 2,
        timeout: float = 20.0,
        memory_bytes: int = 1536 << 20,
        max_markers: int = 10_000,
        cache: DrcCache | None = None,
        total_memory_bytes: int = 3 << 30,
    ):
        klayout_version()  # fail early, with an install hint, when KLayout is missing
        self.timeout = timeout
        self.max_markers = max_markers
        self.cache = cache if cache is not None else DrcCache()
        reap_orphaned_folders(FOLDER_PREFIX)  # those of pools whose process was killed before it could close them
        self.workers = [KlayoutWorker(memory_bytes, total_memory_bytes) for _ in range(workers)]
        self._idle: queue.Queue[KlayoutWorker] = queue.Queue()
        for worker in self.workers:
            worker.start()
            self._idle.put(worker)
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chipgym-drc")
        self._closed = False
        self._owner = os.getpid()
        _live_pools.add(self)

    def run(self, deck: str, layouts: Sequence[Layout], isolated: bool = False) -> list[DrcResult]:
        """Runs one deck on each layout (``isolated``: each in a fresh fork, as :class:`DrcJob` says)."""
        return self.run_batch([DrcJob(deck, layouts, isolated)])[0]

    def run_batch(self, jobs: Sequence[DrcJob], progress: bool = False) -> list[list[DrcResult]]:
        """Runs many decks, each on its own layouts, spread over the pool; results in input order."""
        if self._closed:
            raise EngineError("this DrcPool is closed")
        results: list[list[DrcResult | None]] = []
        pending = []
        for job in jobs:
            contents = [_layout_bytes(layout) for layout in job.layouts]
            keys = [DrcCache.key(job.deck, content, self.max_markers, job.isolated) for content in contents]
            cached = [self.cache.get(key) for key in keys]
            results.append(cached)
            missing = [i for i, hit in enumerate(cached) if hit is None]
            runs = [[i] for i in missing] if job.isolated else [missing] if missing else []
            pending += [(len(results) - 1, run, keys, job) for run in runs]
        with kernel_resources("running DRC decks"):
            futures = {
                self._executor.submit(self._run_on_idle_worker, job.deck,
                                      [job.layouts[i] for i in missing]): (j, missing, keys)
                for j, missing, keys, job in pending
            }
        for future in _progress(concurrent.futures.as_completed(futures), len(futures), progress):
            j, missing, keys = futures[future]
            for i, raw in zip(missing, future.result()):
                result = _checked_result(raw, self.max_markers)
                results[j][i] = result
                self.cache.put(keys[i], result)
        return results  # type: ignore[return-value]

    def summarise(self, layouts: Sequence[Layout], max_shapes: int) -> list[LayoutSummary]:
        """Reads each layout in the sandbox: its polygons, flattened, or why it cannot be read or is over
        ``max_shapes`` (a garbage, truncated or recursive file, or an array of a billion instances, fails
        there and not in this process)."""
        if self._closed:
            raise EngineError("this DrcPool is closed")
        with kernel_resources("reading layouts"):
            future = self._executor.submit(self._run_on_idle_worker, "", layouts, "summary", max_shapes)
        raw = future.result()
        return [_checked_summary(r, max_shapes) for r in raw]

    def _run_on_idle_worker(self, deck: str, layouts: Sequence[Layout], kind: str = "deck",
                            limit: int | None = None) -> list:
        worker = self._idle.get()
        try:
            return worker.run(deck, layouts, self.timeout, limit or self.max_markers, kind)
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


UNREADABLE = "the deck's process wrote an unreadable result"
MALFORMED = (ValueError, KeyError, TypeError, AttributeError, RecursionError)


def _checked_result(raw: dict | DrcResult, max_markers: int) -> DrcResult:
    """A deck's raw reply checked against its schema; one that is not a result is the deck's crash."""
    if isinstance(raw, DrcResult):
        return raw
    try:
        return DrcResult.from_json(raw, max_markers)
    except MALFORMED:
        return DrcResult(DrcStatus.CRASHED, UNREADABLE)


def _checked_summary(raw: dict | DrcResult, max_shapes: int) -> LayoutSummary:
    """The layout reader's raw reply checked against its schema; a failure is the layout's refusal."""
    if isinstance(raw, DrcResult):
        return LayoutSummary(error=f"gds: {raw.status.value}: {raw.error}")
    try:
        return LayoutSummary.from_json(raw, max_shapes)
    except MALFORMED:
        return LayoutSummary(error=f"gds: {UNREADABLE}")


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

