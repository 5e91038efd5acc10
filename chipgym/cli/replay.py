"""``chipgym replay FILE...``: replay saved episodes, in parallel, and print a table of what each gave.

Exit status 0 when every episode replays as saved, 1 when some diverged or could not be replayed.
"""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tqdm import tqdm

import chipgym  # noqa: F401  (registers the env ids in the worker processes too)
from chipgym.envs.episode import EpisodeRecord, ReplayResult, replay


def _replay_file(path: str) -> tuple[int, ReplayResult | str]:
    """The number of steps saved and the replay, or what went wrong (a file that is not a record, an env
    that cannot be made)."""
    try:
        record = EpisodeRecord.load(path)
        return len(record.steps), replay(record)
    except Exception as error:  # reported in the table; one bad file must not stop the others
        return 0, f"{type(error).__name__}: {error}"


def replay_files(args) -> int:
    if args.workers < 1:
        raise ValueError(f"--workers: expected at least 1, got {args.workers}")
    paths = [str(Path(p)) for p in args.files]
    context = multiprocessing.get_context("spawn")  # no pool threads or open pipes inherited from this process
    with ProcessPoolExecutor(min(args.workers, len(paths)), mp_context=context) as pool:
        outcomes = list(tqdm(pool.map(_replay_file, paths), total=len(paths), desc="replaying", unit="episode",
                             file=sys.stderr, disable=len(paths) < 2))
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
    run.set_defaults(handler=replay_files)
