"""One sandboxed run of a command-line tool: Yosys, Verilator, OpenSTA, qflow, compiled simulators.

Untrusted designs are only ever elaborated, built, synthesized and run through :func:`run_tool`, which runs
every tool in the sandbox of :mod:`chipgym.engines.sandbox`: no network, ``/usr`` read-only, a private
``/tmp``, and only the folders a call names, at their own paths (``readable`` read-only, ``writable``
read-write). Each run has limits per process (address space, processes of its uid) and, in a control group of
its own where the machine allows (``chipgym doctor``), for the sandbox as a whole (memory, processes); each
engine passes its tool's (``docs/sandbox.md`` tables them).

>>> run_tool(["echo", "hi"]).stdout
'hi\\n'
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Iterable, Iterator

from chipgym.engines.process import kernel_resources
from chipgym.engines.sandbox import Mount, Sandbox
from chipgym.errors import ToolInterrupted

TOOL_MEMORY = 8 << 30  # bytes of address space per process: a C++ compile of a Verilated CPU needs a few GB
TOOL_TOTAL_MEMORY = 4 << 30  # bytes of memory of a tool's whole sandbox (a fixture's largest build: 0.7 GiB)
TOOL_PROCESSES = 64  # processes and threads of a tool's sandbox
MAX_OUTPUT = 16 << 20  # bytes of stdout and of stderr kept; a tool that writes more is stopped


_interrupted = threading.Event()
_cancelled: ContextVar[threading.Event | None] = ContextVar("chipgym_tools_cancelled", default=None)


def interrupt_all() -> None:
    """Stops every running and later tool run of this process, so that each removes its staged copies of
    the design (e.g. on SIGTERM, from the main thread's signal handler)."""
    _interrupted.set()


def exit_cleanly_on_sigterm() -> None:
    """Opt in, from the main thread: SIGTERM then stops running tools and exits like Ctrl-C, so that KLayout
    pools close and every temporary folder is removed. The ``chipgym`` command does; a library never does
    it on its own, since the handler is the program's."""
    signal.signal(signal.SIGTERM, _terminate)


def _terminate(signum: int, frame) -> None:
    interrupt_all()
    raise SystemExit(128 + signum)


@contextmanager
def cancelled_by(event: threading.Event) -> Iterator[None]:
    """Tool runs started in this context (in this thread) stop with ToolInterrupted once ``event`` is set: work
    whose result is no longer needed (a score's synthesis, once its check failed) does not run to its end."""
    token = _cancelled.set(event)
    try:
        yield
    finally:
        _cancelled.reset(token)


def _stopped() -> str | None:
    """Why tool runs of this context must stop now, if they must."""
    if _interrupted.is_set():
        return "this process is shutting down"
    cancel = _cancelled.get()
    return "its result is no longer needed" if cancel is not None and cancel.is_set() else None


@dataclass(frozen=True)
class ToolResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    peak_bytes: int | None = None
    """the most memory the sandbox held at once, where its control group tells"""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def tail(self, lines: int = 30) -> str:
        """Last lines of stderr and stdout, for error messages."""
        text = (self.stderr + "\n" + self.stdout).strip().splitlines()
        return "\n".join(text[-lines:])


def run_tool(
    argv: list[str],
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 600,
    readable: Iterable[Path] = (),
    writable: Iterable[Path] = (),
    memory: int = TOOL_MEMORY,
    total_memory: int = TOOL_TOTAL_MEMORY,
    processes: int = TOOL_PROCESSES,
) -> ToolResult:
    """Run ``argv`` in the sandbox and capture its output; ``cwd`` must be one of the named folders; ``memory``
    caps each process's address space (bytes), ``total_memory`` the memory of the whole sandbox, ``processes``
    its processes and threads.

    Readable folders are copied for the call (so that the sandbox's own uid can read them wherever they
    are); writable ones are given to that uid. Output is decoded leniently (a stray byte becomes U+FFFD);
    a tool that writes more than MAX_OUTPUT bytes to either stream is stopped and fails.
    """
    with tempfile.TemporaryDirectory(prefix="chipgym-tool-") as stage:
        os.chmod(stage, 0o755)
        sandbox = Sandbox(memory_bytes=memory, processes=processes, total_memory_bytes=total_memory)
        for index, folder in enumerate(Path(p).resolve() for p in readable):
            copy = Path(stage) / str(index)
            shutil.copytree(folder, copy, symlinks=True)
            _open_to_all(copy)
            sandbox.mounts.append(Mount(copy, str(folder)))
        for folder in (Path(p).resolve() for p in writable):
            if os.geteuid() == 0:
                os.chown(folder, sandbox.uid, sandbox.uid)
            sandbox.mounts.append(Mount(folder, str(folder), writable=True))
        try:
            command = sandbox.command(argv, cwd=str(Path(cwd).resolve()) if cwd else "/tmp")
            result = _run(command, stdin.encode() if stdin is not None else None, timeout, tuple(argv))
            peak = sandbox.cgroup.memory_peak() if sandbox.cgroup else None
        finally:
            sandbox.release()
        return replace(result, peak_bytes=peak)


def _run(command: list[str], stdin: bytes | None, timeout: float, argv: tuple[str, ...]) -> ToolResult:
    """Runs ``command``, keeping at most MAX_OUTPUT bytes of each output stream; kills it on timeout, on
    more output than that, and when the caller is interrupted or cancelled (so that its staged files can be
    removed)."""
    if (why := _stopped()) is not None:
        raise ToolInterrupted(f"{argv[0]}: not started, {why}")
    start = time.monotonic()
    stop = threading.Event()
    out, err = bytearray(), bytearray()
    with kernel_resources(f"running {argv[0]}"):
        p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    threads: list[threading.Thread] = []
    try:
        threads += [threading.Thread(target=_feed, args=(p.stdin, stdin or b"")),
                    threading.Thread(target=_drain, args=(p.stdout, out, stop)),
                    threading.Thread(target=_drain, args=(p.stderr, err, stop)),
                    threading.Thread(target=lambda: (p.wait(), stop.set()))]
        with kernel_resources(f"running {argv[0]}"):
            for thread in threads:
                thread.start()
        while not stop.wait(min(1.0, max(0.0, start + timeout - time.monotonic()))):
            if (why := _stopped()) is not None:
                raise ToolInterrupted(f"{argv[0]}: stopped, {why}")
            if time.monotonic() >= start + timeout:
                break
        finished = stop.is_set()
    finally:
        if p.poll() is None:
            p.kill()
        for thread in threads:
            if thread.ident is not None:  # a SIGTERM handler's exit can come between two starts
                thread.join()
    seconds = time.monotonic() - start
    stdout, stderr = (bytes(b).decode("utf-8", errors="replace") for b in (out, err))
    if not finished:
        return ToolResult(argv, -9, stdout, f"timed out after {timeout} s", seconds, True)
    if len(out) > MAX_OUTPUT or len(err) > MAX_OUTPUT:
        return ToolResult(argv, -9, stdout, stderr + f"\nstopped: more than {MAX_OUTPUT} bytes of output", seconds)
    return ToolResult(argv, p.returncode, stdout, stderr, seconds)


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except (BrokenPipeError, ValueError):  # the tool exited (or was killed) before reading all of it
        pass


def _drain(stream: IO[bytes], kept: bytearray, stop: threading.Event) -> None:
    """Reads ``stream`` to its end into ``kept``; past MAX_OUTPUT bytes keeps one more and sets ``stop``."""
    while chunk := stream.read1(1 << 16):
        if len(kept) <= MAX_OUTPUT:
            kept += chunk[: MAX_OUTPUT + 1 - len(kept)]
        if len(kept) > MAX_OUTPUT:
            stop.set()


def _open_to_all(folder: Path) -> None:
    """Folders 0755 and files 0644 (0755 where executable)."""
    for root, dirs, files in os.walk(folder):
        os.chmod(root, 0o755)
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                path.chmod(0o755 if path.stat().st_mode & 0o100 else 0o644)
