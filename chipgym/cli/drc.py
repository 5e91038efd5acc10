"""``chipgym drc ...``: run DRC decks on layouts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from chipgym.engines.klayout import DrcJob, DrcPool, DrcResult
from chipgym.errors import EngineError
from chipgym.tasks.drc.suites import suite_names

if TYPE_CHECKING:
    from chipgym.scoring.drc import Grade
    from chipgym.tasks.drc.task import DrcTask

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
    """One deck on one problem, or many: every deck of a folder on the problem it names."""
    from chipgym.scoring.drc import check_metric, gold_results, grade_many
    from chipgym.tasks.drc.rule2drc import load_rule2drc

    check_metric(args.metric, markers=args.mode == "markers")
    folder = load_rule2drc(args.problem, strict=args.strict)
    for issue in folder.issues:
        print(issue, file=sys.stderr)
    pairs = _deck_pairs(folder.tasks, Path(args.problem), Path(args.deck))
    tasks = {task.id: task for task, _ in pairs}
    gold = None
    if args.mode == "markers":  # on a pool of its own, which never runs the graded decks
        with DrcPool(workers=1, timeout=args.timeout) as gold_pool:
            gold = {task.id: gold_results(task, task.hidden_testcases, gold_pool) for task in tasks.values()}
    with DrcPool(workers=args.workers, timeout=args.timeout) as pool:
        texts = [(task, deck.read_text()) for task, deck in pairs]
        grades = grade_many(texts, pool, gold, progress=len(pairs) >= PROGRESS_FROM, metric=args.metric)
    if unavailable := next((g.unavailable for g in grades if g.unavailable), ""):
        raise EngineError(f"grading is unavailable: {unavailable}")
    if Path(args.deck).is_file():
        return _print_grade(pairs[0][0], grades[0], args.json)
    if args.json:
        rows = [{"problem": task.id, "deck": str(deck), "grade": g.to_dict()} for (task, deck), g in zip(pairs, grades)]
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    for (task, deck), result in zip(pairs, grades):
        verdict = f"{'PASS' if result.success else 'FAIL'}  F1 {result.f1:.2f}, {result.layouts_matched:.0%} matched"
        print(f"{task.id}  {deck}  {f'FAIL  precheck: {result.precheck}' if result.precheck else verdict}")
    solved = {task.id for (task, _), result in zip(pairs, grades) if result.success}
    unloaded = sum(issue.severity == "error" for issue in folder.issues)
    print(f"{sum(g.success for g in grades)} of {len(grades)} decks pass; {len(solved)} of {len(tasks)} problems "
          "have a passing deck" + (f"; {unloaded} more did not load (count them as failed beside the paper's "
                                   "numbers)" if unloaded else ""))
    return 0


def _deck_pairs(tasks: Sequence[DrcTask], problems: Path, decks: Path) -> list[tuple[DrcTask, Path]]:
    """(task, deck file) to grade: one deck file on the one problem, or from a folder every ``{id}.drc`` and
    every ``{id}/*.drc`` on the problem ``id`` (Best-of-N candidates), in order of problem and file name."""
    if decks.is_file():
        if len(tasks) != 1:
            raise ValueError(f"{problems}: holds {len(tasks)} loadable problems; name one problem folder, or give a "
                             "folder of decks named by problem id")
        return [(tasks[0], decks)]
    if not decks.is_dir():
        raise FileNotFoundError(f"no such file or folder: {decks}")
    pairs = [(task, deck) for task in tasks
             for deck in sorted([*decks.glob(f"{task.id}.drc"), *(decks / task.id).glob("*.drc")])]
    if not pairs:
        raise ValueError(f"{decks}: no deck named {{id}}.drc or {{id}}/*.drc for any of the {len(tasks)} problems")
    return pairs


def _print_grade(task: DrcTask, result: Grade, as_json: bool) -> int:
    if as_json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        print()
        return 0
    if result.precheck:
        print(f"{task.id}: FAIL  precheck: {result.precheck}")
        return 0
    print(f"{task.id}: {'PASS' if result.success else 'FAIL'} ({result.metric} metric)  F1 {result.f1:.2f}, "
          f"{result.layouts_matched:.0%} of {result.n_cases} layouts matched, ran on {result.compile_rate:.0%}")
    if result.error:
        print(f"error class: {result.error}  {result.error_counts} (`chipgym drc run` shows the deck's messages)")
    if result.extra_categories:
        print(f"categories the task does not define: {result.extra_categories}")
    for e in result.errors:
        print(f"  {e.layout}  {e.error}")
    for m in result.mismatches:
        print(f"  {m.layout}  {m.category}: expected {m.expected}, got {m.got}")
    return 0


def build(args) -> int:
    """Builds a suite's dataset artifact (the one place its generators run) and prints its pools."""
    from chipgym.tasks.drc.suite import build_private, build_suite, pin_suite
    from chipgym.tasks.grading_seed import drc_grading_secret

    if args.private and args.pin:
        raise ValueError("--pin pins the public dataset; a private evaluation set is never pinned or published")
    if args.private:
        tasks = build_private(args.suite, drc_grading_secret(), jobs=args.workers)
    else:
        tasks = build_suite(args.suite, jobs=args.workers)
    if args.pin:
        print(f"pinned the content of {len(tasks)} tasks in {pin_suite(args.suite)}")
    pools = {name: sum(len(getattr(t, attribute)) for t in tasks) for name, attribute in
             (("public", "public_examples"), ("training", "training_testcases"), ("evaluation", "hidden_testcases"))}
    lacking = [t.id for t in tasks if t.metadata.get("training_lacking")]
    label = f"{args.suite} (private evaluation set)" if args.private else args.suite
    print(f"{label}: {len(tasks)} tasks; layouts: {pools['public']:,} public, {pools['training']:,} training, "
          f"{pools['evaluation']:,} evaluation")
    if lacking:
        print(f"{len(lacking)} tasks lack a passing or a failing training layout for some category: "
              f"{', '.join(lacking[:10])}{' ...' if len(lacking) > 10 else ''}")
    return 0


def export(args) -> int:
    from chipgym.tasks.drc.rule2drc import write_rule2drc
    from chipgym.tasks.drc.suite import build_suite

    problems = write_rule2drc(build_suite(args.suite), args.out)
    print(f"wrote {sum(1 for _ in problems.glob('*/spec.yaml'))} problems to {problems}")
    return 0


