"""The chip-task interface: everything the env, the checks, the scorer and gate-level energy know of a task.

A task is a folder ``tasks/chip/<name>/`` with a ``task.toml`` (its identity, the files it shows an agent,
its trusted harness and port contract, what is hidden) and a :class:`ChipTask` subclass that adds what only
the task knows: its workloads (public, and held-out under a seed), its :class:`Testbench` (the reference's
answer, one RTL run, the timing model's lockstep), how to run a workload on a synthesized netlist, and how the
runs become T and E. :meth:`ChipTask.check` is the same for every task: structural checks, each workload exact
and then stalled, lockstep, formal, with held-out failures kept secret here, not by each task.
:mod:`chipgym.tasks.chip.registry` maps names to tasks.

>>> from chipgym.tasks.chip.registry import load_task
>>> task = load_task("cpu")
>>> task.name, task.top, task.simulation_ports[:2], sorted(task.fixtures)
('cpu', 'chipgym_cpu', ('ret_valid', 'ret_pc'), ['multicycle', 'pipelined'])
>>> sorted(task.agent_text())
['contracts', 'ports', 'task', 'workloads']
"""
from __future__ import annotations

import tomllib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Mapping, Protocol, Sequence

from chipgym.cache import folder_digest
from chipgym.errors import DataError, TimingModelError
from chipgym.tasks.chip.design import Design
from chipgym.tasks.chip.formal import formal_check
from chipgym.tasks.chip.mutants import Mutant, load_mutants
from chipgym.tasks.chip.ports import PortContract, load_ports
from chipgym.tasks.chip.pysim import Stepper
from chipgym.tasks.chip.report import CheckReport
from chipgym.tasks.chip.structural import structural_checks
from chipgym.tasks.grading_seed import grading_seed as resolve_seed
from chipgym.tasks.grading_seed import heldout_failure

TIMED_OUT = "timed out after"  # in the error of a simulation that run_tool killed


def stall_seed(index: int, rerun: int = 1) -> int:
    """The seed of the random memory stalls (or ejection back-pressure) of a check's ``rerun``-th stalled run of its
    ``index``-th workload (the public ones in :meth:`ChipTask.public_workloads` order, then the held-out ones)."""
    return rerun * 7919 + index


@dataclass(frozen=True)
class Workload:
    """One workload the scorer runs on the synthesized netlist."""

    name: str
    graded: bool
    """counted in T and E; False: only checked at gate level (the cpu's fault programs)"""
    heldout: int | None
    """its index among the held-out workloads (a failure on it may say no more), None for a public one"""
    data: Any = field(repr=False, compare=False)
    """what the task needs to run it (the cpu: the reference's run of the program)"""


@dataclass(frozen=True)
class GateRun:
    """A workload's run on the synthesized netlist."""

    workload: str
    cycles: int
    """cycles until the run ended (the cpu: halted or faulted; a network: drained)"""
    toggles: list[int]
    """per bit of the netlist's ``chipgym_nets`` port, the cycles in which it changed (the energy's input)"""
    problem: str | None
    """the first way the netlist's run (or the checked RTL's, beside it) differs from what the task requires"""
    figures: dict[str, int] = field(default_factory=dict)
    """the task's own counts for the score's workload record (the cpu: ``{"retired": N}``)"""


class Testbench(Protocol):
    """A task's runs of one design in its check (:meth:`ChipTask.testbench`); a workload is whatever the task's
    :meth:`ChipTask.check_workloads` lists (a program, a traffic trace), with a ``name``."""

    def expected(self, workload: Any) -> Any:
        """What the reference makes of ``workload`` (the cpu: its untimed run; the noc: the trace itself)."""

    def run(self, workload: Any, expected: Any, stall_seed: int | None) -> tuple[Any, str | None]:
        """The design's run of ``workload`` (exact with ``stall_seed`` None, else under the task's stalls of that
        seed) and its first divergence from ``expected``, None when there is none."""

    def stats(self, workload: Any, run: Any) -> dict[str, int]:
        """The figures of a passing exact run for ``report.stats`` (``cycles`` and the task's own)."""

    def lockstep(self, runs: Sequence[tuple[Any, Any]]) -> list[str | None]:
        """The timing model's disagreement with each exact run, as (expected, run), None where it agrees;
        TimingModelError when the model fails as a whole."""


