"""The figures of a selection run, from its per-task records: per candidate count N and method, the success
rate of the chosen deck, its error rate (it failed to run on some hidden layout), Oracle@N (some candidate
succeeds), the unbiased pass@k of the candidates, selection accuracy (chosen correct / some candidate correct),
the test layouts spent; and the label error rate of the generated tests.

>>> round(pass_at_k(n=10, c=3, k=1), 4), round(pass_at_k(10, 3, 5), 4), pass_at_k(10, 0, 5)
(0.3, 0.9167, 0.0)
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from chipgym.baselines.eval_summary import pass_at_k


def ks_for(n: int) -> list[int]:
    return [k for k in (1, 5, 10, 20) if k < n] + [n]


def summarize(records: Sequence[dict[str, Any]], wall_time: float) -> dict[str, Any]:
    """The summary of a run's task records (those graded; unavailable ones are counted apart)."""
    graded = [r for r in records if "selections" in r]
    summary: dict[str, Any] = {"tasks": len(graded), "unavailable": len(records) - len(graded),
                               "wall_time": wall_time, "by_n": {}}
    for n in sorted({int(n) for r in graded for n in r["selections"]}):
        successes = [[c["success"] for c in r["candidates"][:n]] for r in graded]
        oracle = [any(s) for s in successes]
        figures: dict[str, Any] = {
            "oracle_at_n": _mean(oracle),
            "pass_at_k": {str(k): _mean([pass_at_k(n, sum(s), k) for s in successes]) for k in ks_for(n)},
            "methods": {},
        }
        for method in graded[0]["selections"][str(n)]:
            chosen = [r["selections"][str(n)][method] for r in graded]
            hits = [c["success"] for c in chosen]
            figures["methods"][method] = {
                "success_rate": _mean(hits),
                "error_rate": _mean([c["error"] is not None for c in chosen]),
                "oracle_at_n": figures["oracle_at_n"],
                "selection_accuracy": sum(hits) / sum(oracle) if any(oracle) else 0.0,
                "tests_spent": _mean([c["tests_spent"] for c in chosen]),
                "successes": int(sum(hits)),
            }
        summary["by_n"][str(n)] = figures
    labelled = sum(r["labels"]["checked"] for r in graded)
    summary["label_error_rate"] = sum(r["labels"]["wrong"] for r in graded) / labelled if labelled else None
    summary["labels_checked"] = labelled
    return summary


def table(summary: dict[str, Any]) -> str:
    """A Markdown table: one row per method, one column group per N."""
    ns = list(summary["by_n"])
    methods = list(dict.fromkeys(m for n in ns for m in summary["by_n"][n]["methods"]))
    head = "| method | " + " | ".join(f"N={n} success | selection acc. | tests" for n in ns) + " |"
    lines = [head, "|---|" + "---|---|---|" * len(ns)]
    for method in methods:
        cells = []
        for n in ns:
            m = summary["by_n"][n]["methods"].get(method)
            cells.append(f"{m['success_rate']:.1%} | {m['selection_accuracy']:.1%} | {m['tests_spent']:.1f}"
                         if m else " | | ")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines.append("| Oracle@N | " + " | ".join(f"{summary['by_n'][n]['oracle_at_n']:.1%} | | " for n in ns) + " |")
    label = summary.get("label_error_rate")
    lines.append(f"\n{summary['tasks']} tasks, {summary['unavailable']} unavailable; generated-test label error "
                 f"rate {'n/a' if label is None else f'{label:.1%}'} of {summary['labels_checked']} labels; "
                 f"wall time {summary['wall_time']:.0f} s")
    return "\n".join(lines)


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else 0.0
