"""pyverilator (the ``pyverilator-mm`` fork), sandboxed: a design built into a shared library, and a long-lived
worker that loads it and steps it with a trusted Python testbench, cycle by cycle, on request.

The library is the design's own code: it is built and loaded only inside the sandbox of
:mod:`chipgym.engines.sandbox`, never in this process. A :class:`Session` is one worker
(:mod:`chipgym.engines.pyverilator_worker`) in a sandbox of its own, with no network, no view of anything but
its library, the testbench and the packages it imports, limits on memory and processes for the sandbox as a
whole, and a private ``/tmp``. This side enforces each request's time limit (then kills the whole sandbox),
caps the replies and what the design prints, and reads the replies as untrusted: a worker that dies, hangs
or floods is a :class:`~chipgym.errors.SimulationError` with what it last printed, and the session ends.

>>> from chipgym.engines.pyverilator import Session
>>> library = build(rtl, "chipgym_cpu", out)                      # doctest: +SKIP
>>> with Session(library, bench) as session:                      # doctest: +SKIP
...     signals = session.start()
...     session.request({"op": "reset", "job": job}, timeout=10)
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

from chipgym.engines.process import Lines, kill_group, spawn, untrusted_json, wait_readable
from chipgym.engines.python import PYTHON
from chipgym.engines.sandbox import Mount, Sandbox
from chipgym.engines.tools import run_tool
from chipgym.errors import BuildError, EngineError, SimulationError, ToolMissingError
from chipgym.waveform import __file__ as WAVEFORM

WORKER = Path(__file__).with_name("pyverilator_worker.py")
PACKAGES = ("pyverilator", "packaging")  # what the worker and the build import, beside the standard library
BUILD_TIMEOUT = 600
MEMORY = 2 << 30  # bytes of address space per process of a session
TOTAL_MEMORY = 3 << 30  # bytes of memory of a session's whole sandbox, where a control group is available
PROCESSES = 32
START_TIMEOUT = 30.0  # seconds to start Python and load the library (the design does not run yet)
MAX_REPLY = 64 << 20  # bytes of one reply line
MAX_PRINTED = 8 << 20  # bytes the design may print during one request before the session is ended
PRINTED_KEPT = 4000  # bytes of it kept to show
LIBRARY = "design.so"

BUILD = r"""
import subprocess, sys
sys.path[:0] = sys.argv[4:]
from pyverilator import PyVerilator
top, source, out = sys.argv[1:4]
PyVerilator.build(source, build_dir=out, gen_only=True, cargs="-O1",
                  args=["--top-module", top, "-Wno-lint", "-Wno-style", "-O1"])
make = subprocess.run(["make", "-j", "2", "-C", out, "-f", f"V{top}.mk", "LDFLAGS=-fPIC -shared"],
                      stdout=subprocess.DEVNULL)
sys.exit(make.returncode)
"""


@functools.cache
def packages() -> tuple[Path, ...]:
    """The folders of the packages the worker imports (ToolMissingError when pyverilator is not installed)."""
    try:
        import packaging
        import pyverilator
    except ImportError:
        raise ToolMissingError("pyverilator", "pip install pyverilator-mm==0.7.6") from None
    return tuple(Path(module.__file__).parent for module in (pyverilator, packaging))


def version() -> str:
    """The pyverilator package's version, for cache keys."""
    from importlib.metadata import version as installed

    return installed("pyverilator-mm")


