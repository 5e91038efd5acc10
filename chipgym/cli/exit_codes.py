"""What the ``chipgym`` command's exit status says, for every command: 0 when it did what was asked and the
result passed, 1 when the result is the agent's or the design's failure, 2 when the infrastructure could not give
a result (a missing tool, a dead worker, bad usage)."""
from __future__ import annotations

from chipgym.results import Status

PASSED = 0
FAILED = 1
INFRASTRUCTURE_FAILURE = 2
OF_STATUS = {Status.OK: PASSED, Status.FAILED: FAILED, Status.UNAVAILABLE: INFRASTRUCTURE_FAILURE}
