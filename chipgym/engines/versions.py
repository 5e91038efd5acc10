"""The external tools chipgym runs, what each is for, and their versions.

One table serves ``chipgym doctor``, the cache keys that name a tool's version (KLayout's for DRC results) and
the tool versions a chip score records.

>>> TOOLS["opensta"].command
'sta'
>>> tool_version("no-such-tool") is None
True
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass

from chipgym.errors import ToolMissingError


@dataclass(frozen=True)
class Tool:
    """An external tool: ``command`` run with ``version_args`` prints its version."""

    name: str  # what records and messages call it
    command: str
    version_args: tuple[str, ...]
    needed_for: str  # what chipgym doctor says it is for
    install: str  # how to install it
    required: bool = True  # False: only an optional feature needs it


TOOLS = {tool.name: tool for tool in (
    Tool("klayout", "klayout", ("-b", "-v"), "running DRC decks", "apt-get install -y klayout"),
    Tool("bwrap", "bwrap", ("--version",), "the sandbox", "apt-get install -y bubblewrap"),
    Tool("prlimit", "prlimit", ("--version",), "the sandbox's resource limits", "apt-get install -y util-linux"),
    Tool("setpriv", "setpriv", ("--version",), "the sandbox's own uid", "apt-get install -y util-linux"),
    Tool("yosys", "yosys", ("-V",), "elaborating and checking RTL", "apt-get install -y yosys"),
    Tool("yosys-abc", "yosys-abc", ("-q", "version"), "the formal gate (ABC's bmc3)", "apt-get install -y yosys"),
    Tool("verilator", "verilator", ("--version",), "simulating RTL", "apt-get install -y verilator"),
    Tool("g++", "g++", ("--version",), "building Verilator simulators", "apt-get install -y g++ make"),
    Tool("opensta", "sta", ("-version",), "timing chip designs (OpenSTA)", "apt-get install -y opensta"),
    Tool("qflow", "qflow", ("-v",), "the optional physical tier of chip scoring", "apt-get install -y qflow",
         required=False),
)}


@functools.cache
def tool_version(name: str) -> str | None:
    """The first line the tool prints about its version (cached per process), or None when it is not
    installed or does not answer."""
    tool = TOOLS.get(name)
    if tool is None or shutil.which(tool.command) is None:
        return None
    try:
        run = subprocess.run([tool.command, *tool.version_args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return next(iter((run.stdout.strip() or run.stderr.strip()).splitlines()), "")


def require_tool(name: str) -> str:
    """The tool's version, or ToolMissingError with how to install it."""
    version = tool_version(name)
    if version is None:
        raise ToolMissingError(TOOLS[name].command, TOOLS[name].install)
    return version