def build(rtl: Path, top: str, out: Path) -> Path:
    """Builds the design in the file ``rtl`` (top module ``top``) into ``out``; the library's path, or
    BuildError with Verilator's or the compiler's first errors."""
    with tempfile.TemporaryDirectory(prefix="chipgym-pyverilator-") as source:
        # pyverilator names the model after the top file; the sandbox's uid must read it
        (Path(source) / f"{top}.v").write_bytes(rtl.read_bytes())
        lib = packages()[0].parent
        result = run_tool([PYTHON, "-I", "-c", BUILD, top, f"{source}/{top}.v", str(out), str(lib)],
                          cwd=Path(source), timeout=BUILD_TIMEOUT, readable=(Path(source), *packages()),
                          writable=(out,))
    if result.timed_out:
        raise BuildError(f"the build did not finish in {BUILD_TIMEOUT} s")
    if not result.ok or not (out / f"V{top}").is_file():
        lines = result.stderr.replace(f"{source}/", "").splitlines()  # the file's name alone: no temporary path
        errors = [line for line in lines if line.startswith("%Error")] or [line for line in lines if "error" in line]
        raise BuildError("\n".join(errors[:8]) or result.tail(8))
    return out / f"V{top}"


def reply_problem(reply: Any) -> str | None:
    """What in a worker's reply breaks the protocol of :mod:`chipgym.engines.pyverilator_worker`, or None."""
    if not isinstance(reply, dict):
        return "not a JSON object"
    if "cycle" in reply and not _count(reply["cycle"]):
        return "cycle is not a count"
    if "done" in reply and not isinstance(reply["done"], (str, type(None))):
        return "done is neither text nor null"
    if "signals" in reply and not _records(reply["signals"], lambda s: len(s) == 2 and isinstance(s[0], str)
                                           and _count(s[1])):
        return "signals is not a list of [name, width]"
    if "events" in reply and not _records(reply["events"], lambda e: bool(e) and isinstance(e[0], str) and all(
            isinstance(v, str) or _count(v) for v in e[1:])):
        return "events is not a list of [tag, count or text, ...]"
    changes = reply.get("changes", {})
    if not isinstance(changes, dict) or not all(_records(c, lambda c: len(c) == 2 and all(map(_count, c)))
                                                for c in changes.values()):
        return "changes is not an object of [[tick, value], ...]"
    return None


def _count(value: Any) -> bool:
    """A non-negative integer (not a boolean); untrusted_json keeps it within 64 bits."""
    return type(value) is int and value >= 0


def _records(value: Any, valid) -> bool:
    """A list of lists, each of which ``valid`` accepts."""
    return isinstance(value, list) and all(isinstance(item, list) and valid(item) for item in value)


