"""What scoring needs from a Liberty (.lib) cell library: areas, leakage, pin capacitances, the Boolean
function of every output, flip-flops, and internal energy per transition; all in SI units.

Parsing a large library takes seconds (ASAP7's five files hold 45 MB), so :func:`load_library` caches the
result by the files' content hash under ``$CHIPGYM_CACHE/liberty``.

>>> lib = load_library(["/usr/share/qflow/tech/osu018/osu018_stdcells.lib"])
>>> nand = lib.cells["NAND2X1"]
>>> nand.area_um2, nand.outputs["Y"], round(nand.inputs["A"] * 1e15, 2)    # um^2, function, fF
(24.0, '(!(A B))', 12.5)
>>> lib.cells["DFFPOSX1"].ff["clocked_on"], lib.voltage
('CLK', 1.8)
"""
from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from chipgym.cache import default_cache
from chipgym.errors import LibertyError

PARSER_VERSION = "3"

_TOKEN = re.compile(
    r"""/\*.*?\*/                                            # comment
      | (?P<group>[\w.]+)\s*\((?P<gargs>[^)]*)\)\s*\{          # group header: name (args) {
      | (?P<close>\})
      | (?P<cattr>[\w.]+)\s*\((?P<cargs>(?:[^)"]|"[^"]*")*)\)\s*;?   # complex attribute: name (args);
      | (?P<sattr>[\w.]+)\s*:\s*(?P<value>"[^"]*"|[^;\n]*?)\s*(?:;|(?=\n))  # name : value; (ASAP7 omits some ;)
      | \\\n | \s+
    """,
    re.S | re.X,
)
_SCALE = {"": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15}


@dataclass
class Group:
    kind: str
    args: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    complex: dict[str, list[str]] = field(default_factory=dict)
    groups: list["Group"] = field(default_factory=list)

    def children(self, kind: str) -> Iterator["Group"]:
        return (g for g in self.groups if g.kind == kind)


@dataclass
class EnergyTable:
    """Energy (J) of one transition over input slew (s) and output load (F): the mean of the rise and fall
    tables of an ``internal_power`` group. Each part is (slew axis, load axis, grid[slew][load]); an axis of
    length 1 is constant."""

    parts: list[tuple[list[float], list[float], list[list[float]]]]

    def at(self, slew: float, load: float) -> float:
        energies = []
        for slews, loads, grid in self.parts:
            rows = [float(np.interp(load, loads, row)) for row in grid]
            energies.append(float(np.interp(slew, slews, rows)))
        return sum(energies) / len(energies)


@dataclass
class Cell:
    name: str
    area_um2: float
    leakage_w: float
    inputs: dict[str, float]  # pin -> capacitance (F)
    outputs: dict[str, str]  # pin -> Liberty function ("" when the cell has none, e.g. a tie cell's is "0"/"1")
    output_energy: dict[str, list[EnergyTable]]  # pin -> one table per related pin (rise and fall averaged)
    input_energy: dict[str, list[EnergyTable]]  # pin -> tables of energy spent when the input itself toggles
    ff: dict[str, str] | None = None  # the ``ff`` group: iq, iqn, clocked_on, next_state, clear, preset
    latch: bool = False
    tristate: bool = False  # an output has a ``three_state`` condition


@dataclass
class Library:
    names: list[str]
    voltage: float
    cap_unit_f: float  # the capacitance unit of the (first) file, in F
    time_unit_s: float
    cells: dict[str, Cell]

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> "Library":
        data = json.loads(text)
        cells = {}
        for name, c in data["cells"].items():
            for key in ("output_energy", "input_energy"):
                c[key] = {pin: [EnergyTable(t["parts"]) for t in tables] for pin, tables in c[key].items()}
            cells[name] = Cell(**c)
        return Library(data["names"], data["voltage"], data["cap_unit_f"], data["time_unit_s"], cells)


def load_library(paths: Iterable[str | Path]) -> Library:
    """Parse and merge Liberty files (plain or gzipped), cached by their contents."""
    paths = [Path(p) for p in paths]
    digest = hashlib.sha256(PARSER_VERSION.encode())
    for path in paths:
        digest.update(path.read_bytes())
    if (cached := default_cache().get_bytes("liberty", f"{digest.hexdigest()}.json")) is not None:
        return Library.from_json(cached.decode())
    libraries = [_library(parse(path)) for path in paths]
    first = libraries[0]
    merged = Library([n for lib in libraries for n in lib.names], first.voltage, first.cap_unit_f, first.time_unit_s,
                     {name: cell for lib in libraries for name, cell in lib.cells.items()})
    default_cache().put_bytes("liberty", f"{digest.hexdigest()}.json", merged.to_json().encode())
    return merged


