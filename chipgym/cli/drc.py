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


def grade_deck(args) -> int:
    from chipgym.scoring.drc import grade
    from chipgym.tasks.drc.rule2drc import load_rule2drc

    tasks = load_rule2drc(args.problem)
    if len(tasks) != 1:
        raise ValueError(f"{args.problem}: holds {len(tasks)} problems; name one problem folder")
    deck = Path(args.deck)
    if not deck.is_file():
        raise FileNotFoundError(f"no such file: {deck}")
    with DrcPool(workers=args.workers, timeout=args.timeout) as pool:
        result = grade(tasks[0], deck.read_text(), pool, mode=args.mode)
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=2)
        print()
        return 0
    print(f"{tasks[0].id}: {'PASS' if result.success else 'FAIL'}  F1 {result.f1:.2f}, "
          f"{result.layouts_matched:.0%} of {len(tasks[0].hidden_testcases)} layouts matched")
    if result.error:
        print(f"error: {result.error}: {result.error_message}  {result.error_counts}")
    for m in result.mismatches:
        print(f"  {m.layout}  {m.category}: expected {m.expected}, got {m.got}")
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

    grade = drc.add_parser("grade", help="grade a deck on a Rule2DRC problem's labelled layouts")
    grade.add_argument("problem", metavar="PROBLEM_DIR", help="a problem folder (with spec.yaml)")
    grade.add_argument("deck", metavar="DECK", help="the deck to grade")
    grade.add_argument("--mode", choices=("verdicts", "markers"), default="verdicts",
                       help="verdicts: any marker or none per category (Rule2DRC); markers: the gold deck's geometry")
    grade.add_argument("--json", action="store_true", help="print the grade as JSON")
    grade.add_argument("--workers", type=int, default=2)
    grade.add_argument("--timeout", type=float, default=20.0)
    grade.set_defaults(handler=grade_deck)
