"""Ray for the baselines' parallel runs (``chipgym eval``, ``chipgym select``): joining or starting a Ray, and
actor classes that see this process's ``CHIPGYM_*`` settings (the cache, the grading seed) on every node.

>>> sorted(settings.of_chipgym({"CHIPGYM_CACHE": "/c", "HOME": "/h"}))
['CHIPGYM_CACHE']
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import tempfile
import threading
from collections import deque
from typing import Any, Callable, Iterator, Sequence

from chipgym import settings
from chipgym.errors import InfrastructureError


@contextlib.contextmanager
def ray_session(workers: int, address: str | None = None, command: str = "chipgym") -> Iterator[Any]:
    """The ``ray`` module, connected: to ``address``, else a new local Ray of ``workers`` CPUs started here (and
    shut down at the end, its session folder removed), never a cluster that ``ray start`` or ``$RAY_ADDRESS`` left
    on this machine; an already initialized Ray is used as it is. ``ray.init``
    replaces the program's SIGTERM handler with its own (which exits through Ray's abort path); the program's is
    put back."""
    try:
        import ray
    except ImportError:
        raise InfrastructureError(f"{command} runs on Ray, which is not installed: pip install -e '.[rllib]' "
                                  "(bash run.sh setup does)") from None
    if workers < 1:
        raise ValueError(f"--workers: expected at least 1, got {workers}")
    started = not ray.is_initialized()
    # a Ray started here keeps its session (logs, sockets, spilled objects) in a folder of its own, removed at
    # the end: Ray's default, $TMPDIR/ray, keeps every session's
    session = tempfile.mkdtemp(prefix="chipgym-ray-") if started and not address else None
    try:
        if started:
            main = threading.current_thread() is threading.main_thread()
            handler = signal.getsignal(signal.SIGTERM) if main else None
            ray.init(address=address or "local", num_cpus=None if address else workers, include_dashboard=False,
                     logging_level="warning", log_to_driver=False, **({"_temp_dir": session} if session else {}))
            if main and handler is not None:
                signal.signal(signal.SIGTERM, handler)
        try:
            yield ray
        finally:
            if started:
                ray.shutdown()
    finally:
        if session:
            shutil.rmtree(session, ignore_errors=True)


def actor_class(ray: Any, cls: type) -> Any:
    """``cls`` as a Ray actor of one CPU, never restarted (a lost actor is the caller's to replace)."""
    return ray.remote(num_cpus=1, max_restarts=0)(cls).options(runtime_env={"env_vars": settings.of_chipgym()})


def map_unordered(ray: Any, new_actor: Callable[[], Any], units: Sequence[Any], call: Callable[[Any, Any], Any],
                  workers: int, on_result: Callable[[Any, Any], None],
                  on_lost: Callable[[Any, Exception], Any]) -> None:
    """Runs ``call(actor, unit)`` (a Ray object ref) for every unit on up to ``workers`` actors, the next unit to
    whichever actor finishes first, and hands each result to ``on_result(unit, result)``; an actor lost on a unit
    (its node went away, out of memory) gives ``on_lost(unit, error)`` as that unit's result and is replaced."""
    todo = deque(units)
    inflight: dict[Any, tuple[Any, Any]] = {}

    def begin(actor) -> None:
        unit = todo.popleft()
        inflight[call(actor, unit)] = (actor, unit)

    for _ in range(min(workers, len(todo))):
        begin(new_actor())
    while inflight:
        [ready], _ = ray.wait(list(inflight), num_returns=1)
        actor, unit = inflight.pop(ready)
        try:
            result = ray.get(ready)
        except ray.exceptions.RayError as error:
            result = on_lost(unit, error)
            ray.kill(actor, no_restart=True)
            actor = new_actor() if todo else None
        on_result(unit, result)
        if todo:
            begin(actor)
