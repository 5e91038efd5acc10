"""The DRC engine under a realistic grading load: the pool against one `klayout -b -r` process per run.

Rule2DRC grades a candidate deck by running it on each of a task's 10-20 layouts, one KLayout process per
(deck, layout). This benchmark makes DECKS different decks (SKY130 metal and via rules), each with its own
LAYOUTS random layouts, runs them through a DrcPool and through plain processes (both using 2 at a time),
checks that both give the same counts, and prints:
  - the pool's time per deck and per layout, and its overhead: wall time per job / time inside the deck;
  - the memory of one worker (PSS of its sandbox's processes);
  - `speedup: N.Nx` as the last line.

Run: .venv/bin/python benchmarks/drc_engine.py [--decks 20] [--layouts 12]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import gdstk
import numpy as np

from chipgym.engines.klayout import DrcCache, DrcJob, DrcPool, read_report_counts
from chipgym.engines.sandbox import processes_of

LAYERS = {"met1": (68, 20), "via": (68, 44), "met2": (69, 20)}
RULES = [
    ("met1.width({t})", "width"),
    ("met1.space({t})", "space"),
    ("met2.width({t})", "width"),
    ("met2.space({t}, projection)", "space"),
    ("via.enclosed(met1, {e})", "enclosure"),
    ("via.enclosed(met2, {e})", "enclosure"),
    ("met1.with_area(nil, {a})", "area"),
    ("met1.notch({t})", "notch"),
    ("(via - met1)", "inside"),
    ("via.width({v}).polygons", "via width"),
    ("met1.sized(0.02).and(met2).width({t})", "overlap"),
    ("met1.interacting(via).space({t})", "space near vias"),
]


def make_deck(rng: np.random.Generator, index: int) -> str:
    lines = ["source($input)", f'report("rule set {index}", $output)']
    lines += [f"{name} = input({layer}, {datatype})" for name, (layer, datatype) in LAYERS.items()]
    for n, k in enumerate(rng.choice(len(RULES), size=3, replace=False)):
        template, what = RULES[k]
        check = template.format(t=round(rng.uniform(0.12, 0.16), 3), e=round(rng.uniform(0.03, 0.06), 3),
                                a=round(rng.uniform(0.05, 0.09), 3), v=0.15)
        lines.append(f'{check}.output("r{index}_{n}", "{what}")')
    return "\n".join(lines) + "\n"


def make_layout(rng: np.random.Generator, path: Path) -> Path:
    library = gdstk.Library(unit=1e-6, precision=1e-9)
    cell = library.new_cell("TOP")
    for _ in range(int(rng.integers(20, 60))):
        x, y = rng.uniform(0, 20, size=2).round(3)
        w, h = rng.uniform(0.1, 2.0, size=2).round(3)
        layer = LAYERS["met1" if rng.random() < 0.6 else "met2"]
        cell.add(gdstk.rectangle((x, y), (x + w, y + h), layer=layer[0], datatype=layer[1]))
        if rng.random() < 0.3:
            cell.add(gdstk.rectangle((x + 0.03, y + 0.03), (x + 0.18, y + 0.18),
                                     layer=LAYERS["via"][0], datatype=LAYERS["via"][1]))
    library.write_gds(str(path))
    return path


def plain_klayout(deck: Path, layout: Path, report: Path) -> dict[str, int]:
    subprocess.run(["klayout", "-b", "-r", deck, "-rd", f"input={layout}", "-rd", f"output={report}"],
                   check=True, capture_output=True)
    return read_report_counts(report)


def worker_memory_mb(uid: int) -> float:
    """Proportional set size of all processes of one sandbox uid, in MB."""
    total_kb = 0
    for pid in processes_of(uid):
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        total_kb += next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
    return total_kb / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--layouts", type=int, default=12, help="layouts per deck")
    parser.add_argument("--parallel", type=int, default=2, help="workers, and plain processes at a time")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    folder = Path(tempfile.mkdtemp(prefix="chipgym-bench-"))
    decks = [make_deck(rng, i) for i in range(args.decks)]
    layouts = [[make_layout(rng, folder / f"d{i}_l{j}.gds") for j in range(args.layouts)] for i in range(args.decks)]
    runs = args.decks * args.layouts
    print(f"load: {args.decks} decks x {args.layouts} layouts = {runs} runs, {args.parallel} at a time")

    with DrcPool(workers=args.parallel, cache=DrcCache(size=0)) as pool:
        pool.run("source($input)", [layouts[0][0]])  # wait for the workers to start
        job_times = []
        start = time.perf_counter()
        results = pool.run_batch([DrcJob(deck, paths) for deck, paths in zip(decks, layouts)])
        pooled = time.perf_counter() - start
        for deck, paths in zip(decks, layouts):  # one job at a time, for its own wall time
            begin = time.perf_counter()
            inside = sum(r.seconds for r in pool.run(deck, paths))
            job_times.append((time.perf_counter() - begin, inside))
        memory = [worker_memory_mb(worker.sandbox.uid) for worker in pool.workers]

    deck_files = []
    for i, deck in enumerate(decks):
        deck_files.append(folder / f"deck{i}.drc")
        deck_files[-1].write_text(deck)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.parallel) as executor:
        plain = list(executor.map(lambda ij: plain_klayout(deck_files[ij[0]], layouts[ij[0]][ij[1]],
                                                           folder / f"r{ij[0]}_{ij[1]}.lyrdb"),
                                  [(i, j) for i in range(args.decks) for j in range(args.layouts)]))
    separate = time.perf_counter() - start

    pooled_counts = [r.counts for job in results for r in job]
    errors = sum(not r.ok for job in results for r in job)
    assert errors == 0, f"{errors} runs failed in the pool"
    assert pooled_counts == plain, "the pool and plain KLayout disagree"
    flagged = sum(any(c.values()) for c in plain)
    wall = [w for w, _ in job_times]
    overhead = [w / inside for w, inside in job_times]
    print(f"results: identical on all {runs} runs ({flagged} with at least one marker)")
    print(f"pool: {pooled:.2f} s in all, {1000 * statistics.median(wall):.0f} ms per deck of {args.layouts} layouts "
          f"(median), {1000 * pooled * args.parallel / runs:.1f} ms per layout")
    print(f"pool overhead: wall time per job / time inside the deck = {statistics.median(overhead):.2f}x median, "
          f"{max(overhead):.2f}x worst")
    print(f"memory per worker: {statistics.mean(memory):.0f} MB (PSS of the sandbox's processes)")
    print(f"plain klayout -b -r per run: {separate:.1f} s in all, "
          f"{1000 * separate * args.parallel / runs:.0f} ms per run")
    print(f"speedup: {separate / pooled:.1f}x")


if __name__ == "__main__":
    main()
