"""A parametric design generator for the ``cpu`` task: a knob vector in, a design folder out.

A design is one of the two fixtures (``pipeline``: ``multicycle`` or ``five-stage``, the ``pipelined``
fixture) with the edits of every knob value that is not the fixture's own applied, in the order of
:data:`KNOBS`. The edits of a value live in ``knobs/<knob>-<value>/edits.toml`` (``[[FIXTURE.edit]]``
tables, see :mod:`chipgym.tasks.chip.edits`), with any extra RTL files in ``knobs/<knob>-<value>/rtl/``;
each edits the RTL and sets a constant of the fixture's timing model, so every design's model is its
fixture's model.

Knobs (the first value of each is the fixtures'):

- ``pipeline``: ``multicycle`` | ``five-stage``
- ``forwarding``: ``full`` (MEM and WB results forwarded to EX) | ``none`` (ID waits for write-back)
- ``branch``: ``predict-not-taken`` (fetch on, flush on a redirect) | ``stall`` (no fetch past a branch or
  jump until it resolves in EX)
- ``multiplier``: ``single-cycle`` (a 32 x 32 array) | ``iterative`` (11 bits a cycle, a MUL takes 3 cycles)
- ``period``: an index into the profile's grid of clock periods, :data:`PERIODS_PS` (the design declares
  the period of that index for every profile)

``forwarding`` and ``branch`` mean nothing to the multicycle core: :meth:`Knobs.canonical` sets them to
their first value there, so their combinations collapse to one design (:func:`designs` lists each once).

>>> import tempfile
>>> knobs = Knobs(pipeline="five-stage", forwarding="none", multiplier="iterative", period=0)
>>> folder = generate(knobs, Path(tempfile.mkdtemp()) / "design")
>>> sorted(p.name for p in (folder / "rtl").iterdir())
['chipgym_cpu.v', 'chipgym_mul_iterative.v']
>>> Knobs(pipeline="multicycle", branch="stall").canonical() == Knobs(pipeline="multicycle")
True
>>> len(designs())
30
"""
from __future__ import annotations

import itertools
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from chipgym.tasks.chip.edits import apply_edits, load_edits

HERE = Path(__file__).parent
KNOB_EDITS = HERE / "knobs"
FIXTURES = HERE / "fixtures"

KNOBS: dict[str, tuple[str, ...]] = {
    "pipeline": ("multicycle", "five-stage"),
    "forwarding": ("full", "none"),
    "branch": ("predict-not-taken", "stall"),
    "multiplier": ("single-cycle", "iterative"),
}
"""every knob but the period, with its values; the first is the fixtures'"""
FIXTURE = {"multicycle": "multicycle", "five-stage": "pipelined"}
"""the fixture each pipeline starts from"""
FIVE_STAGE_ONLY = ("forwarding", "branch")

PERIODS_PS: dict[str, tuple[int, ...]] = {
    "osu018": (6600, 7300, 8000),
    "asap7": (2500, 3500, 5000),
}
"""the clock periods a design may declare, per profile (ps). asap7's start at the memories' 2,500 ps
latency: the five-stage core's timing model wants 1-cycle memories."""
DEFAULT_PROFILE = "osu018"


@dataclass(frozen=True)
class Knobs:
    pipeline: str = "multicycle"
    forwarding: str = "full"
    branch: str = "predict-not-taken"
    multiplier: str = "single-cycle"
    period: int = len(PERIODS_PS[DEFAULT_PROFILE]) - 1
    """index into :data:`PERIODS_PS`"""

    def __post_init__(self) -> None:
        for name, values in KNOBS.items():
            if getattr(self, name) not in values:
                raise ValueError(f"{name}: expected one of {values}, got {getattr(self, name)!r}")
        if not 0 <= self.period < len(PERIODS_PS[DEFAULT_PROFILE]):
            raise ValueError(f"period: expected an index below {len(PERIODS_PS[DEFAULT_PROFILE])}, got {self.period}")

    def canonical(self) -> Knobs:
        """The same design with the knobs it ignores at their first value."""
        if self.pipeline == "five-stage":
            return self
        return replace(self, **{name: KNOBS[name][0] for name in FIVE_STAGE_ONLY})

    def period_ps(self, profile: str) -> int:
        return PERIODS_PS[profile][self.period]

    @property
    def name(self) -> str:
        """A short name of the canonical design, e.g. ``five-stage/fwd-none/br-stall/mul-iterative/p0``."""
        k = self.canonical()
        parts = [k.pipeline]
        if k.pipeline == "five-stage":
            parts += [f"fwd-{k.forwarding}", f"br-{k.branch}"]
        return "/".join([*parts, f"mul-{k.multiplier}", f"p{k.period}"])

    def to_action(self) -> list[int]:
        """The knob vector: each knob's value index, then the period index."""
        return [KNOBS[name].index(getattr(self, name)) for name in KNOBS] + [self.period]

    @classmethod
    def from_action(cls, action) -> Knobs:
        """The knobs of a knob vector (see :meth:`to_action`); raises ValueError naming the knob at fault."""
        values = [int(v) for v in action]
        if len(values) != len(KNOBS) + 1:
            raise ValueError(f"action: expected {len(KNOBS) + 1} knob indices, got {len(values)}")
        chosen = {}
        for (name, options), index in zip(KNOBS.items(), values):
            if not 0 <= index < len(options):
                raise ValueError(f"{name}: expected an index below {len(options)}, got {index}")
            chosen[name] = options[index]
        return cls(**chosen, period=values[-1])


def action_sizes() -> list[int]:
    """The number of choices of each entry of the knob vector (a MultiDiscrete's ``nvec``)."""
    return [len(values) for values in KNOBS.values()] + [len(PERIODS_PS[DEFAULT_PROFILE])]


def designs() -> list[Knobs]:
    """Every distinct design once, in the order of the knob vectors."""
    every = (Knobs.from_action(v) for v in itertools.product(*(range(n) for n in action_sizes())))
    return list(dict.fromkeys(k.canonical() for k in every))


def generate(knobs: Knobs, dest: str | Path) -> Path:
    """Write the design of ``knobs`` to ``dest`` (a new folder) and return it."""
    knobs, dest = knobs.canonical(), Path(dest)
    fixture = FIXTURE[knobs.pipeline]
    shutil.copytree(FIXTURES / fixture, dest)
    for name in KNOBS:
        value = getattr(knobs, name)
        if name == "pipeline" or value == KNOBS[name][0]:
            continue
        folder = KNOB_EDITS / f"{name}-{value}"
        apply_edits(dest, load_edits(folder / "edits.toml", fixture), f"knob {name}={value}")
        for source in sorted((folder / "rtl").glob("*.v")):
            shutil.copy(source, dest / "rtl" / source.name)
    (dest / "design.toml").write_text(_design_toml(knobs))
    return dest


def _design_toml(knobs: Knobs) -> str:
    settings = ", ".join(f"{name} {value}" for name, value in asdict(knobs).items() if name != "period")
    lines = [f"# Generated by chipgym.tasks.chip.cpu.generator: {settings}", 'top = "chipgym_cpu"',
             f"clock_period_ps = {knobs.period_ps(DEFAULT_PROFILE)}"]
    for profile in PERIODS_PS:
        if profile != DEFAULT_PROFILE:
            lines += ["", f"[profile.{profile}]", f"clock_period_ps = {knobs.period_ps(profile)}"]
    return "\n".join(lines) + "\n"

