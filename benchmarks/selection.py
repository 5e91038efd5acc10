"""Best-of-N selection on drc-v0's test split with the offline generators: every method (one-shot, random,
majority, generated tests, SplitTester and its ablations, CodeMonkey-style, S*, the execution-free judge) beside
Oracle@N and pass@k, at N = 10 and 20 (the first 10 of the 20 candidates), for a few seeds; SplitTester's edge
over generated tests per seed, and the offline test generator's label error rate. Prints a Markdown table (mean
and per-seed success rates) and writes every run's folder under --out.

    CHIPGYM_CACHE=... .venv/bin/python benchmarks/selection.py --seeds 0,1,2 --workers 2 --out /tmp/selection-bench
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from chipgym.baselines.selection.experiment import SelectionRun, run_selection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--n", default="10,20")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--workers", type=int, help="Ray actors (default: no Ray)")
    parser.add_argument("--label-noise", type=float, default=0.0, help="offline tests: labels also flipped")
    parser.add_argument("--out", default="/tmp/selection-bench")
    parser.add_argument("--replot", action="store_true", help="only redraw OUT/figures.json (table and picture)")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    ns = tuple(int(n) for n in args.n.split(","))
    if args.replot:
        report = json.loads((Path(args.out) / "figures.json").read_text())
        plot(report, report["seeds"], ns, Path(args.out) / "selection.png")
        print(markdown(report, report["seeds"], ns))
        return
    start = time.perf_counter()
    summaries = []
    for seed in seeds:
        run = SelectionRun(tasks="drc-v0", split="test", ns=ns, seed=seed, limit=args.limit,
                           label_noise=args.label_noise)
        summary = run_selection(run, Path(args.out) / f"seed{seed}", args.workers)
        summaries.append(summary)
        print(f"seed {seed}: {summary['tasks']} tasks in {summary['wall_time']:.0f} s", flush=True)
    report = figures(summaries, seeds, ns)
    report["wall_time"] = time.perf_counter() - start
    (Path(args.out) / "figures.json").write_text(json.dumps(report, indent=1))
    plot(report, seeds, ns, Path(args.out) / "selection.png")
    print(markdown(report, seeds, ns))


def figures(summaries: list[dict], seeds: list[int], ns: tuple[int, ...]) -> dict:
    report: dict = {"seeds": seeds, "tasks": summaries[0]["tasks"], "by_n": {}}
    for n in map(str, ns):
        methods = list(summaries[0]["by_n"][n]["methods"])
        rows = {m: [s["by_n"][n]["methods"][m] for s in summaries] for m in methods}
        report["by_n"][n] = {
            "methods": {m: {key: [r[key] for r in runs] for key in ("success_rate", "selection_accuracy",
                                                                     "error_rate", "tests_spent")}
                        for m, runs in rows.items()},
            "oracle_at_n": [s["by_n"][n]["oracle_at_n"] for s in summaries],
            "pass_at_k": {k: [s["by_n"][n]["pass_at_k"][k] for s in summaries]
                          for k in summaries[0]["by_n"][n]["pass_at_k"]},
            "splittester_edge": [a["success_rate"] - b["success_rate"]
                                 for a, b in zip(rows["splittester"], rows["generated-tests"])],
        }
    report["label_error_rate"] = [s["label_error_rate"] for s in summaries]
    report["labels_checked"] = [s["labels_checked"] for s in summaries]
    report["run_wall_times"] = [s["wall_time"] for s in summaries]
    return report


def plot(report: dict, seeds: list[int], ns: tuple[int, ...], path: Path) -> None:
    """Success rate per method (mean over seeds, with the seeds' range), one bar per N, Oracle@N dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(report["by_n"][str(ns[0])]["methods"])
    figure, axes = plt.subplots(figsize=(9, 0.45 * len(methods) + 1.5))
    height = 0.8 / len(ns)
    for j, n in enumerate(map(str, ns)):
        rates = [report["by_n"][n]["methods"][m]["success_rate"] for m in methods]
        means = [float(np.mean(r)) for r in rates]
        spread = [[m - min(r) for m, r in zip(means, rates)], [max(r) - m for m, r in zip(means, rates)]]
        rows = [i + j * height for i in range(len(methods))]
        bars = axes.barh(rows, means, height, xerr=spread, label=f"N={n}", capsize=2)
        axes.axvline(float(np.mean(report["by_n"][n]["oracle_at_n"])), color=bars.patches[0].get_facecolor(),
                     linestyle="--", label=f"Oracle@{n}")
    axes.set_yticks([i + height * (len(ns) - 1) / 2 for i in range(len(methods))], methods)
    axes.invert_yaxis()
    axes.set_xlabel(f"success on drc-v0 test ({report['tasks']} tasks), mean of seeds {', '.join(map(str, seeds))}")
    axes.legend(loc="upper right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def _cell(values: list[float]) -> str:
    per_seed = " / ".join(f"{v:.1%}" for v in values)
    return f"**{np.mean(values):.1%}** ({per_seed})"


def markdown(report: dict, seeds: list[int], ns: tuple[int, ...]) -> str:
    head = "| method | " + " | ".join(f"N={n}: success, mean (seeds {', '.join(map(str, seeds))}) | sel. acc. | "
                                       f"tests" for n in ns) + " |"
    lines = [head, "|---|" + "---|---|---|" * len(ns)]
    methods = list(report["by_n"][str(ns[0])]["methods"])
    for method in methods:
        cells = []
        for n in map(str, ns):
            m = report["by_n"][n]["methods"][method]
            cells.append(f"{_cell(m['success_rate'])} | {np.mean(m['selection_accuracy']):.1%} | "
                         f"{np.mean(m['tests_spent']):.1f}")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines.append("| Oracle@N | " + " | ".join(f"{_cell(report['by_n'][str(n)]['oracle_at_n'])} | | "
                                              for n in ns) + " |")
    ks = sorted({int(k) for n in ns for k in report["by_n"][str(n)]["pass_at_k"]})
    for k in map(str, ks):
        lines.append(f"| pass@{k} | " + " | ".join(
            f"{_cell(report['by_n'][str(n)]['pass_at_k'][k])} | | " if k in report["by_n"][str(n)]["pass_at_k"]
            else " | | " for n in ns) + " |")
    lines.append("")
    for n in map(str, ns):
        edge = report["by_n"][n]["splittester_edge"]
        lines.append(f"SplitTester - generated tests at N={n}: {np.mean(edge):+.1%} "
                     f"(per seed {' / '.join(f'{e:+.1%}' for e in edge)}).")
    rates = report["label_error_rate"]
    lines.append(f"Offline test generator's label error rate against the gold deck: {np.mean(rates):.1%} "
                 f"(per seed {' / '.join(f'{r:.1%}' for r in rates)}; {sum(report['labels_checked'])} labels).")
    lines.append(f"{report['tasks']} tasks; wall time {report['wall_time']:.0f} s "
                 f"(per seed {' / '.join(f'{t:.0f}' for t in report['run_wall_times'])} s).")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
