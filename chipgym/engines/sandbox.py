"""A sandbox for agent code: bubblewrap with no network, a private filesystem and resource limits.

The sandboxed program sees only ``/usr`` (read-only), a private ``/tmp`` of bounded size, a private
``/proc`` and a read-only ``/dev``, and the folders it is given; the rest of its root is read-only, so
``/tmp`` and the writable folders it is given are the only places it can write. As root it runs under a
uid of its own, so that its process limit is not shared with anything else on the host; it dies with the
thread that started it. With ``total_memory_bytes`` its processes also share one control group that caps
their memory and number together (:mod:`chipgym.engines.cgroup`), where the machine allows it.

The whole chain (the control group's shell, ``prlimit``, ``setpriv``, ``bwrap``) starts from an empty
environment but :data:`PATH`: bubblewrap's own process is the pid 1 of the sandbox (unless ``pid1``), and its
environment, which the grader's would otherwise be (a grading seed included), is readable there at
``/proc/1/environ``.

>>> from chipgym.engines.sandbox import Sandbox
>>> argv = Sandbox().command(["/bin/sh", "-c", "cat /etc/passwd"])
>>> argv[:3]
['/usr/bin/env', '-i', 'PATH=/usr/bin:/bin']
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from chipgym.engines.cgroup import Cgroup
from chipgym.errors import ToolMissingError

_uids = itertools.count()
PATH = "/usr/bin:/bin"
CLEAN_ENVIRONMENT = ["/usr/bin/env", "-i", f"PATH={PATH}"]
"""what every sandbox's command starts with: no variable of the grader's reaches any process of the sandbox"""


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
        for tool in (CLEAN_ENVIRONMENT[0], "bwrap", "prlimit", "setpriv"):
            if shutil.which(tool, path=PATH) is None:
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
                  "--setenv", "HOME", "/tmp", "--setenv", "PATH", PATH]
        command = limits + ["--"] + identity + bwrap + argv
        if self.total_memory_bytes is not None and self.cgroup is None:
            self.cgroup = Cgroup.create(self.total_memory_bytes, self.processes)
        return CLEAN_ENVIRONMENT + (self.cgroup.enter_command(command) if self.cgroup else command)

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


# -- private folders, and reaping those of processes that died without cleaning up ----------------------------
_STAMP = re.compile(r"(\d+)-(\d+)-(\d+)-")  # pid namespace, pid, start time of the folder's owner


def private_folder(prefix: str) -> Path:
    """A new temporary folder ``{prefix}{pidns}-{pid}-{start}-{random}``, named after this process (its pid
    namespace, pid and start time), so that :func:`reap_orphaned_folders` can tell when its owner is gone;
    the name is given at creation (``mkdtemp``), so no folder is ever seen without its owner. Where /proc does
    not tell, the folder is named ``{prefix}{random}`` and never reaped."""
    stamp = _owner_stamp(os.getpid())
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{stamp}-" if stamp else prefix))


def reap_orphaned_folders(prefix: str) -> list[Path]:
    """Removes the temporary folders :func:`private_folder` made with ``prefix`` for processes that are gone
    (killed, crashed, never closed); returns them. A folder is removed only when it is this user's, its name
    carries an owner of this pid namespace, and no live process has that pid and start time (a reused pid
    has another start time). A folder without an owner in its name is left alone."""
    reaped = []
    namespace = _pid_namespace()
    with os.scandir(tempfile.gettempdir()) as entries:
        for entry in entries:
            if not entry.name.startswith(prefix) or not (stamp := _STAMP.match(entry.name, len(prefix))):
                continue
            folder_namespace, pid, start = (int(part) for part in stamp.groups())
            if _is_own_folder(entry) and folder_namespace == namespace and _start_time(pid) != start:
                shutil.rmtree(entry.path, ignore_errors=True)
                reaped.append(Path(entry.path))
    return reaped


def _is_own_folder(entry: os.DirEntry) -> bool:
    """A real folder (not a link to one) of this user."""
    try:
        return entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.geteuid()
    except OSError:
        return False


def _owner_stamp(pid: int) -> str | None:
    """``{pidns}-{pid}-{start}`` of a live process, or None where /proc does not tell (its folder is then kept)."""
    namespace, start = _pid_namespace(), _start_time(pid)
    return f"{namespace}-{pid}-{start}" if namespace and start is not None else None


def _pid_namespace() -> int:
    """The inode of this process's pid namespace (pids name the same processes only within one), or 0."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot, field 22 of ``/proc/PID/stat``), or None when no
    live process has that pid (none, or a zombie: it has exited, and holds nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # after the command name, which may hold anything
    except (OSError, IndexError):
        return None
    return None if fields[0] in (b"Z", b"X") else int(fields[19])
