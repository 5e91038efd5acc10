"""One sandboxed run of a command-line tool: Yosys, Verilator, OpenSTA, qflow, compiled simulators.

Untrusted designs are only ever elaborated, built, synthesized and run through :func:`run_tool`, which runs
every tool in the sandbox of :mod:`chipgym.engines.sandbox`: no network, ``/usr`` read-only, a private ``/tmp``, and only the folders a
call names, at their own paths (``readable`` read-only, ``writable`` read-write).

>>> run_tool(["echo", "hi"]).stdout
'hi\\n'
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from chipgym.engines.sandbox import Mount, Sandbox

TOOL_MEMORY = 8 << 30  # bytes of address space per process: a C++ compile of a Verilated CPU needs a few GB
TOOL_PROCESSES = 256


@dataclass(frozen=True)
class ToolResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

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
) -> ToolResult:
    """Run ``argv`` in the sandbox and capture its output; ``cwd`` must be one of the named folders.

    Readable folders are copied for the call (so that the sandbox's own uid can read them wherever they
    are); writable ones are given to that uid.
    """
    with tempfile.TemporaryDirectory(prefix="chipgym-tool-") as stage:
        os.chmod(stage, 0o755)
        sandbox = Sandbox(memory_bytes=TOOL_MEMORY, processes=TOOL_PROCESSES)
        for index, folder in enumerate(Path(p).resolve() for p in readable):
            copy = Path(stage) / str(index)
            shutil.copytree(folder, copy, symlinks=True)
            _open_to_all(copy)
            sandbox.mounts.append(Mount(copy, str(folder)))
        for folder in (Path(p).resolve() for p in writable):
            if os.geteuid() == 0:
                os.chown(folder, sandbox.uid, sandbox.uid)
            sandbox.mounts.append(Mount(folder, str(folder), writable=True))
        command = sandbox.command(argv, cwd=str(Path(cwd).resolve()) if cwd else "/tmp")
        start = time.monotonic()
        try:
            p = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
            return ToolResult(tuple(argv), -9, out, f"timed out after {timeout} s", time.monotonic() - start, True)
        return ToolResult(tuple(argv), p.returncode, p.stdout, p.stderr, time.monotonic() - start)


def _open_to_all(folder: Path) -> None:
    """Folders 0755 and files 0644 (0755 where executable)."""
    for root, dirs, files in os.walk(folder):
        os.chmod(root, 0o755)
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                path.chmod(0o755 if path.stat().st_mode & 0o100 else 0o644)
