"""``chipgym drc ...``: run DRC decks on layouts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from chipgym.engines.klayout import DrcJob, DrcPool, DrcResult

PROGRESS_FROM = 20  # show a progress bar from this many (deck, layout) runs on


def run_decks(args) -> int:
    decks = [Path(deck) for deck in args.decks]
    layouts = [Path(layout) for layout in args.layout]
    for path in decks + layouts:
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
    jobs = [DrcJob(deck.read_text(), layouts) for deck in decks]
    with DrcPool(workers=args.workers, timeout=args.timeout) as pool:
        results = pool.run_batch(jobs, progress=len(decks) * len(layouts) >= PROGRESS_FROM)
    rows = [(deck, layout, result) for deck, row in zip(decks, results) for layout, result in zip(layouts, row)]
    if args.image:
        _save_images(rows, Path(args.image))
    if args.json:
        json.dump([_row_json(*row) for row in rows], sys.stdout, indent=2)
        print()
    else:
        for deck, layout, result in rows:
            found = " ".join(f"{name}={count}" for name, count in result.counts.items())
            print(f"{deck}  {layout}  {result.status.value}  {found or result.error}")
    return 0


def _row_json(deck: Path, layout: Path, result: DrcResult) -> dict:
    return {
        "deck": str(deck),
        "layout": str(layout),
        "status": result.status.value,
        "error": result.error,
        "categories": result.counts,
    }


def _save_images(rows, folder: Path) -> None:
    from chipgym.render import render_layout, save_png

    folder.mkdir(parents=True, exist_ok=True)
    for deck, layout, result in rows:
        markers = {name: category.markers for name, category in result.categories.items()}
        save_png(render_layout(layout, markers), folder / f"{deck.stem}--{layout.stem}.png")


def add_commands(commands) -> None:
    drc = commands.add_parser("drc", help="KLayout DRC decks").add_subparsers(dest="drc_command", required=True)
    run = drc.add_parser("run", help="run every deck on every layout")
    run.add_argument("decks", nargs="+", metavar="DECK", help="KLayout DRC decks (.drc, Ruby DSL)")
    run.add_argument("--layout", action="append", required=True, metavar="GDS", help="a layout; repeat for more")
    run.add_argument("--json", action="store_true", help="print a JSON list of results")
    run.add_argument("--image", metavar="DIR", help="also draw each layout with its markers as DIR/DECK--LAYOUT.png")
    run.add_argument("--workers", type=int, default=2, help="KLayout workers (default 2)")
    run.add_argument("--timeout", type=float, default=20.0, help="seconds for one deck on one layout (default 20)")
    run.set_defaults(handler=run_decks)
