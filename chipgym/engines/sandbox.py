"""A sandbox for agent code: bubblewrap with no network, a private filesystem and resource limits.

The sandboxed program sees only ``/usr`` (read-only), a private ``/tmp`` of bounded size, a private
``/proc`` and a read-only ``/dev``, and the folders it is given; the rest of its root is read-only, so
``/tmp`` and the writable folders it is given are the only places it can write. As root it runs under a
uid of its own, so that its process limit is not shared with anything else on the host; it dies with the
thread that started it. With ``total_memory_bytes`` its processes also share one control group that caps
their memory and number together (:mod:`chipgym.engines.cgroup`), where the machine allows it.

>>> from chipgym.engines.sandbox import Sandbox
>>> argv = Sandbox().command(["/bin/sh", "-c", "cat /etc/passwd"])
>>> argv[0]
'prlimit'
"""

from __future__ import annotations

import itertools
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from chipgym.engines.cgroup import Cgroup
from chipgym.errors import ToolMissingError

_uids = itertools.count()


def fresh_uid() -> int:
    """A host uid that no other live sandbox uses: derived from this process's pid and a counter."""
    return 1_000_000 + (os.getpid() % 4_000_000) * 256 + next(_uids) % 256


@dataclass(frozen=True)
class Mount:
    """A host folder shown inside the sandbox at ``target``."""

    source: Path
    target: str
    writable: bool = False


@dataclass
class Sandbox:
    """Limits and mounts of one sandboxed program.

    ``memory_bytes`` caps each process's address space, ``processes`` caps the processes and threads
    of the sandbox's uid, ``tmp_bytes`` is the size of its private ``/tmp``; ``total_memory_bytes``
    caps the memory of all its processes together. ``pid1`` runs ``argv`` as the init of the sandbox's
    pid namespace (which its own children cannot signal unless it handles the signal).
    """

    mounts: list[Mount] = field(default_factory=list)
    memory_bytes: int = 1536 << 20
    processes: int = 128
    tmp_bytes: int = 256 << 20
    total_memory_bytes: int | None = None
    pid1: bool = False
    uid: int = field(default_factory=fresh_uid)
    cgroup: Cgroup | None = field(default=None, init=False)

    def command(self, argv: list[str], cwd: str = "/tmp") -> list[str]:
        """The command line that runs ``argv`` inside this sandbox (its control group is made on the first call)."""
        for tool in ("bwrap", "prlimit", "setpriv"):
            if shutil.which(tool) is None:
                raise ToolMissingError(tool, "apt-get install -y bubblewrap util-linux")
        limits = ["prlimit", f"--as={self.memory_bytes}", "--core=0"]
        identity: list[str] = []
        if os.geteuid() == 0:
            limits.append(f"--nproc={self.processes}")
            identity = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                        "--pdeathsig", "keep"]
        bwrap = [
            "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
            "--size", str(self.tmp_bytes), "--tmpfs", "/tmp",
        ]
        if self.pid1:
            bwrap.append("--as-pid-1")
        for mount in self.mounts:
            bwrap += ["--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target]
        bwrap += ["--remount-ro", "/", "--chdir", cwd, "--clearenv",
                  "--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin"]
        command = limits + ["--"] + identity + bwrap + argv
        if self.total_memory_bytes is not None and self.cgroup is None:
            self.cgroup = Cgroup.create(self.total_memory_bytes, self.processes)
        return self.cgroup.enter_command(command) if self.cgroup else command

    def wait_for_exit(self, timeout: float = 5.0) -> bool:
        """Waits until no process of this sandbox's uid is left on the host (as root only)."""
        if os.geteuid() != 0:
            return True
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not processes_of(self.uid):
                return True
            time.sleep(0.01)
        return False

    def release(self) -> None:
        """Removes the sandbox's control group (after its processes are gone)."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None


def processes_of(uid: int) -> list[int]:
    """The pids of the host's live processes whose real uid is ``uid``. A zombie is left out: it runs nothing
    and holds nothing, and its reaping is up to a parent outside the sandbox (which can take seconds)."""
    return [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _live_process_uid(pid) == uid]


def _live_process_uid(pid: str) -> int | None:
    """The real uid of a process that is not a zombie, else None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("State:") and line.split()[1] == "Z":
                    return None
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None