def validate(args) -> int:
    """Gold decks reproduce their labels, every category has a passing and a failing hidden layout, and the
    hidden layouts catch the deck mutants of a sample of tasks per group."""
    from tqdm import tqdm

    from chipgym.scoring.drc import grade_on
    from chipgym.tasks.drc.labels import discriminates
    from chipgym.tasks.drc.mutate import mutation_scores, score_task
    from chipgym.tasks.drc.rule2drc import load_rule2drc
    from chipgym.tasks.drc.runner import VerdictPool
    from chipgym.tasks.drc.suite import build_suite
    from chipgym.tasks.drc.suites import suite_names

    if args.suite in suite_names():
        tasks, problems = build_suite(args.suite), []
    else:
        folder = load_rule2drc(args.suite, strict=args.strict)
        tasks, problems = list(folder.tasks), [str(issue) for issue in folder.issues]
    with VerdictPool(workers=args.workers, timeout=args.timeout) as pool:
        for task in tqdm(tasks, desc="gold decks", unit="task", file=sys.stderr):
            for which, cases in (("hidden", task.hidden_testcases), ("public", task.public_examples)):
                result = grade_on(cases, task.categories, task.gold_deck, pool)
                if not result.success:
                    why = result.error or (f"{len(result.mismatches)} mismatches, "
                                           f"{result.extra_categories} extra categories")
                    problems.append(f"{task.id}: the gold deck disagrees with the {which} labels ({why})")
            if lacking := discriminates(task.hidden_testcases, task.categories):
                problems.append(f"{task.id}: no passing or no failing hidden layout for {lacking}")
        sample = _spread(tasks, args.mutation_tasks)
        outcomes = [o for task in tqdm(sample, desc="mutants", unit="task", file=sys.stderr)
                    for o in score_task(task, pool, extra=args.extra)]
    scores = mutation_scores(outcomes)
    for task_id, operator, description in sorted((o.task_id, o.mutant.operator, o.mutant.description)
                                                 for o in outcomes if o.status == "survived"):
        problems.append(f"{task_id}: a {operator} mutant survived: {description}")
    print(f"{len(tasks)} tasks: "
          + ", ".join(f"{g} {sum(t.group == g for t in tasks)}" for g in sorted({t.group for t in tasks})))
    for group, score in scores.items():
        print(f"mutation score {group}: {score['score']:.3f} "
              f"(killed {score['killed']:.0f}, survived {score['survived']:.0f}, "
              f"equivalent {score['equivalent']:.0f}, invalid {score['invalid']:.0f})")
    print("\n".join(problems) if problems else "valid: every gold deck matches its labels")
    low = [g for g, score in scores.items() if score["score"] < args.min_score]
    return 1 if problems or low else 0