def parse(path: str | Path) -> Group:
    """The top ``library`` group of a Liberty file."""
    text = _read(Path(path))
    root = Group("", [])
    stack = [root]
    for m in _TOKEN.finditer(text):
        if m.group("group"):
            g = Group(m.group("group"), _split_args(m.group("gargs")))
            stack[-1].groups.append(g)
            stack.append(g)
        elif m.group("close"):
            if len(stack) == 1:
                raise LibertyError(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: unbalanced '}}'")
            stack.pop()
        elif m.group("cattr"):
            stack[-1].complex[m.group("cattr")] = _split_args(m.group("cargs"))
        elif m.group("sattr"):
            stack[-1].attrs[m.group("sattr")] = m.group("value").strip('"')
    libraries = list(root.children("library"))
    if len(stack) != 1 or not libraries:
        raise LibertyError(f"{path}: not a complete Liberty library (unclosed group or no library group)")
    return libraries[0]


def cell_texts(path: str | Path) -> Iterator[tuple[str, str]]:
    """(cell name, the text of its ``cell (...) { ... }`` group) for each cell of a Liberty file, in order."""
    text = _read(Path(path))
    for m in re.finditer(r"^\s*cell\s*\(\s*\"?([\w.]+)\"?\s*\)\s*\{", text, re.M):
        depth, i = 1, m.end()
        while depth:
            i = min((j for j in (text.find("{", i), text.find("}", i)) if j >= 0), default=-1)
            if i < 0:
                raise LibertyError(f"{path}: cell {m.group(1)} is not closed")
            depth += 1 if text[i] == "{" else -1
            i += 1
        yield m.group(1), text[m.start():i]


def header_text(path: str | Path) -> str:
    """The library group of a Liberty file up to its first cell (units, templates, operating conditions)."""
    text = _read(Path(path))
    first = re.search(r"^\s*cell\s*\(", text, re.M)
    return text[: first.start()] if first else text


def _read(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("latin-1")


def _split_args(text: str) -> list[str]:
    text = re.sub(r"\\\r?\n", " ", text)  # line continuations
    return [a.strip().strip('"').strip() for a in re.findall(r'"[^"]*"|[^,]+', text) if a.strip()]


def _unit(text: str, base: str) -> float:
    m = re.fullmatch(rf"\s*([\d.]+)\s*([munpf]?){base}\s*", text)
    if not m:
        raise LibertyError(f"unit {text!r} is not in {base}")
    return float(m.group(1)) * _SCALE[m.group(2)]


def _floats(args: list[str]) -> list[float]:
    return [float(v) for a in args for v in a.replace(" ", ",").split(",") if v]


def _library(lib: Group) -> Library:
    cap_value, cap_unit = lib.complex.get("capacitive_load_unit", ["1", "pf"])
    farad = float(cap_value) * _SCALE[cap_unit.lower()[:-1]]  # "pf" -> p
    second = _unit(lib.attrs.get("time_unit", "1ns"), "s")
    watt = _unit(lib.attrs.get("leakage_power_unit", "1nW"), "W")
    voltage = float(lib.attrs.get("nom_voltage", 0))
    joule = farad * _unit(lib.attrs.get("voltage_unit", "1V"), "V") ** 2  # internal energy: capacitance x voltage^2
    templates = {}
    for kind in ("power_lut_template", "lu_table_template"):
        for t in lib.children(kind):
            templates[t.args[0]] = [t.attrs.get(f"variable_{i}", "") for i in (1, 2)]
    cells = {}
    for c in lib.children("cell"):
        cells[c.args[0]] = _cell(c, templates, farad=farad, second=second, watt=watt, joule=joule)
    return Library([lib.args[0]], voltage, farad, second, cells)


def _cell(c: Group, templates: dict, *, farad: float, second: float, watt: float, joule: float) -> Cell:
    leakage = c.attrs.get("cell_leakage_power")
    if leakage is None:
        states = [float(g.attrs["value"]) for g in c.children("leakage_power") if "value" in g.attrs]
        leakage = sum(states) / len(states) if states else 0.0
    inputs, outputs, out_energy, in_energy = {}, {}, {}, {}
    tristate = False
    for pin in c.children("pin"):
        name, direction = pin.args[0], pin.attrs.get("direction")
        tables = [t for g in pin.children("internal_power") if (t := _energy(g, templates, farad, second, joule))]
        if direction == "input":
            inputs[name] = float(pin.attrs.get("capacitance", 0)) * farad
            unrelated = [t for g, t in zip(pin.children("internal_power"), tables) if "related_pin" not in g.attrs]
            if unrelated or tables:
                in_energy[name] = unrelated or tables
        elif direction == "output":
            outputs[name] = pin.attrs.get("function", "")
            tristate |= "three_state" in pin.attrs
            if tables:
                out_energy[name] = tables
    ff = next(c.children("ff"), None)
    ff_data = None
    if ff is not None:
        ff_data = {"iq": ff.args[0], "iqn": ff.args[1] if len(ff.args) > 1 else ""}
        ff_data.update({k: ff.attrs[k] for k in ("clocked_on", "next_state", "clear", "preset") if k in ff.attrs})
    return Cell(c.args[0], float(c.attrs.get("area", 0)), float(leakage) * watt, inputs, outputs, out_energy,
                in_energy, ff_data, latch=next(c.children("latch"), None) is not None, tristate=tristate)


def _energy(group: Group, templates: dict, farad: float, second: float, joule: float) -> EnergyTable | None:
    """The rise and fall tables of one ``internal_power`` group, converted to seconds, farads and joules."""
    parts = []
    for kind in ("rise_power", "fall_power", "power"):
        for t in group.children(kind):
            grid = np.array([_floats([row]) for row in t.complex.get("values", [])], dtype=float)
            if grid.size == 0:
                continue
            names = [v for v in templates.get(t.args[0] if t.args else "", ["", ""]) if v]
            axes = [_floats(t.complex.get(f"index_{i}", [])) for i in (1, 2)]
            slew, load = [0.0], [0.0]
            if grid.size > 1:
                for axis, name in zip(axes, names):
                    if "capacitance" in name:
                        load = [v * farad for v in axis]
                    elif "transition" in name:
                        slew = [v * second for v in axis]
                grid = grid.reshape(len(axes[0]), -1) if len(names) == 2 else grid.reshape(-1)
                if len(names) == 2 and "capacitance" in names[0]:
                    grid = grid.T
                elif len(names) == 1:
                    grid = grid.reshape(1, -1) if "capacitance" in names[0] else grid.reshape(-1, 1)
            parts.append((slew, load, (grid.reshape(len(slew), len(load)) * joule).tolist()))
    return EnergyTable(parts) if parts else None
