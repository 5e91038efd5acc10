"""``chipgym replay FILE...``: replay saved episodes, in parallel, and print a table of what each gave.

A record is untrusted input (:mod:`chipgym.envs.episode` checks its fields and arguments), and what it points
at may be too (a task folder that hangs or crashes whoever reads it), so every record is replayed in a process
of its own, for at most ``--time-limit`` seconds: a record that cannot be read, whose env cannot be made, whose
replay raises, crashes or runs out of time is its own error row, and every other record still gets its row.

Exit status 0 when every episode replays as saved, 1 when some diverged or could not be replayed.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from multiprocessing.connection import Connection, wait
from pathlib import Path

from tqdm import tqdm

import chipgym  # noqa: F401  (registers the env ids in the worker processes too)
from chipgym.engines.tools import exit_cleanly_on_sigterm
from chipgym.envs.episode import EpisodeRecord, ReplayResult, replay

Outcome = tuple[int, ReplayResult | str]  # the steps saved, and the replay or what went wrong
STOP_SECONDS = 10.0  # between SIGTERM (the engines clean up) and SIGKILL of a replay out of time


def _replay_file(path: str) -> Outcome:
    try:
        record = EpisodeRecord.load(path)
        return len(record.steps), replay(record)
    except Exception as error:  # reported in the table; one bad file must not stop the others
        return 0, f"{type(error).__name__}: {error}"[:1000].replace("\n", " ")


def _child(path: str, connection: Connection) -> None:
    exit_cleanly_on_sigterm()  # so that _stop's SIGTERM closes the env's engines, as the chipgym command does
    connection.send(_replay_file(path))


def _stop(process: multiprocessing.Process, terminate: bool = True) -> None:
    """Ends ``process``: SIGTERM (unless it is ending by itself), then SIGKILL when it is still there after
    STOP_SECONDS."""
    if terminate:
        process.terminate()
    process.join(STOP_SECONDS)
    if process.is_alive():
        process.kill()
        process.join()


def _died(process: multiprocessing.Process) -> str:
    process.join()
    code = process.exitcode
    how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit status {code}"
    return f"the replay's process died ({how})"


def replay_all(paths: list[str], workers: int, time_limit: float, progress: bool = True) -> list[Outcome]:
    """The outcome of each record, in order, each replayed in a process of its own, ``workers`` at once."""
    context = multiprocessing.get_context("spawn")  # no pool threads or open pipes inherited from this process
    outcomes: dict[int, Outcome] = {}
    running: dict[Connection, tuple[int, multiprocessing.Process, float]] = {}
    todo = list(enumerate(paths))
    bar = tqdm(total=len(paths), desc="replaying", unit="episode", file=sys.stderr, disable=not progress)
    try:
        while todo or running:
            while todo and len(running) < workers:
                index, path = todo.pop(0)
                receiving, sending = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(path, sending), name=f"chipgym-replay-{index}")
                process.start()
                sending.close()
                running[receiving] = (index, process, time.monotonic())
            for connection in wait(list(running), timeout=0.5):
                index, process, _ = running.pop(connection)
                try:
                    outcomes[index] = connection.recv()
                    _stop(process, terminate=False)
                except EOFError:  # it died before it answered
                    outcomes[index] = (0, _died(process))
                connection.close()
                bar.update()
            for connection, (index, process, started) in list(running.items()):
                if time.monotonic() - started > time_limit:
                    del running[connection]
                    _stop(process)
                    connection.close()
                    outcomes[index] = (0, f"the replay ran out of its time limit of {time_limit:g} s")
                    bar.update()
    finally:
        for _, process, _ in running.values():
            _stop(process)
        bar.close()
    return [outcomes[i] for i in range(len(paths))]


def replay_files(args) -> int:
    if args.workers < 1:
        raise ValueError(f"--workers: expected at least 1, got {args.workers}")
    if not args.time_limit > 0:
        raise ValueError(f"--time-limit: expected a positive number of seconds, got {args.time_limit}")
    paths = [str(Path(p)) for p in args.files]
    outcomes = replay_all(paths, args.workers, args.time_limit, progress=len(paths) > 1)
    width = max(len(p) for p in paths)
    print(f"{'episode':<{width}}  {'env':<22} {'steps':>5} {'return':>8}  result")
    failed = 0
    for path, (saved_steps, outcome) in zip(paths, outcomes):
        if isinstance(outcome, str):
            failed += 1
            print(f"{path:<{width}}  {'-':<22} {'-':>5} {'-':>8}  error: {outcome}")
            continue
        failed += not outcome.ok
        verdict = "as saved" if outcome.ok else f"diverged at {outcome.divergence}"
        print(f"{path:<{width}}  {outcome.env_id:<22} {saved_steps:>5} {sum(outcome.rewards):>8.4f}  {verdict}")
    return 1 if failed else 0


def add_commands(commands) -> None:
    run = commands.add_parser("replay", help="replay saved episodes (env.save_episode, RecordEpisodes) and compare")
    run.add_argument("files", metavar="FILE", nargs="+", help="saved episode JSON files")
    run.add_argument("--workers", type=int, default=2, help="episodes replayed at once (default 2)")
    run.add_argument("--time-limit", type=float, default=3600.0,
                     help="seconds one episode's replay may take, then it is stopped and reported (default 3600)")
    run.set_defaults(handler=replay_files)
