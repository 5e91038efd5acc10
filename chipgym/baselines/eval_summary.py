"""The summary of an evaluation: per group and overall, the episodes attempted, how many of them were
unavailable, the success rate, the error rate (episodes whose deck or design errored), mean steps, tokens and
return, seconds, the replies that held no action the agent could read (``unread_replies``) and those cut at
max_tokens (``truncated_replies``: finish_reason ``length``), why the episodes that did not succeed ended
(``reasons``: the most common, each cut to REASON_CHARS, the server's message included), and with several
samples per task, pass@k by the unbiased estimator.

Every rate and mean is over the attempted episodes, unavailable ones included (as not solved): an episode the
infrastructure lost lowers a rate, so that no rate can rise by dropping episodes. ``unavailable`` says how many
there were; ``chipgym eval --resume`` plays them again.

>>> pass_at_k(n=4, c=1, k=1), pass_at_k(n=4, c=1, k=4), pass_at_k(n=4, c=0, k=2)
(0.25, 1.0, 0.0)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from math import comb
from typing import Any, Sequence

from chipgym.baselines.step_log import LoggedEpisode

REASON_CHARS, REASONS = 300, 5


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k samples, drawn without replacement from n of which c succeeded,
    succeeds: 1 - C(n - c, k) / C(n, k) (Chen et al., 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k: expected 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def _task(episode: LoggedEpisode) -> str:
    return episode.start["episode"].rsplit("#", 1)[0]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _figures(episodes: Sequence[LoggedEpisode], samples: int) -> dict[str, Any]:
    ends = [e.end for e in episodes]
    figures: dict[str, Any] = {
        "attempted": len(ends),
        "episodes": len(ends),  # the same as attempted, for readers of older summaries
        "unavailable": sum(end["status"] == "unavailable" for end in ends),
        "successes": sum(end["status"] == "success" for end in ends),
        "success_rate": _mean([end["status"] == "success" for end in ends]),
        "error_rate": _mean([end["status"] == "error" for end in ends]),
        "mean_steps": _mean([end["steps"] for end in ends]),
        "mean_tokens": _mean([end["prompt_tokens"] + end["completion_tokens"] for end in ends]),
        "mean_return": _mean([end["return"] for end in ends]),
        "episode_seconds": sum(end["seconds"] for end in ends),
        "unread_replies": sum(bool(step.get("reply_error")) for e in episodes for step in e.steps),
        "truncated_replies": sum(step.get("finish_reason") == "length" for e in episodes for step in e.steps),
        "reasons": dict(Counter(end["reason"][:REASON_CHARS] for end in ends
                                if end["status"] != "success").most_common(REASONS)),
    }
    if samples > 1:
        per_task: dict[str, list[bool]] = defaultdict(list)
        for episode in episodes:
            per_task[_task(episode)].append(episode.end["status"] == "success")
        for k in range(1, samples + 1):
            figures[f"pass@{k}"] = _mean([pass_at_k(len(runs), sum(runs), k) for runs in per_task.values()
                                          if len(runs) >= k])
    return figures


def summarize(episodes: Sequence[LoggedEpisode], samples: int = 1, wall_seconds: float | None = None
              ) -> dict[str, Any]:
    """Figures overall and per group; ``wall_seconds`` (of the run) adds steps per second."""
    groups: dict[str, list[LoggedEpisode]] = defaultdict(list)
    for episode in episodes:
        groups[episode.start.get("group") or "-"].append(episode)
    summary = {"all": _figures(episodes, samples),
               "groups": {name: _figures(group, samples) for name, group in sorted(groups.items())}}
    if wall_seconds is not None:
        steps = sum(e.end["steps"] for e in episodes)
        summary["all"].update(wall_seconds=wall_seconds, steps=steps,
                              steps_per_second=steps / wall_seconds if wall_seconds else None)
    return summary


def summary_table(summary: dict[str, Any]) -> str:
    """The summary as text: a line per group and one for all."""
    def line(name: str, f: dict[str, Any]) -> str:
        def pct(value):
            return "-" if value is None else f"{value:6.1%}"

        def num(value):
            return "-" if value is None else f"{value:.1f}"

        passes = "  ".join(f"{k} {pct(v)}" for k, v in f.items() if k.startswith("pass@"))
        return (f"{name:12} {f['attempted']:>9} {pct(f['success_rate']):>8} {pct(f['error_rate']):>8} "
                f"{f['unavailable']:>6} {num(f['mean_steps']):>6} {num(f['mean_tokens']):>9} "
                f"{f.get('unread_replies', 0):>7} {f.get('truncated_replies', 0):>5}  {passes}").rstrip()

    rows = [f"{'group':12} {'attempted':>9} {'success':>8} {'errors':>8} {'unav.':>6} {'steps':>6} {'tokens':>9} "
            f"{'unread':>7} {'cut':>5}"]
    rows += [line(name, figures) for name, figures in summary["groups"].items()]
    rows.append(line("all", summary["all"]))
    overall = summary["all"]
    reasons = overall.get("reasons", {})
    rows += ["not solved, why:"] * bool(reasons) + [f"  {count} x {reason}" for reason, count in reasons.items()]
    if overall.get("wall_seconds") is not None:
        rate = overall["steps_per_second"]
        rows.append(f"wall time {overall['wall_seconds']:.1f} s, {overall['steps']} steps, "
                    f"{rate:.2f} steps/s" if rate else f"wall time {overall['wall_seconds']:.1f} s")
    return "\n".join(rows)
