"""``chipgym select``: Best-of-N selection on DRC tasks: N candidate decks per task, each method's choice
graded on the hidden layouts; prints the table and writes ``OUT/summary.json``, ``OUT/table.md`` and
``OUT/tasks/<task>.json`` (the candidates, every method's choice and trace).

Exit status 0 when the tasks ran, 2 when none could (all unavailable) or on an infrastructure failure.
"""

from __future__ import annotations

from pathlib import Path

from chipgym.cli.exit_codes import INFRASTRUCTURE_FAILURE, PASSED


def _counts(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"--n: expected candidate counts like 10 or 10,20, got {text!r}") from None


def _llm(args) -> dict | None:
    if args.generator != "openai":
        return None
    from dataclasses import asdict

    from chipgym.baselines.llm import LlmConfig

    config = LlmConfig.from_env(base_url=args.base_url, model=args.model,
                                api_key=LlmConfig.key_from_file(args.api_key_file),
                                temperature=args.temperature, max_tokens=args.max_tokens,
                                timeout=args.request_timeout, retries=args.retries)
    return asdict(config)


def select(args) -> int:
    from chipgym.baselines.selection.experiment import SelectionRun, run_selection
    from chipgym.baselines.selection.methods import method_names
    from chipgym.baselines.selection.metrics import table

    run = SelectionRun(tasks=args.tasks, split=args.split, methods=tuple(method_names(args.method)),
                       ns=_counts(args.n), seed=args.seed, generator=args.generator, llm=_llm(args),
                       budget=args.budget, limit=args.limit, metric=args.metric, timeout=args.timeout,
                       label_noise=args.label_noise)
    out = Path(args.out)
    summary = run_selection(run, out, args.workers, args.ray_address, progress=not args.no_progress)
    print(table(summary))
    print(f"summary: {out / 'summary.json'}; per task: {out / 'tasks'}")
    return INFRASTRUCTURE_FAILURE if summary["unavailable"] and not summary["tasks"] else PASSED


def add_commands(commands) -> None:
    from chipgym.baselines.selection.method import BUDGET

    run = commands.add_parser("select", help="Best-of-N selection of DRC decks (SplitTester and the baselines)")
    run.add_argument("--method", default="all",
                     help="a method, a comma-separated list, or all (one-shot, random, majority, generated-tests, "
                          "splittester[-no-judge|-no-labels|-prune3], codemonkey, s-star, judge)")
    run.add_argument("--n", default="10", help="candidates per task; a list (10,20) uses the first n of one sample")
    run.add_argument("--tasks", default="drc-v0", help="a suite name or a Rule2DRC folder")
    run.add_argument("--split", default="test", choices=("train", "test", "all"))
    run.add_argument("--limit", type=int, help="only the first K tasks")
    run.add_argument("--generator", default="offline", choices=("offline", "openai"),
                     help="where candidates, tests and the judge come from")
    run.add_argument("--label-noise", type=float, default=0.0,
                     help="offline tests: also flip each label with this probability (independent errors)")
    run.add_argument("--budget", type=int, default=BUDGET, help="generated test layouts per method and task")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--metric", default="chipgym", choices=("chipgym", "rule2drc"))
    run.add_argument("--timeout", type=float, default=20.0, help="seconds of one deck on one layout")
    run.add_argument("--workers", type=int, help="Ray actors, each with its own KLayout pools (default: no Ray)")
    run.add_argument("--ray-address", help="a Ray cluster to run on")
    run.add_argument("--out", required=True, help="folder of summary.json, table.md and tasks/")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    llm = run.add_argument_group("openai generator (defaults: $CHIPGYM_LLM_*, $OPENAI_BASE_URL, $OPENAI_API_KEY)")
    llm.add_argument("--base-url")
    llm.add_argument("--model")
    llm.add_argument("--api-key-file", metavar="FILE", help="a file whose first line is the API key")
    llm.add_argument("--temperature", type=float, help="sampling temperature (default 0; use ~0.8 for N samples)")
    llm.add_argument("--max-tokens", type=int)
    llm.add_argument("--request-timeout", type=float, help="seconds of one request (300)")
    llm.add_argument("--retries", type=int, help="retries of a request after 429, 5xx or a timeout (4)")
    run.set_defaults(handler=select)
