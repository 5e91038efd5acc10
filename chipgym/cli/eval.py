"""``chipgym eval``: an agent (openai, scripted, random) on a suite's episodes, in parallel on Ray, every step
logged to ``OUT/steps.jsonl`` as it happens; prints and writes (``OUT/summary.json``) the summary.

Exit status 0 when the episodes ran (whatever the agent scored), 2 when none could run (all unavailable) or on
an infrastructure failure, 143 when stopped by SIGTERM: the episodes in flight are left for ``--resume``, and
the summary of those that ended is printed and written.
"""

from __future__ import annotations

import inspect
import json
import signal
import threading
from pathlib import Path

from chipgym.cli.exit_codes import INFRASTRUCTURE_FAILURE, PASSED
from chipgym.envs.registry import env_class

STOPPED = 128 + signal.SIGTERM

EVALUATION_DEFAULTS = {"split": "test", "regime": "evaluation"}
"""what an evaluation sets where the env takes it (an env's own defaults are training's)"""


def _env_kwargs(args) -> dict:
    """The env's arguments: each flag given sets the constructor argument of its name (``--tasks``: ``tasks``, or
    ``task`` for an env that takes one), an error for an env without it; then ``--env-arg`` and the step budget."""
    parameters = inspect.signature(env_class(args.env)).parameters
    flags = [("--tasks", "tasks" if "tasks" in parameters else "task", args.tasks), ("--split", "split", args.split),
             ("--regime", "regime", args.regime), ("--include-docs", "include_docs", args.include_docs or None),
             ("--profile", "profile", args.profile), ("--no-formal", "formal", False if args.no_formal else None)]
    kwargs = {name: value for name, value in EVALUATION_DEFAULTS.items() if name in parameters}
    for flag, name, value in flags:
        if value is not None:
            if name not in parameters:
                raise ValueError(f"{flag}: {args.env} takes no {name!r} argument")
            kwargs[name] = value
    for pair in args.env_arg:
        name, _, value = pair.partition("=")
        try:
            kwargs[name] = json.loads(value)
        except ValueError:
            kwargs[name] = value
    steps = {"max_steps": args.max_steps, "max_episode_steps": args.max_steps} if args.max_steps else {}
    return {**kwargs, **steps}


def _llm(args) -> dict | None:
    if args.agent != "openai":
        return None
    from dataclasses import asdict

    from chipgym.baselines.llm import LlmConfig

    config = LlmConfig.from_env(base_url=args.base_url, model=args.model,
                                api_key=LlmConfig.key_from_file(args.api_key_file),
                                temperature=args.temperature, top_p=args.top_p, seed=args.seed,
                                max_tokens=args.max_tokens, timeout=args.request_timeout, retries=args.retries,
                                stream=args.stream or None, tools=False if args.no_tools else None,
                                context_tokens=args.context_tokens, time_limit=args.time_limit)
    return asdict(config)


def evaluate(args) -> int:
    from chipgym.baselines.eval_summary import summary_table
    from chipgym.baselines.evaluation import EvalRun, episode_specs, evaluate

    env_kwargs = _env_kwargs(args)
    names = args.starts.split(",") if args.starts else None
    specs = episode_specs(args.env, env_kwargs, args.limit, args.samples, names)
    run = EvalRun(args.env, env_kwargs, args.agent, specs, Path(args.out), args.workers, _llm(args), args.samples,
                  args.ray_address, args.resume, args.time_limit, progress=not args.no_progress,
                  stop=threading.Event())
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: run.stop.set())
    try:
        summary = evaluate(run)
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(summary_table(summary))
    print(f"log: {run.out / 'steps.jsonl'}; summary: {run.out / 'summary.json'}")
    if summary["stopped"]:
        print(f"stopped by SIGTERM: {len(specs) - summary['all']['attempted']} episodes not finished; --resume "
              "plays them")
        return STOPPED
    overall = summary["all"]
    return INFRASTRUCTURE_FAILURE if overall["attempted"] and overall["unavailable"] == overall["attempted"] else PASSED


def add_commands(commands) -> None:
    from chipgym.baselines.episode_runner import AGENTS

    run = commands.add_parser("eval", help="evaluate an agent (openai, scripted, random) on a suite, on Ray")
    run.add_argument("--env", default="chipgym/DrcScript-v0",
                     help="a registered env id (MODULE:ID imports MODULE first, as gymnasium.make does) whose class "
                          "plans an evaluation: chipgym/DrcScript-v0 (default), chipgym/RtlDesign-v0")
    run.add_argument("--agent", default="scripted", choices=AGENTS)
    run.add_argument("--tasks", help="the env's tasks: DRC, a suite name or a Rule2DRC folder (drc-v0); chip, the "
                                     "task (cpu)")
    run.add_argument("--split", choices=("train", "test", "all"), help="default for an env with splits: test")
    run.add_argument("--limit", type=int, help="only the first K tasks (or starts)")
    run.add_argument("--samples", type=int, default=1, help="episodes per task (reset seeds 0..n-1); adds pass@k")
    run.add_argument("--workers", type=int, default=1, help="episodes at once, one Ray actor each")
    run.add_argument("--ray-address", help="a Ray cluster to run on (default: a local Ray of --workers CPUs)")
    run.add_argument("--out", required=True, help="folder of the step log, run.json and summary.json")
    run.add_argument("--resume", action="store_true", help="go on with OUT's log: skip the finished episodes")
    run.add_argument("--max-steps", type=int, help="the env's step budget")
    run.add_argument("--time-limit", type=float, help="seconds of one episode (told to the openai agent)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--starts", help="comma-separated episodes to play, by name (the chip env's starting designs: "
                                      "empty, multicycle, ...; default: the env's plan)")
    drc = run.add_argument_group("DRC env")
    drc.add_argument("--regime", choices=("evaluation", "training"), help="default: evaluation")
    drc.add_argument("--include-docs", action="store_true", help="add the KLayout DRC reference to the prompt")
    chip = run.add_argument_group("chip env")
    chip.add_argument("--profile", help="the PDK profile (osu018)")
    chip.add_argument("--no-formal", action="store_true", help="no formal gate in check")
    run.add_argument("--env-arg", action="append", default=[], metavar="NAME=VALUE",
                     help="another argument of the env (VALUE read as JSON when it is)")
    llm = run.add_argument_group("openai agent (defaults: $CHIPGYM_LLM_*, $OPENAI_BASE_URL, $OPENAI_API_KEY)")
    llm.add_argument("--base-url")
    llm.add_argument("--model")
    llm.add_argument("--api-key-file", metavar="FILE", help="a file whose first line is the API key")
    llm.add_argument("--temperature", type=float)
    llm.add_argument("--top-p", type=float)
    llm.add_argument("--seed", type=int)
    llm.add_argument("--max-tokens", type=int)
    llm.add_argument("--request-timeout", type=float,
                     help="wall-clock seconds of one attempt of a request, the whole reply included (300)")
    llm.add_argument("--retries", type=int, help="retries of a request after 429, 5xx or a timeout (4)")
    llm.add_argument("--stream", action="store_true", help="stream the replies")
    llm.add_argument("--no-tools", action="store_true", help="ask for fenced JSON actions, offer no tools")
    llm.add_argument("--context-tokens", type=int,
                     help="the model's context in tokens (default: what the server says, else 100000)")
    run.set_defaults(handler=evaluate)
