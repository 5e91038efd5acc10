"""Synthesis of a design to a gate-level netlist of a profile's cells, with Debian's Yosys 0.23, sandboxed.

Yosys reads the one canonical design that was checked (:mod:`chipgym.tasks.chip.canonical`); the
simulation-only ports the caller names (the retirement port) stop being ports, so the logic that only fed them
is removed and the rest is the checked design. Mapping buffers and sizes for the profile's driving cell and
output load: without it one unbuffered high-fanout net makes timing meaningless. Yosys 0.23's ``abc`` takes
one liberty file, so the profile's files are merged into one, without its ``dont_use`` cells.

The folder also keeps the design ``synth`` handed to ABC (:attr:`Netlist.handed_to_abc`), against which
:mod:`chipgym.scoring.equivalence` proves the netlist. Area and cell counts are computed here from the netlist
and the parsed liberty, not read from a report of the sandboxed tool. A netlist may hold only library cells
with an area, no latch, no tristate and no blackbox module. Netlists are cached by the design's content, the
stripped ports, the profile and this flow.

>>> from pathlib import Path
>>> from chipgym.scoring.profile import load_profile
>>> from chipgym.tasks.chip.design import load_design
>>> fixture = Path(__file__).parents[1] / "tasks" / "chip" / "cpu" / "fixtures" / "multicycle"
>>> netlist = synthesize(load_design(fixture), load_profile("osu018"))      # doctest: +SKIP
>>> netlist.area_um2 > 0, netlist.cells > 1000, netlist.verilog.exists()   # doctest: +SKIP
(True, True, True)
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from chipgym.cache import default_cache
from chipgym.engines import yosys
from chipgym.errors import SynthesisError
from chipgym.files import FileRefused
from chipgym.scoring.liberty import PARSER_VERSION, Library, cell_texts, header_text, load_library
from chipgym.scoring.profile import Profile
from chipgym.tasks.chip.design import Design

FLOW_VERSION = "3"


@dataclass(frozen=True)
class Netlist:
    folder: Path
    top: str
    area_um2: float
    cells: int
    cell_types: dict[str, int]
    seconds: float

    @property
    def verilog(self) -> Path:
        return self.folder / "netlist.v"

    @property
    def json(self) -> Path:
        return self.folder / "netlist.json"

    @property
    def handed_to_abc(self) -> Path:
        """The design as ``synth`` handed it to ABC (RTLIL): what the netlist is proven to be."""
        return self.folder / yosys.HANDED_TO_ABC


def synthesize(design: Design, profile: Profile, simulation_ports: tuple[str, ...] = ()) -> Netlist:
    """The cached netlist of ``design`` mapped to ``profile``'s cells, without the ``simulation_ports``."""
    # the area and the refused cells come from the parsed liberty
    key = design.digest(profile.digest, FLOW_VERSION, PARSER_VERSION, *simulation_ports)
    if (folder := default_cache().get_folder("synthesis", key)) is not None:
        return Netlist(folder=folder, **json.loads((folder / "result.json").read_text()))
    profile.require_files()
    liberty = synthesis_liberty(profile)
    with tempfile.TemporaryDirectory(prefix="chipgym-synth-") as tmp:
        work = Path(tmp)
        library = load_library(profile.liberty)
        seconds = yosys.synthesize(design.rtl, design.top, liberty, profile.driving_cell,
                                   profile.output_load_ff * 1e-15 / library.cap_unit_f, simulation_ports, work)
        try:
            netlist = json.loads(yosys.read_output(work / "netlist.json", yosys.MAX_JSON_BYTES))
        except FileRefused as refused:
            raise SynthesisError(f"the synthesized netlist is refused unread: {refused}") from None
        types = cell_types(netlist, design.top, library)
        area = sum(library.cells[t].area_um2 * n for t, n in types.items())
        meta = {"top": design.top, "area_um2": round(area, 4), "cells": sum(types.values()), "cell_types": types,
                "seconds": round(seconds, 3)}
        (work / "result.json").write_text(json.dumps(meta))
        folder = default_cache().put_folder("synthesis", key, {path.name: path for path in work.iterdir()})
    return Netlist(folder=folder, **meta)


def cell_types(netlist: dict, top: str, library: Library) -> dict[str, int]:
    """How many cells of each type the ``top`` module of a Yosys JSON ``netlist`` holds, refusing (with
    SynthesisError) blackbox modules and cells that are not plain library logic."""
    blackboxes = sorted(name for name in netlist["modules"] if name != top)
    if blackboxes:
        raise SynthesisError(f"module {blackboxes[0]} stayed a blackbox: every module must be synthesized")
    types = Counter(cell["type"] for cell in netlist["modules"][top]["cells"].values())
    for name in sorted(types):
        cell = library.cells.get(name)
        why = ("is not a cell of the library (a latch or a tristate?)" if cell is None else
               "is a latch" if cell.latch else "is a tristate" if cell.tristate else
               "has no area in the library" if cell.area_um2 <= 0 else "")
        if why:
            raise SynthesisError(f"the netlist holds {types[name]} cell(s) {name}, which {why}: refused")
    return dict(sorted(types.items()))


def synthesis_liberty(profile: Profile) -> Path:
    """One liberty file with every cell of the profile except its ``dont_use`` ones (cached)."""
    key = hashlib.sha256(profile.digest.encode() + FLOW_VERSION.encode())
    for path in profile.liberty:
        key.update(path.read_bytes())
    if (folder := default_cache().get_folder("synthesis-liberty", key.hexdigest()[:32])) is not None:
        return folder / "cells.lib"
    parts, templates = [header_text(profile.liberty[0])], set()
    for i, path in enumerate(profile.liberty):
        header = header_text(path)
        for m in re.finditer(r"^\s*(\w+_template)\s*\(\s*(\w+)\s*\)\s*\{.*?\}", header, re.M | re.S):
            if i and m.group(2) not in templates:
                parts.append(m.group(0))
            templates.add(m.group(2))
        parts += [text for name, text in cell_texts(path)
                  if not any(fnmatch.fnmatch(name, pattern) for pattern in profile.dont_use)]
    cells = ("\n".join(parts) + "\n}\n").encode()
    return default_cache().put_folder("synthesis-liberty", key.hexdigest()[:32], {"cells.lib": cells}) / "cells.lib"

