"""The score of a chip design: reward = 1 / (1 + cost), cost = (T / T0) x (E / E0) x (A / A0).

A design scores only if it passes every check of its task (simulation against the reference on public and,
with a grading seed, held-out workloads; timing-model lockstep; formal), its synthesized netlist is proven to be
the design synthesis started from (:mod:`chipgym.scoring.equivalence`) and still matches the reference and the
checked RTL's cycle counts on every workload the task runs at gate level (the cpu: every graded kernel and every
public fault program, with exact and with randomly stalled memories), and it meets timing at its declared clock
period with every flop clocked by the clock port. Then:

- **A**: cell area of the netlist, summed from the liberty's areas.
- **T** and **E**: from each graded workload's run on the netlist (the task's public graded workloads, plus its
  held-out ones with a grading seed), its time (cycles x period) and gate-level energy
  (:mod:`chipgym.scoring.energy`), combined by the task (:meth:`~chipgym.tasks.chip.task.ChipTask.cost_terms`;
  the cpu: the means per 10,000 instructions the reference retires).

The design's one clock period for the profile (see :mod:`chipgym.tasks.chip.design`) drives simulation (memory
wait states), synthesis, the timing check and T; grading never falls back to a slower clock. A failing design
scores 0 with the check and its first divergence; a tool that cannot run (missing, out of memory, timeout)
makes the score ``unavailable``, never 0.

>>> from chipgym.tasks.chip.registry import load_task
>>> score = score_design(load_task("cpu").fixtures["multicycle"], profile="osu018")    # doctest: +SKIP
>>> score.status, 0 < score.reward < 1                                                   # doctest: +SKIP
('ok', True)
"""
from __future__ import annotations

import hashlib
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from chipgym.cache import default_cache
from chipgym.engines.tools import cancelled_by
from chipgym.engines.versions import tool_version
from chipgym.errors import DesignError, ProfileMissingError, SynthesisError, ToolMissingError
from chipgym.results import Failure, JsonResult, Status
from chipgym.scoring.activity import GateSimulator, gate_simulator
from chipgym.scoring.energy import EnergyModel, energy_model
from chipgym.scoring.equivalence import EQUIVALENCE_VERSION, NotEquivalent, require_equivalence
from chipgym.scoring.liberty import PARSER_VERSION, load_library
from chipgym.scoring.profile import Profile, load_profile
from chipgym.scoring.synthesis import FLOW_VERSION, Netlist, synthesize
from chipgym.scoring.timing import Timing, check_timing
from chipgym.tasks.chip.check import check_design
from chipgym.tasks.chip.design import Design, load_design
from chipgym.tasks.chip.registry import load_task
from chipgym.tasks.chip.task import ChipTask
from chipgym.tasks.chip.verilator import build
from chipgym.tasks.grading_seed import grading_seed as resolve_seed
from chipgym.tasks.grading_seed import heldout_failure

SCORE_VERSION = "4"
SCORED_WITH = ("yosys", "verilator", "opensta")
"""the tools whose versions a score records"""


@dataclass
class ChipScore(JsonResult):
    status: Status
    """ok, failed (reward 0, see ``failures``) or unavailable (no verdict, see ``reason``)"""
    reward: float
    profile: str
    key: str
    """content hash of the design (timing model included), the profile, the flow and the graded workloads"""
    failures: list[Failure] = field(default_factory=list)
    reason: str = ""
    T_us: float | None = None
    E_nJ: float | None = None
    A_um2: float | None = None
    cost: float | None = None
    period_ps: int | None = None
    slack_ps: float | None = None
    cells: int | None = None
    cycles: int | None = None
    """over all graded workloads"""
    retired: int | None = None
    """over all graded workloads, for a task whose workloads count retired instructions (the cpu)"""
    workloads: dict[str, dict[str, float]] = field(default_factory=dict)
    graded_with: str = ""
    critical_path: str = ""
    tools: dict[str, str] = field(default_factory=dict)
    physical: dict[str, Any] | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    """wall time of each stage: the only field that differs between two scorings of one design"""

    def __post_init__(self) -> None:
        self.status = Status(self.status)
        self.failures = [Failure(*f) for f in self.failures]

    def summary(self) -> str:
        if self.status is not Status.OK:
            detail = self.reason or "; ".join(f"{c}: {d}" for c, d in self.failures[:3])
            return f"{self.status.upper()} ({self.profile}): {detail}"
        return (f"reward {self.reward:.4f} ({self.profile}): cost {self.cost:.4g} = T {self.T_us:.4g} us x "
                f"E {self.E_nJ:.4g} nJ x A {self.A_um2:.6g} um^2 in the profile's units; period {self.period_ps} ps, "
                f"slack {self.slack_ps} ps, {self.cells} cells")


