"""Memory and process limits for a sandbox as a whole: a control group of its own.

Per-process limits (``prlimit``) do not add up: four forks of 600 MiB each hold 2.4 GiB. A control group
caps the sum of everything the sandbox runs. It needs a writable cgroup hierarchy (v2 with the memory and
pids controllers delegated, or v1's ``memory`` and ``pids``), as root usually has; where there is none,
:func:`available` says why and sandboxes keep their per-process limits only.

>>> group = Cgroup.create(memory_bytes=2 << 30, processes=128)     # doctest: +SKIP
>>> group.enter_command(["klayout", "-b"])[:2]                     # doctest: +SKIP
['/bin/sh', '-c']
>>> group.remove()                                                 # doctest: +SKIP
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_names = itertools.count()


@dataclass(frozen=True)
class Cgroup:
    """One control group per controller hierarchy (v1), or one group (v2), for one sandbox."""

    folders: tuple[Path, ...]

    @classmethod
    def create(cls, memory_bytes: int, processes: int) -> Cgroup | None:
        """A new group with these limits, or None where the machine gives no writable hierarchy."""
        layout = _layout()
        if isinstance(layout, str):
            return None
        name = f"chipgym-{os.getpid()}-{next(_names)}"
        limits = {"memory": {"memory.limit_in_bytes": memory_bytes}, "pids": {"pids.max": processes},
                  "v2": {"memory.max": memory_bytes, "pids.max": processes}}
        folders = tuple(parent / name for parent in layout.values())
        try:
            for controller, folder in zip(layout, folders):
                folder.mkdir()
                for limit, value in limits[controller].items():
                    (folder / limit).write_text(str(value))
        except OSError:
            Cgroup(folders).remove(timeout=0)
            return None
        return cls(folders)

    def enter_command(self, argv: list[str]) -> list[str]:
        """``argv`` started inside this group (every process it forks stays in it)."""
        joins = " && ".join(f'echo $$ > "{folder}/cgroup.procs"' for folder in self.folders)
        return ["/bin/sh", "-c", f'{joins} && exec "$@"', "chipgym-sandbox", *argv]

    def memory_peak(self) -> int | None:
        """The most memory the group has held, in bytes, where the kernel reports it."""
        for folder in self.folders:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                if (folder / name).exists():
                    return int((folder / name).read_text())
        return None

    def remove(self, timeout: float = 5.0) -> None:
        """Removes the group once its processes are gone."""
        deadline = time.monotonic() + timeout
        for folder in self.folders:
            while folder.exists():
                try:
                    folder.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


def available() -> str | None:
    """None when sandboxes get a control group of their own, else the reason they do not."""
    layout = _layout()
    return layout if isinstance(layout, str) else None


@functools.cache
def _layout() -> dict[str, Path] | str:
    """Controller -> the writable folder under which this process may make groups, or why there is none."""
    try:
        own = dict(line.strip().split(":", 2)[1:] for line in Path("/proc/self/cgroup").read_text().splitlines())
    except (OSError, ValueError):
        return "no /proc/self/cgroup"
    v1 = {c: ROOT / c / own[c].lstrip("/") for c in ("memory", "pids") if c in own and (ROOT / c).is_dir()}
    if len(v1) == 2:
        return (v1 if all(_writable(folder) for folder in v1.values())
                else "the cgroup v1 memory and pids folders are not writable")
    unified = ROOT / own.get("", "/").lstrip("/")
    controllers = unified / "cgroup.subtree_control"
    if controllers.exists() and {"memory", "pids"} <= set(controllers.read_text().split()) and _writable(unified):
        return {"v2": unified}
    return "no writable cgroup hierarchy with the memory and pids controllers"


def _writable(folder: Path) -> bool:
    probe = folder / f"chipgym-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False
