"""A selection run, what ``chipgym select`` does: for every task, N candidates, each selection method on the
first n of them for every n asked, the candidates graded once on the hidden layouts (cached), and the
generated tests' labels checked against the gold deck; in this process, or on Ray actors that each own their
KLayout pools (a test bench, a grader), with the same records either way.

Per task, a record (JSON): the distinct decks, each candidate's origin and grade, every method's choice with
its trace per n, the label check of the generated tests, the wall time and the Ray node (``seconds`` and
``node``, the only fields that differ between two runs).

>>> run = SelectionRun(tasks="drc-v0", split="test", ns=(10, 20), methods=("one-shot", "splittester"))
>>> run.candidates
20
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
import urllib.parse
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from chipgym.baselines.ray_actors import actor_class, map_unordered, ray_session
from chipgym.baselines.selection.bench import TestBench, bench_pool
from chipgym.baselines.selection.candidates import CandidateGenerator, LlmCandidates, OfflineCandidates
from chipgym.baselines.selection.generated_tests import (
    GeneratedTest,
    GeometricTests,
    LlmTests,
    TestGenerator,
    test_from_action,
)
from chipgym.baselines.selection.grading import CandidateGrader
from chipgym.baselines.selection.judge import Judge, LlmJudge, OfflineJudge
from chipgym.baselines.selection.method import BUDGET, Generators
from chipgym.baselines.selection.methods import METHODS
from chipgym.baselines.selection.metrics import summarize, table
from chipgym.errors import InfrastructureError
from chipgym.tasks.drc.load import load_tasks
from chipgym.tasks.drc.rule2drc import TASK_ID

GENERATORS = ("offline", "openai")
VOLATILE = ("seconds", "node")


@dataclass(frozen=True)
class SelectionRun:
    tasks: str = "drc-v0"
    split: str = "test"
    methods: tuple[str, ...] = tuple(METHODS)
    ns: tuple[int, ...] = (10,)
    seed: int = 0
    generator: str = "offline"
    llm: dict[str, Any] | None = None  # the LlmConfig's fields, for the openai generator
    budget: int = BUDGET
    limit: int | None = None
    metric: str = "chipgym"
    timeout: float = 20.0  # seconds of one deck on one layout
    label_noise: float = 0.0  # offline generator: probability that a test's label is also flipped

    def __post_init__(self):
        if self.generator not in GENERATORS:
            raise ValueError(f"--generator: expected offline or openai, got {self.generator!r}")
        if self.generator == "openai" and not self.llm:
            raise ValueError("--generator openai: needs --base-url and --model (or $CHIPGYM_LLM_*)")
        if not self.ns or min(self.ns) < 1:
            raise ValueError(f"--n: expected candidate counts of at least 1, got {self.ns}")
        if self.budget < 0:
            raise ValueError(f"--budget: expected at least 0, got {self.budget}")
        if unknown := [m for m in self.methods if m not in METHODS]:
            raise ValueError(f"--method: unknown {unknown[0]!r}")

    @property
    def candidates(self) -> int:
        return max(self.ns)


def task_ids(run: SelectionRun) -> list[str]:
    ids = [task.id for task in load_tasks(run.tasks, run.split)]
    return ids[:run.limit] if run.limit is not None else ids


def generators_for(run: SelectionRun) -> tuple[CandidateGenerator, TestGenerator, Judge]:
    if run.generator == "openai":
        from chipgym.baselines.llm import LlmConfig

        config = LlmConfig(**run.llm)
        return LlmCandidates(config), LlmTests(config), LlmJudge(config)
    return OfflineCandidates(), GeometricTests(run.label_noise), OfflineJudge()


class SelectionWorker:
    """One task at a time (:meth:`select`), with a test bench and a grader of its own: a Ray actor, or the
    local run's only worker."""

    def __init__(self, run: SelectionRun):
        self.run = run
        self.tasks = {task.id: task for task in load_tasks(run.tasks, run.split)}
        self.candidates, tests, judge = generators_for(run)
        self.bench = TestBench(bench_pool(1, run.timeout))
        self.generators = Generators(tests, judge, self.bench)
        self.grader = CandidateGrader(1, run.timeout, run.metric)

    def select(self, task_id: str) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            record = self._select(task_id)
        except InfrastructureError as error:
            record = {"task": task_id, "unavailable": f"{type(error).__name__}: {error}"[:2000]}
        return {**record, "seconds": time.perf_counter() - start, "node": _ray_node()}

    def graded(self) -> int:
        """Decks this worker ran on hidden layouts (not found in the grade cache)."""
        return self.grader.graded

    def close(self) -> None:
        self.bench.pool.close()
        self.grader.close()

    def _select(self, task_id: str) -> dict[str, Any]:
        run, task = self.run, self.tasks[task_id]
        view = task.agent_view()  # all that selection sees
        candidates = self.candidates.generate(view, run.candidates, run.seed)
        decks = list(dict.fromkeys(c.deck for c in candidates))
        grades = self.grader.grades(task, decks)
        record: dict[str, Any] = {
            "task": task.id, "group": task.group, "decks": decks,
            "candidates": [{"origin": c.origin, "deck": decks.index(c.deck), "success": grades[c.deck].success,
                            "error": grades[c.deck].error} for c in candidates],
            "selections": {},
        }
        generated: dict[bytes, GeneratedTest] = {}
        for n in run.ns:
            chosen = record["selections"][str(n)] = {}
            for name in run.methods:
                selection = METHODS[name](view, candidates[:n], self.generators, run.budget, run.seed)
                grade = grades[selection.deck]
                chosen[name] = {**selection.to_dict(), "success": grade.success, "error": grade.error}
                for test in selection.trace.get("tests", ()):
                    if "action" in test and test["expected"]:
                        parsed = test_from_action(test["action"], task.categories, test["origin"])
                        generated.setdefault(parsed.gds, parsed)
        record["labels"] = self._check_labels(task, list(generated.values()))
        return record

    def _check_labels(self, task, tests: list[GeneratedTest]) -> dict[str, int]:
        """How many of the generated tests' labels the gold deck contradicts."""
        gold = self.grader.gold_outputs(task, tests)
        checked = wrong = 0
        for test, output in zip(tests, gold):
            for category, expected in test.expected.items():
                checked += 1
                wrong += isinstance(output, str) or output[task.categories.index(category)] != expected
        return {"checked": checked, "wrong": wrong}