def score_design(design_dir: str | Path, task: str = "cpu", profile: str = "osu018",
                 grading_seed: int | None = None, physical: bool = False,
                 on_stage: Callable[[str], None] | None = None) -> ChipScore:
    """Check, synthesize, time and simulate the design in ``design_dir``; cached by content.

    ``grading_seed`` (or ``$CHIPGYM_GRADING_SEED``) adds the held-out workloads; ``on_stage`` is called with
    each stage's name as it starts (for progress displays).
    """
    chip_task = load_task(task)
    stage = on_stage or (lambda name: None)
    try:
        prof = load_profile(profile)
    except ProfileMissingError as e:
        return ChipScore(Status.UNAVAILABLE, 0.0, profile, "", reason=str(e))
    try:
        design = load_design(design_dir, profile)
    except DesignError as e:
        return ChipScore(Status.FAILED, 0.0, profile, "", failures=[Failure("design", str(e))])
    seed = resolve_seed(grading_seed)
    seed_tag = hashlib.sha256(f"chipgym-seed:{seed}".encode()).hexdigest() if seed is not None else "public"
    key = design.digest(design.model_digest(), prof.digest, FLOW_VERSION, PARSER_VERSION, EQUIVALENCE_VERSION,
                        SCORE_VERSION, task, chip_task.digest, seed_tag, f"physical={physical}")
    if (cached := default_cache().get_json("scores", f"{key}.json")) is not None:
        return ChipScore.from_dict(cached)
    score = ChipScore(Status.OK, 0.0, profile, key, period_ps=design.clock_period_ps,
                      graded_with=f"public and held-out {chip_task.workload_noun}" if seed is not None
                      else f"public {chip_task.workload_noun}")
    try:
        _score(chip_task, design, prof, seed, physical, score, stage)
    except OSError as e:  # an InfrastructureError, or the machine's own (a full disk, ...)
        score.status, score.reason = Status.UNAVAILABLE, str(e)
    if score.status is Status.OK:
        score.reward = 1.0 / (1.0 + score.cost)
    else:
        score.reward = 0.0
    if score.status is not Status.UNAVAILABLE:
        default_cache().put_json("scores", f"{key}.json", score.to_dict())
    return score


@dataclass(frozen=True)
class _Implementation:
    netlist: Netlist
    proof: Future
    """the equivalence proof, running beside timing and the gate-level work: NotEquivalent when it fails"""
    timing: Timing
    simulator: GateSimulator | None
    """None when timing is not met"""
    energy: EnergyModel | None


def _implement(task: ChipTask, design: Design, prof: Profile, timed, pool: ThreadPoolExecutor,
               unneeded: threading.Event) -> _Implementation:
    """Synthesis, then beside the equivalence proof timing and the gate-level simulator: what needs the netlist
    but not the check's verdict."""
    with timed("synthesis"):
        netlist = synthesize(design, prof, task.simulation_ports)

    def prove() -> None:
        with timed("equivalence"):
            require_equivalence(netlist, prof)
    proof = pool.submit(_cancellable, unneeded, prove)
    with timed("timing"):
        timing = check_timing(netlist, prof, design.clock_period_ps)
    if not timing.met:
        return _Implementation(netlist, proof, timing, None, None)
    with timed("gate-level build"):
        library = load_library(prof.liberty)
        simulator = gate_simulator(netlist, library, design.clock_period_ps, task.harness)
        model = energy_model(simulator.module, simulator.netlist.nets, library, prof.input_slew_ps * 1e-12,
                             prof.output_load_ff * 1e-15)
    return _Implementation(netlist, proof, timing, simulator, model)


def _cancellable(unneeded: threading.Event, work: Callable[..., Any], *args) -> Any:
    """``work(*args)``, whose tool runs stop once ``unneeded`` is set."""
    with cancelled_by(unneeded):
        return work(*args)