class Session:
    """One sandboxed worker holding the library at ``library``, driven by the testbench file ``bench``."""

    def __init__(self, library: Path, bench: Path):
        self.root = Path(tempfile.mkdtemp(prefix="chipgym-sim-"))
        weakref.finalize(self, shutil.rmtree, self.root, True)  # also when a session is dropped without close()
        os.chmod(self.root, 0o755)
        for source, target in ((library, LIBRARY), (bench, "bench.py"), (WORKER, WORKER.name),
                               (Path(WAVEFORM), "waveform.py")):
            shutil.copyfile(source, self.root / target)
            (self.root / target).chmod(0o644)
        for package in packages():
            shutil.copytree(package, self.root / "lib" / package.name,
                            ignore=shutil.ignore_patterns("__pycache__"))
        for folder, dirs, files in os.walk(self.root):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(Path(folder) / name, 0o644)
        self.sandbox = Sandbox(mounts=[Mount(self.root, "/sim")], memory_bytes=MEMORY,
                               total_memory_bytes=TOTAL_MEMORY, processes=PROCESSES)
        self.process: subprocess.Popen | None = None
        self._replies: Lines | None = None
        self._printed: Lines | None = None
        self.printed, self._printed_bytes = b"", 0
        """what the design printed since :meth:`take_printed` (its first PRINTED_KEPT bytes), and how many bytes
        during the current request"""

    def start(self) -> list[tuple[str, int]]:
        """Starts the worker and loads the library: the design's signals (name, width)."""
        replies_read, replies_write = os.pipe()
        argv = self.sandbox.command([PYTHON, "-I", f"/sim/{WORKER.name}", f"/sim/{LIBRARY}", "/sim/bench.py"])
        try:
            self.process = spawn(argv, stdin=subprocess.PIPE, stdout=replies_write, stderr=subprocess.PIPE,
                                 start_new_session=True)
        finally:
            os.close(replies_write)
        self._replies = Lines(replies_read, MAX_REPLY)
        self._printed = Lines(self.process.stderr.fileno(), MAX_PRINTED)
        self._printed_open = True
        try:
            self._reply(START_TIMEOUT)
        except SimulationError as error:
            self.close()
            raise EngineError(f"the pyverilator worker did not start: {error}") from None
        ready = self._reply(START_TIMEOUT)
        signals = ready.get("signals")
        if not ready.get("ready") or not isinstance(signals, list):
            raise self._lost("the design's library did not load")
        try:
            return [(str(name), int(width)) for name, width in signals]
        except (TypeError, ValueError):
            raise self._lost("the worker listed its signals in a form that is not [[name, width], ...]") from None

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The worker's reply to ``message``; SimulationError (and the session ends) when it does not give one
        within ``timeout`` seconds, dies, or floods."""
        if self.process is None:
            raise SimulationError("the simulation session has ended")
        self._printed_bytes = 0
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise self._lost("the simulation process had ended") from None
        return self._reply(timeout)

    def _reply(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (line := self._replies.next()) is None:
            if self._replies.overflowing:
                raise self._lost(f"the simulation process wrote a reply over {MAX_REPLY} bytes")
            ready = wait_readable([self._replies] + ([self._printed] if self._printed_open else []), deadline)
            if not ready:
                raise self._lost(f"the simulation did not answer within {timeout:g} s (a loop that never "
                                 "settles, inside one time step?)")
            for stream in ready:
                if stream.read():
                    if stream is self._printed:
                        self._keep_printed()
                elif stream is self._replies:
                    raise self._lost("the simulation process ended")
                else:
                    self._printed_open = False
        while self._printed_open and wait_readable([self._printed], time.monotonic()):
            if not self._printed.read():  # what the worker printed before it replied is in the pipe already
                self._printed_open = False
            self._keep_printed()
        try:
            reply = untrusted_json(line)
        except ValueError as error:
            raise self._lost(f"the simulation process wrote a reply that is not plain JSON: {error}") from None
        if (problem := reply_problem(reply)) is not None:
            raise self._lost(f"the simulation process wrote a reply that breaks the protocol: {problem}")
        return reply

    def _keep_printed(self) -> None:
        """Moves what the design printed out of the pipe's buffer: its first bytes are kept, the rest counted."""
        chunk = self._printed.buffer
        self.printed += bytes(chunk[: max(0, PRINTED_KEPT - len(self.printed))])
        self._printed_bytes += len(chunk)
        chunk.clear()
        if self._printed_bytes > MAX_PRINTED:
            raise self._lost(f"the design printed more than {MAX_PRINTED >> 20} MiB during one request")

    def take_printed(self) -> str:
        """What the design printed since the last call (at most PRINTED_KEPT bytes), as text."""
        printed, self.printed = self.printed, b""
        return printed.decode("utf-8", errors="replace")

    def _lost(self, why: str) -> SimulationError:
        """Ends the session; the error to raise, with the end of what the worker printed."""
        exit_code = self.process.poll() if self.process else None
        self.stop()
        printed = self.printed.decode("utf-8", errors="replace").strip()[:1500]
        code = f" (exit status {exit_code})" if exit_code is not None else ""
        return SimulationError(f"{why}{code}" + (f"; it printed first:\n{printed}" if printed else ""))

    def stop(self) -> None:
        """Kills the sandbox's whole process group."""
        if self.process is None:
            return
        kill_group(self.process, (self.process.stdin, self.process.stderr), (self._replies.fd,))
        self.process = self._replies = self._printed = None
        self.sandbox.wait_for_exit()

    def close(self) -> None:
        self.stop()
        self.sandbox.release()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