def _spread(tasks, per_group: int):
    """Up to ``per_group`` tasks of each group, spread evenly over it."""
    chosen = []
    for group in sorted({t.group for t in tasks}):
        members = [t for t in tasks if t.group == group]
        chosen += members[:: max(1, len(members) // per_group)][:per_group] if per_group else []
    return chosen


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

    grade = drc.add_parser("grade", help="grade decks on Rule2DRC problems' labelled layouts")
    grade.add_argument("problem", metavar="PROBLEMS", help="a problem folder (with spec.yaml), or a folder of them")
    grade.add_argument("deck", metavar="DECKS",
                       help="the deck to grade, or a folder of decks: {id}.drc or {id}/*.drc for problem id")
    grade.add_argument("--mode", choices=("verdicts", "markers"), default="verdicts",
                       help="verdicts: any marker or none per category (Rule2DRC); markers: the gold deck's geometry")
    grade.add_argument("--metric", choices=("chipgym", "rule2drc"), default="chipgym",
                       help="chipgym: stricter (the default); rule2drc: the published evaluator's decisions, "
                            "see docs/rule2drc.md")
    grade.add_argument("--json", action="store_true", help="print the grade as JSON")
    grade.add_argument("--strict", action="store_true", help="stop at the first problem that does not load")
    grade.add_argument("--workers", type=int, default=2)
    grade.add_argument("--timeout", type=float, default=20.0,
                       help="seconds for one deck on one layout (default 20; the published evaluator allows 120)")
    grade.set_defaults(handler=grade_deck)

    built = drc.add_parser("build", help="build a built-in suite's dataset (labelled once; later loads only read it)")
    built.add_argument("suite", metavar="SUITE", help=f"a built-in suite ({', '.join(suite_names())})")
    built.add_argument("--workers", type=int, default=2, help="KLayout workers (default 2)")
    built.add_argument("--pin", action="store_true",
                       help="pin the built content of a frozen suite in the package (once, when it is frozen)")
    built.add_argument("--private", action="store_true",
                       help="also draw a private evaluation set from the grading secret ($CHIPGYM_GRADING_SEED, else "
                            "this machine's own): evaluation layouts no agent can regenerate; envs take it with "
                            "evaluation_set='private'")
    built.set_defaults(handler=build)

    out = drc.add_parser("export", help="write a built-in suite in Rule2DRC format (byte-identical every run)")
    out.add_argument("--suite", default="drc-v0", help="a built-in suite (chipgym.tasks.drc.suites)")
    out.add_argument("--out", required=True, metavar="DIR")
    out.set_defaults(handler=export)

    check = drc.add_parser("validate", help="check a suite: gold decks against labels, label coverage, mutation scores")
    check.add_argument("suite", metavar="SUITE_OR_PATH", help="a built-in suite (drc-v0, ...) or a problems folder")
    check.add_argument("--mutation-tasks", type=int, default=5,
                       help="tasks per group whose mutants are run (default 5)")
    check.add_argument("--extra", type=int, default=150,
                       help="extra jittered layouts per task to spot equivalent mutants")
    check.add_argument("--strict", action="store_true", help="stop at the first problem of a folder that does not load")
    check.add_argument("--min-score", type=float, default=0.95, help="lowest acceptable mutation score per group")
    check.add_argument("--workers", type=int, default=2)
    check.add_argument("--timeout", type=float, default=20.0)
    check.set_defaults(handler=validate)