def _score(task: ChipTask, design: Design, prof: Profile, seed: int | None, physical: bool, score: ChipScore,
           stage) -> None:
    @contextmanager
    def timed(name: str):
        stage(name)
        start = time.monotonic()
        try:
            yield
        finally:
            score.seconds[name] = round(time.monotonic() - start, 3)

    prof.require_files()
    score.tools = {name: tool_version(name) or "missing" for name in SCORED_WITH}
    for tool, version in score.tools.items():
        if version == "missing":
            raise ToolMissingError(tool, "bash run.sh setup")
    # synthesis, the equivalence proof and the gate-level work run beside the check and each other: on two cores
    # that halves a cold score's wall time; a failed check stops them (their tools, at once), so a failing
    # design costs no more than its check
    unneeded = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        implementation = pool.submit(_cancellable, unneeded, _implement, task, design, prof, timed, pool, unneeded)
        try:
            _measure(task, design, prof, seed, score, stage, timed, implementation)
        finally:
            unneeded.set()  # whatever is still running is not needed
    if physical and score.status is Status.OK:
        from chipgym.scoring.physical import place_and_route

        with timed("physical"), tempfile.TemporaryDirectory(prefix="chipgym-gds-") as out:
            result = place_and_route(design, Path(out))
            if result.gds:
                gds = default_cache().put_bytes("physical", f"{score.key}.gds", Path(result.gds).read_bytes())
                result.gds = str(gds)
            score.physical = result.to_dict()


def _measure(task: ChipTask, design: Design, prof: Profile, seed: int | None, score: ChipScore, stage, timed,
             implementation: Future) -> None:
    """The check, then what the implementation measures, into ``score``. The first failure in the order check,
    synthesis, equivalence, timing, gate level is the score's, whichever finished first."""
    with timed("check"):
        report = check_design(design.root, task.name, profile=prof.name, grading_seed=seed,
                              on_check=lambda c: stage(f"check: {c}"))
    if not report.passed:
        score.status, score.failures = Status.FAILED, list(report.failures)
        return
    try:
        built = implementation.result()
    except SynthesisError as e:  # UnsupportedCell too
        score.status, score.failures = Status.FAILED, [Failure("synthesis", str(e))]
        return

    def refused() -> bool:
        try:
            built.proof.result()
        except NotEquivalent as e:
            score.status, score.failures = Status.FAILED, [Failure("equivalence", str(e))]
            return True
        return False

    def measured() -> None:
        score.A_um2, score.cells = built.netlist.area_um2, built.netlist.cells
        score.slack_ps, score.critical_path = built.timing.slack_ps, built.timing.critical_path

    if built.simulator is None:
        if not refused():
            measured()
            score.status = Status.FAILED
            score.failures = [Failure("timing", built.timing.problems[0] if built.timing.problems else
                                      f"worst slack {built.timing.slack_ps} ps at the declared period of "
                                      f"{design.clock_period_ps} ps (critical path {built.timing.arrival_ps:.1f} ps)")]
        return
    workloads, figures = task.scored_workloads(seed), {}
    with timed("gate-level simulation"):
        rtl = build(design, task.harness)  # the checked simulator, from the cache
        for workload in workloads:
            stage(f"gate-level: {workload.name}")
            run = task.gate_level(built.simulator.binary, rtl, design, workload)
            if run.problem:
                if not refused():
                    measured()
                    problem = run.problem if workload.heldout is None else heldout_failure(task.workload)
                    score.status = Status.FAILED
                    score.failures = [Failure("gate-level", f"synthesized netlist: {problem}")]
                return
            if not workload.graded:
                continue
            seconds = run.cycles * design.clock_period_ps * 1e-12
            joules = built.energy.energy(run.toggles, seconds)
            figures[workload.name] = {"cycles": run.cycles, **run.figures, "T_us": seconds * 1e6,
                                      "E_nJ": joules * 1e9}
    if refused():
        return
    measured()
    score.workloads = figures
    runs = score.workloads.values()
    score.cycles = sum(r["cycles"] for r in runs)
    if all("retired" in r for r in runs):
        score.retired = sum(r["retired"] for r in runs)
    score.T_us, score.E_nJ = task.cost_terms(score.workloads)
    score.cost = prof.cost(score.T_us, score.E_nJ, score.A_um2)


@dataclass(frozen=True)
class Estimate(JsonResult):
    """Area and timing of a design without the checks: feedback, not a score."""

    profile: str
    area_um2: float
    cells: int
    period_ps: int
    slack_ps: float
    critical_path: str
    timing_problems: list[str]
    """what fails timing whatever the slack (see :mod:`chipgym.scoring.timing`)"""


def estimate(design_dir: str | Path, task: str = "cpu", profile: str = "osu018") -> Estimate:
    """Synthesize and time the design at its declared period (raises SynthesisError, FlowUnavailable)."""
    chip_task, design, prof = load_task(task), load_design(design_dir, profile), load_profile(profile)
    netlist = synthesize(design, prof, chip_task.simulation_ports)
    timing = check_timing(netlist, prof, design.clock_period_ps)
    return Estimate(profile, netlist.area_um2, netlist.cells, design.clock_period_ps, timing.slack_ps,
                    timing.critical_path, timing.problems)

