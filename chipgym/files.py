"""Reading a file that chipgym does not trust (a published folder's, a saved record): a regular file of at most a
given size, read with no resource kept past the read.

>>> import tempfile
>>> with tempfile.NamedTemporaryFile() as file:
...     _ = file.write(b"abc"); file.flush()
...     read_regular_file(file.name, limit=8)
b'abc'
>>> read_regular_file("/dev/null", limit=8)
Traceback (most recent call last):
...
chipgym.files.FileRefused: not a regular file
"""
from __future__ import annotations

import os
import stat

from chipgym.errors import DataError


class FileRefused(DataError):
    """The file is not one chipgym reads: the message says why, without the path (the caller names it)."""


def read_regular_file(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes. Anything else (a FIFO, a device, a folder, a
    bigger or sparse file, one that grows while read, one that cannot be opened) is refused without reading it.

    The buffer read into is the file's size, never ``limit``: a read into a ``limit``-sized buffer that
    glibc serves by mmap and then shrinks keeps one memory mapping per file for the bytes' life, and a folder
    of tens of thousands of files then used up the kernel's ``vm.max_map_count`` (issue 41).
    """
    try:
        _check(os.stat(path), limit)
        # O_NONBLOCK: a FIFO swapped in after the stat does not block the open (fstat then refuses it)
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as file:
            size = _check(os.fstat(file.fileno()), limit)
            data = file.read(size + 1)
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror or exc})") from exc
    if len(data) > size:
        raise FileRefused(f"grew while it was read (past its {size} bytes)")
    return data


def _check(info: os.stat_result, limit: int) -> int:
    """The size of a regular file of at most ``limit`` bytes; FileRefused for anything else."""
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused("not a regular file")
    if info.st_size > limit:
        raise FileRefused(f"{info.st_size} bytes, over the limit of {limit} bytes")
    return info.st_size