def run_selection(run: SelectionRun, out: Path, workers: int | None = None, ray_address: str | None = None,
                  progress: bool = True) -> dict[str, Any]:
    """Runs ``run`` on every task (on Ray when ``workers`` or ``ray_address`` is given), writes
    ``out/tasks/<task>.json`` (:func:`record_path`), ``out/summary.json`` and ``out/table.md``, and returns the
    summary."""
    ids = task_ids(run)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    records: dict[str, dict[str, Any]] = {}
    bar = tqdm(total=len(ids), desc="tasks", unit="task", file=sys.stderr, disable=not progress)

    def done(task_id: str, record: dict[str, Any]) -> None:
        records[task_id] = record
        record_path(out, task_id).write_text(json.dumps(record, indent=1))
        hits = sum(r.get("selections", {}).get(str(run.ns[-1]), {}).get(run.methods[-1], {}).get("success", False)
                   for r in records.values())
        bar.set_postfix_str(f"{run.methods[-1]}@{run.ns[-1]} {hits}/{len(records)}")
        bar.update()

    wall = time.perf_counter()
    if workers is None and ray_address is None:
        worker = SelectionWorker(run)
        try:
            for task_id in ids:
                done(task_id, worker.select(task_id))
        finally:
            worker.close()
    else:
        with ray_session(workers or 1, ray_address, "chipgym select") as ray:
            Worker = actor_class(ray, SelectionWorker)
            map_unordered(ray, lambda: Worker.remote(run), ids, lambda actor, task_id: actor.select.remote(task_id),
                          workers or 1, done,
                          lambda task_id, error: {"task": task_id, "unavailable": f"the Ray actor was lost: "
                                                                                 f"{type(error).__name__}"})
    bar.close()
    ordered = [records[task_id] for task_id in ids]
    summary = {"run": asdict(run) | {"llm": _public(run.llm)}, **summarize(ordered, time.perf_counter() - wall)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    (out / "table.md").write_text(table(summary) + "\n")
    return summary


def record_path(out: Path, task_id: str) -> Path:
    """``out/tasks/<task>.json``. An id that is not a plain file name (``drc-v1/sky130-0000``, ``../x``) is
    percent-encoded, so every id has a file of its own, directly in ``out/tasks``.

    >>> [record_path(Path("out"), i).name for i in ("sky130-0000", "drc-v1/sky130-0000", "../../x")]
    ['sky130-0000.json', 'drc-v1%2Fsky130-0000.json', '..%2F..%2Fx.json']
    """
    data = task_id.encode(errors="surrogatepass")
    name = task_id if TASK_ID.fullmatch(task_id) else urllib.parse.quote(data, safe="")
    if len(name) > 200:  # a file name has at most 255 bytes
        name = f"{name[:150]}-{hashlib.sha256(data).hexdigest()[:16]}"
    return out / "tasks" / f"{name}.json"


def _ray_node() -> str:
    """The Ray node this runs on ('' outside Ray)."""
    ray = sys.modules.get("ray")
    return ray.get_runtime_context().get_node_id() if ray is not None and ray.is_initialized() else ""


def _public(llm: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if llm is None else {k: v for k, v in llm.items() if k != "api_key"}
