"""Scoring profiles: a cell library and the units of the cost, one TOML file each in ``scoring/profiles``.

cost = (T / ``time_us``) x (E / ``energy_nJ``) x (A / ``area_um2``), reward = 1 / (1 + cost).

>>> p = load_profile("osu018")
>>> p.liberty[0].name, p.driving_cell, p.cost(T_us=200.0, E_nJ=500.0, A_um2=200000.0)
('osu018_stdcells.lib', 'INVX1', 0.2)
>>> sorted(PROFILES)
['asap7', 'osu018']
"""
from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from chipgym.errors import ProfileMissingError

PROFILE_DIR = Path(__file__).with_name("profiles")
PROFILES = {p.stem: p for p in PROFILE_DIR.glob("*.toml")}


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    liberty: tuple[Path, ...]
    lef: Path
    driving_cell: str
    output_load_ff: float
    dont_use: tuple[str, ...]
    input_slew_ps: float
    time_us: float
    energy_nJ: float
    area_um2: float
    install: str
    """how to install the library"""
    digest: str
    """hash of the profile's TOML text: part of every cache key"""

    def cost(self, T_us: float, E_nJ: float, A_um2: float) -> float:
        return (T_us / self.time_us) * (E_nJ / self.energy_nJ) * (A_um2 / self.area_um2)

    def require_files(self) -> None:
        """Raise ProfileMissingError unless every library file is present."""
        for path in (*self.liberty, self.lef):
            if not path.is_file():
                raise ProfileMissingError(f"profile {self.name}: {path} is missing; install it with: {self.install}")


def load_profile(name: str) -> Profile:
    """The profile ``name`` (``osu018`` or ``asap7``); its files are checked by :meth:`Profile.require_files`."""
    if name not in PROFILES:
        raise ValueError(f"unknown scoring profile {name!r}; known: {', '.join(sorted(PROFILES))}")
    text = PROFILES[name].read_text()
    data = tomllib.loads(text)
    root = Path(data["root"]) if "root" in data else _pdk_root(data["pdk"])
    synthesis, energy, units = data["synthesis"], data["energy"], data["units"]
    return Profile(
        name=data["name"],
        description=data["description"],
        liberty=tuple(root / f for f in data["liberty"]),
        lef=root / data["lef"],
        driving_cell=synthesis["driving_cell"],
        output_load_ff=float(synthesis["output_load_ff"]),
        dont_use=tuple(synthesis["dont_use"]),
        input_slew_ps=float(energy["input_slew_ps"]),
        time_us=float(units["time_us"]),
        energy_nJ=float(units["energy_nJ"]),
        area_um2=float(units["area_um2"]),
        digest=hashlib.sha256(text.encode()).hexdigest(),
        install=data["install"],
    )


def _pdk_root(pdk: str) -> Path:
    from chipgym.scoring.pdk import PdkMissingError, pdk_root

    try:
        return pdk_root(pdk)
    except PdkMissingError as e:
        raise ProfileMissingError(f"profile {pdk}: {e}") from None