class ChipTask(ABC):
    """A chip task, described by ``folder/task.toml``; subclasses implement the abstract methods."""

    workload: str
    """what one workload of the check is called in feedback ("program", "traffic trace")"""
    stalls: ClassVar[str]
    """what the check's reruns of a workload add, in feedback ("random stalls", "ejection back-pressure")"""
    formal_depth: ClassVar[int]
    """cycles after reset that the formal gate covers"""
    simulate_help: str | None = None
    """the env's ``simulate`` action on this task (an example and what it shows), for the actions' help; None
    when the task offers none (:meth:`stepper`)"""

    def __init__(self, folder: Path):
        self.folder = folder
        path = folder / "task.toml"
        try:
            meta = tomllib.loads(path.read_text())
            self.name: str = meta["name"]
            self.prompt: Path = folder / meta["prompt"]
            self.contracts: tuple[Path, ...] = tuple(folder / name for name in meta["contracts"])
            self.ports: Path = folder / meta["ports"]
            self.harness: Path = folder / meta["harness"]
            self.formal_properties: Path = folder / meta["formal_properties"]
            self.simulation_groups: tuple[str, ...] = tuple(meta["simulation_groups"])
            self.workload_noun: str = meta["workload_noun"]
            self.profiles: tuple[str, ...] = tuple(meta["profiles"])
        except KeyError as e:
            raise DataError(f"{path}: no key {e}") from None
        except (OSError, tomllib.TOMLDecodeError, TypeError) as e:
            raise DataError(f"{path}: {type(e).__name__}: {e}") from None
        files = (self.prompt, *self.contracts, self.ports, self.harness, self.formal_properties)
        missing = [p for p in files if not p.is_file()]
        if missing:
            raise DataError(f"{path}: names {missing[0].relative_to(folder)}, which is not a file")

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the task's own files (code, contracts, harness; not its fixtures, mutants or knobs): a score
        cached under it is redone when the task's checks, workloads or cost terms change."""
        return folder_digest(self.folder, lambda path: _design_or_cache(path, self.folder))

    @cached_property
    def port_contract(self) -> PortContract:
        return load_ports(self.ports)

    @property
    def top(self) -> str:
        """The top module every design of the task must have."""
        return self.port_contract.top

    @cached_property
    def simulation_ports(self) -> tuple[str, ...]:
        """Outputs only the trusted harness reads: synthesis makes them internal and drops what only feeds them."""
        return tuple(p.name for p in self.port_contract.ports if p.group in self.simulation_groups)

    @cached_property
    def fixtures(self) -> dict[str, Path]:
        """Starting points that pass every check: ``fixtures/<name>/`` with a design.toml."""
        folders = sorted(p for p in (self.folder / "fixtures").iterdir() if (p / "design.toml").is_file())
        return {p.name: p for p in folders}

    def agent_text(self) -> dict[str, str]:
        """What an agent is shown of the task: ``task`` (the prompt), ``contracts`` (each contract file under a
        ``== name ==`` header), ``ports`` (the port contract) and ``workloads``."""
        contracts = "\n\n".join(f"== {p.relative_to(self.folder)} ==\n{p.read_text()}" for p in self.contracts)
        return {"task": self.prompt.read_text(), "contracts": contracts, "ports": self.ports.read_text(),
                "workloads": self.workloads_text()}

    @abstractmethod
    def workloads_text(self) -> str:
        """The public workloads as an agent reads them (what the public check runs; that grading adds held-out ones)."""

    @abstractmethod
    def check_workloads(self) -> list[Any]:
        """The workloads of the public check, in its order."""

    @abstractmethod
    def heldout_check_workloads(self, grading_seed: int) -> list[Any]:
        """The held-out workloads that grading adds under ``grading_seed``."""

    @abstractmethod
    def testbench(self, design: Design, binary: Path) -> Testbench:
        """The runs of ``design``, whose simulator (this task's harness, built) is ``binary``."""

    def public_workloads(self) -> tuple[str, ...]:
        """Names of the workloads the public check runs (``check`` with ``heldout=False``), in its order."""
        return tuple(workload.name for workload in self.check_workloads())

    @cached_property
    def mutants(self) -> dict[str, Mutant]:
        """Fixtures with a small edit that a check must catch (``mutants/<name>/``), by name."""
        return load_mutants(self.folder)

    def check(self, design: Design, report: CheckReport, *, grading_seed: int | None = None, formal: bool = True,
              heldout: bool = True, workloads: Sequence[Any] | None = None, stall_seeds: tuple[int, ...] = (1,)
              ) -> None:
        """Run every check on ``design`` and record failures, ``report.timed`` timings and, per workload that
        passed, ``report.stats[name]`` in ``report``: the ports and the build (which stop the run), each workload
        exactly and, when that passes, under the stalls of each of ``stall_seeds``, the timing model in lockstep,
        and formal. ``workloads`` replace the public ones. Held-out workloads run when ``heldout`` and a grading
        seed resolves (:func:`chipgym.tasks.grading_seed.grading_seed`); a failure on one says only
        :func:`~chipgym.tasks.grading_seed.heldout_failure`, once per check, and the timing model sees them in a
        run of their own. A lockstep failure's detail starts with ``"<workload>:"`` (``"timing model:"`` when the
        model failed as a whole)."""
        if (binary := structural_checks(design, report, self.ports, self.harness)) is None:
            return
        items = list(workloads) if workloads is not None else self.check_workloads()
        public = len(items)
        if heldout and (seed := resolve_seed(grading_seed)) is not None:
            items += self.heldout_check_workloads(seed)

        def fail(check: str, index: int, detail: str) -> None:
            failure = (check, detail if index < public else heldout_failure(self.workload))
            if failure not in report.failures:
                report.fail(*failure)

        bench = self.testbench(design, binary)
        passed = []
        for index, item in enumerate(items):
            with report.timed("reference"):
                expected = bench.expected(item)
            with report.timed("functional"):
                exact, problem = bench.run(item, expected, None)
                for rerun in stall_seeds if problem is None else ():
                    seed_of_rerun = stall_seed(index, rerun)
                    if (problem := bench.run(item, expected, seed_of_rerun)[1]):
                        problem += f" [{self.stalls}, seed {seed_of_rerun}]"
                        break
            if problem and TIMED_OUT in problem:  # a simulator stuck inside a time step: each would wait as long
                fail("functional", index, f"{problem}; the remaining {self.workload}s were not run")
                break
            if problem:
                fail("functional", index, problem)
                continue
            report.stats[item.name] = bench.stats(item, exact)
            passed.append((index, expected, exact))
        with report.timed("lockstep"):
            for problem in _lockstep(bench, [run for run in passed if run[0] < public]):
                report.fail("lockstep", problem)
            hidden = [run for run in passed if run[0] >= public]
            if hidden and _lockstep(bench, hidden):
                report.fail("lockstep", heldout_failure(self.workload))
        if formal:
            with report.timed("formal"):
                for problem in formal_check(design, self.formal_properties, depth=self.formal_depth):
                    report.fail("formal", problem)

    @abstractmethod
    def scored_workloads(self, grading_seed: int | None) -> list[Workload]:
        """What the scorer runs at gate level, in order: the public graded workloads, the held-out ones of
        ``grading_seed`` (none when None), then any checked only."""

    def check_stall_seed(self, workload: Workload) -> int:
        """The stall seed the check's first stalled run of ``workload`` used: the gate-level stage runs the netlist
        and the checked RTL under it again, so that a design cannot tell that stage from the check."""
        public = self.public_workloads()
        heldout = workload.heldout
        return stall_seed(len(public) + heldout if heldout is not None else public.index(workload.name))

    @abstractmethod
    def gate_level(self, gate_binary: Path, rtl_binary: Path, design: Design, workload: Workload) -> GateRun:
        """Run ``workload`` on the netlist's simulator ``gate_binary`` (this task's harness built with
        ``-DCHIPGYM_GATE_LEVEL=WORDS``) and compare it with the reference and with the checked RTL's simulator
        ``rtl_binary``. A run that crashes is the design's problem (``GateRun.problem``), as in the check: the
        same experiment, and a crash says nothing about the machine."""

    def stepper(self, design: Design, program: str, stall_seed: int | None = None) -> Stepper:
        """A sandboxed session stepping ``design`` on ``program`` (a public workload's name, or a program text
        the task reads) for the env's ``simulate``, with the memory model of its check; ``stall_seed``, that
        check's random stalls of the seed. BuildError when the design does not build, another AgentError when
        the program cannot be read or run. A task without one raises NotImplementedError (the default)."""
        raise NotImplementedError(f"the {self.name} task offers no simulate")

    @abstractmethod
    def cost_terms(self, workloads: Mapping[str, Mapping[str, float]]) -> tuple[float, float]:
        """T (us) and E (nJ) of the score from the graded workloads' records (``cycles``, ``T_us``, ``E_nJ`` and
        the :attr:`GateRun.figures`, by workload name)."""


def _lockstep(bench: Testbench, passed: list[tuple[int, Any, Any]]) -> list[str]:
    """The timing model's disagreements with the exact runs ``passed`` (index, expected, run)."""
    try:
        problems = bench.lockstep([(expected, run) for _, expected, run in passed])
    except TimingModelError as e:
        return [f"timing model: {e}"]
    return [problem for problem in problems if problem]


def _design_or_cache(path: Path, folder: Path) -> bool:
    """Whether ``path`` is in a design folder (a fixture, mutant or knob edit) or a byte-code cache."""
    parts = path.relative_to(folder).parts
    return parts[0] in ("fixtures", "mutants", "knobs") or "__pycache__" in parts
