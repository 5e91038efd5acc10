"""Long-lived sandboxed processes: starting one so that it lives as long as the interpreter, reading its
pipes line by line with a limit, and reading what a sandboxed process answers as untrusted JSON.

>>> import os
>>> read, write = os.pipe()
>>> _ = os.write(write, b"hello\\nwor")
>>> lines = Lines(read, limit=1 << 10)
>>> lines.read(), lines.next(), lines.next()
(True, b'hello', None)
>>> os.close(read); os.close(write)
>>> untrusted_json('{"cycle": 1e999}')
Traceback (most recent call last):
...
ValueError: a number that is not an integer (1e999)
"""

from __future__ import annotations

import concurrent.futures
import errno
import json
import os
import resource
import select
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

from chipgym.errors import ChipgymError, InfrastructureError

INTEGER_BITS = 64
"""an integer in an untrusted answer is within +-2**64 (every count, cycle and word the grader reads is)"""

# A process started with --die-with-parent dies with the *thread* that started it, so every long-lived worker
# is started from one thread that lives as long as the interpreter. A forked child (AsyncVectorEnv, Ray) gets
# a fresh one: the parent's thread does not exist there.
_spawner: concurrent.futures.ThreadPoolExecutor | None = None


def spawn(argv: list[str], **popen) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen)``, started from the one spawning thread."""
    global _spawner
    with kernel_resources(f"starting {argv[0]}"):
        if _spawner is None:
            _spawner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="chipgym-spawn")
        return _spawner.submit(subprocess.Popen, argv, **popen).result()


# What the kernel says when a process is out of a resource: no memory for a mapping (a thread's stack), no more
# processes or threads, no more file descriptors
_EXHAUSTED = {errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE}


@contextmanager
def kernel_resources(doing: str) -> Iterator[None]:
    """Turns the kernel refusing this process a thread, a process, a mapping or a descriptor while ``doing``
    into an :class:`InfrastructureError` that names the resource, this process's use of each and the limit to
    raise (Python says only ``can't start new thread``)."""
    try:
        yield
    except ChipgymError:
        raise
    except RuntimeError as exc:
        if "can't start new thread" not in str(exc):
            raise
        raise InfrastructureError(f"{doing}: the kernel refused a new thread ({exc}); {resource_use()}") from exc
    except OSError as exc:
        if exc.errno not in _EXHAUSTED:
            raise
        raise InfrastructureError(f"{doing}: the kernel refused a resource ({exc}); {resource_use()}") from exc


def resource_use() -> str:
    """This process's memory mappings, threads and descriptors beside their limits, and how to raise each."""
    maps = _count_lines("/proc/self/maps")
    threads = len(os.listdir("/proc/self/task"))
    descriptors = len(os.listdir("/proc/self/fd"))
    return (f"this process holds {maps} memory mappings of vm.max_map_count {_read_int('/proc/sys/vm/max_map_count')}, "
            f"{threads} threads (ulimit -u {_rlimit(resource.RLIMIT_NPROC)}) and {descriptors} file descriptors "
            f"(ulimit -n {_rlimit(resource.RLIMIT_NOFILE)}), in an address space capped at "
            f"{_rlimit(resource.RLIMIT_AS)} bytes (ulimit -v); raise the limit that is reached "
            "(e.g. sysctl -w vm.max_map_count=262144) or run fewer workers")


def _rlimit(which: int) -> str:
    soft = resource.getrlimit(which)[0]
    return "unlimited" if soft == resource.RLIM_INFINITY else str(soft)


def _count_lines(path: str) -> int | str:
    try:
        with open(path, "rb") as file:
            return sum(1 for _ in file)
    except OSError:
        return "?"


def _read_int(path: str) -> int | str:
    try:
        return int(Path(path).read_text())
    except (OSError, ValueError):
        return "?"


def _forget_spawner_after_fork() -> None:
    global _spawner
    _spawner = None


os.register_at_fork(after_in_child=_forget_spawner_after_fork)


class Lines:
    """Lines from a pipe, read in linear time, with a limit on the length of one line."""

    def __init__(self, fd: int, limit: int):
        self.fd, self.limit = fd, limit
        self.buffer = bytearray()
        self.scanned = 0

    def next(self) -> bytes | None:
        """The next complete line, if one has arrived."""
        end = self.buffer.find(b"\n", self.scanned)
        if end < 0:
            self.scanned = len(self.buffer)
            return None
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        return line

    @property
    def overflowing(self) -> bool:
        return len(self.buffer) > self.limit

    def read(self) -> bool:
        """Reads what is there (at least one byte, blocking); False at end of file."""
        chunk = os.read(self.fd, 1 << 20)
        self.buffer += chunk
        return bool(chunk)

    def drain(self) -> None:
        """Discards everything buffered or waiting in the pipe."""
        while select.select([self.fd], [], [], 0)[0] and os.read(self.fd, 1 << 20):
            pass
        self.buffer.clear()
        self.scanned = 0


def wait_readable(streams: list[Lines], deadline: float) -> list[Lines]:
    """The streams with data to read, waiting until ``deadline`` (``time.monotonic()``) at most."""
    ready = select.select([s.fd for s in streams], [], [], max(0.0, deadline - time.monotonic()))[0]
    return [s for s in streams if s.fd in ready]


def kill_group(process: subprocess.Popen, streams: tuple[IO[bytes] | None, ...], fds: tuple[int, ...] = ()) -> None:
    """Kills the process group of ``process`` (started with ``start_new_session``), reaps it, and closes its
    ``streams`` and the pipe ends ``fds`` this side holds."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    for stream in streams:
        try:
            if stream is not None:
                stream.close()
        except BrokenPipeError:  # it still held a message the dead worker never read; closed anyway
            pass
    for fd in fds:
        os.close(fd)


def untrusted_json(text: str | bytes) -> Any:
    """The JSON value in ``text``, written by a process the grader does not trust: its numbers are integers
    within +-2**64 (``1e999`` would be infinity, ``NaN`` no number), its text valid UTF-8 and its nesting
    within the parser's depth; anything else is a ValueError that says what was wrong."""
    try:
        return json.loads(text, parse_float=_not_integer, parse_constant=_not_integer, parse_int=_integer)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg} at character {error.pos})") from None
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None


def _integer(digits: str) -> int:
    if len(digits) > 21 or abs(value := int(digits)) >= 1 << INTEGER_BITS:
        raise ValueError(f"an integer over {INTEGER_BITS} bits ({digits[:24]}...)")
    return value


def _not_integer(text: str):
    raise ValueError(f"a number that is not an integer ({text[:24]})")
