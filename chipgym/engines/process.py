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
import json
import os
import select
import signal
import subprocess
import time
from typing import IO, Any

INTEGER_BITS = 64
"""an integer in an untrusted answer is within +-2**64 (every count, cycle and word the grader reads is)"""

# A process started with --die-with-parent dies with the *thread* that started it, so every long-lived worker
# is started from one thread that lives as long as the interpreter. A forked child (AsyncVectorEnv, Ray) gets
# a fresh one: the parent's thread does not exist there.
_spawner: concurrent.futures.ThreadPoolExecutor | None = None


def spawn(argv: list[str], **popen) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen)``, started from the one spawning thread."""
    global _spawner
    if _spawner is None:
        _spawner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="chipgym-spawn")
    return _spawner.submit(subprocess.Popen, argv, **popen).result()


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
