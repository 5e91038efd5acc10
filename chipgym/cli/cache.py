"""``chipgym cache info|clear``: what the disk cache (:mod:`chipgym.cache`) holds, and removing some or all of it.

>>> duration("7d"), duration("12h"), duration("1.5m")
(604800.0, 43200.0, 90.0)
>>> size(5 << 30), size(1536), size(12)
('5.0 GiB', '1.5 KiB', '12 B')
"""

from __future__ import annotations

import argparse
import re

from chipgym.cache import UNBOUNDED_KINDS, Entry, default_cache

SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def duration(text: str) -> float:
    """The seconds of ``45s``, ``30m``, ``12h`` or ``7d``."""
    found = DURATION.fullmatch(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 7d, 12h, 30m or 45s")
    return float(found[1]) * SECONDS[found[2]]


def size(count: int) -> str:
    """``count`` bytes, readably."""
    power = min(len(UNITS) - 1, max(0, (count.bit_length() - 1) // 10))
    return f"{count} B" if power == 0 else f"{count / 1024 ** power:.1f} {UNITS[power]}"


def info(args) -> int:
    cache = default_cache()
    kinds: dict[str, list[Entry]] = {}
    for entry in cache.entries():
        kinds.setdefault(entry.kind, []).append(entry)
    print(f"folder {cache.root}")
    for kind, entries in sorted(kinds.items()):
        note = "  (never evicted, not counted)" if kind in UNBOUNDED_KINDS else ""
        print(f"{kind:<20} {len(entries):>7} entries {size(sum(e.bytes for e in entries)):>11}{note}")
    counted = sum(e.bytes for kind, entries in kinds.items() if kind not in UNBOUNDED_KINDS for e in entries)
    print(f"total {size(counted)} of {size(cache.max_bytes)} ($CHIPGYM_CACHE_MAX_BYTES)")
    return 0


def clear(args) -> int:
    cache = default_cache()
    present = cache.kinds()
    if unknown := [kind for kind in args.kinds if kind not in present]:
        holds = ", ".join(present) or "nothing"
        raise ValueError(f"the cache in {cache.root} holds no {', '.join(map(repr, unknown))} (it holds: {holds})")
    removed = cache.clear(tuple(args.kinds), args.older_than)
    print(f"removed {len(removed)} entries, {size(sum(e.bytes for e in removed))}")
    return 0


def add_commands(commands) -> None:
    cache = commands.add_parser("cache", help="the disk cache").add_subparsers(dest="cache_command", required=True)
    run = cache.add_parser("info", help="the cache's folder, entries and bytes per kind, total and limit")
    run.set_defaults(handler=info)
    run = cache.add_parser("clear", help="remove entries: all of them, of some kinds, or those unused for a while")
    run.add_argument("kinds", metavar="KIND", nargs="*", help="kinds to clear, as `chipgym cache info` lists them")
    run.add_argument("--older-than", metavar="DURATION", type=duration, default=0.0,
                     help="only entries unused for this long, e.g. 7d, 12h, 30m, 45s")
    run.set_defaults(handler=clear)
