"""A process out of a kernel resource (issue 41): starting a sandboxed worker or tool then raises an
InfrastructureError that names the resource, this process's use of it and what to raise, never Python's bare
``RuntimeError: can't start new thread``. The process's address space is capped (as the kernel's
vm.max_map_count capped drc-v1's loader) so that no thread stack can be mapped."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

STARVED = textwrap.dedent("""
    import resource, sys
    from chipgym.errors import InfrastructureError
    from chipgym.engines.process import spawn
    from chipgym.engines.tools import run_tool
    with open("/proc/self/status") as status:
        used = next(int(line.split()[1]) for line in status if line.startswith("VmSize")) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (used + (4 << 20), resource.RLIM_INFINITY))
    starts = {{"spawn": lambda: spawn(["true"]), "run_tool": lambda: run_tool(["true"])}}
    try:
        starts[{start!r}]()
    except InfrastructureError as error:
        print(error)
        sys.exit(0)
    sys.exit(3)
""")


@pytest.mark.parametrize("start", ["spawn", "run_tool"])
def test_a_process_out_of_memory_mappings_is_told_which_resource_and_what_to_raise(start):
    done = subprocess.run([sys.executable, "-c", STARVED.format(start=start)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    message = done.stdout
    assert "refused a new thread" in message or "refused a resource" in message, message
    assert "memory mappings of vm.max_map_count" in message and "ulimit" in message, message
