"""Port contracts (``dv/ports.xml``) and checking a design's ports against one.

>>> from pathlib import Path
>>> c = load_ports(Path(__file__).parent / "cpu" / "dv" / "ports.xml")
>>> c.top, c.expected(groups=())["fault"]
('chipgym_cpu', ('output', 2))
>>> port_problems(c, {"clk": ("input", 1)}, groups=())[:1]
['missing port rst (input, 1 bit)']
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from chipgym.engines.yosys import elaborate
from chipgym.tasks.chip.design import Design


@dataclass(frozen=True)
class Port:
    name: str
    dir: str
    width: int
    group: str = ""


@dataclass(frozen=True)
class PortContract:
    top: str
    clock: str
    reset: str
    ports: tuple[Port, ...]

    def groups(self) -> tuple[str, ...]:
        return tuple(sorted({p.group for p in self.ports if p.group}))

    def expected(self, groups: tuple[str, ...]) -> dict[str, tuple[str, int]]:
        """Ports present when the optional ``groups`` are enabled."""
        return {p.name: (p.dir, p.width) for p in self.ports if not p.group or p.group in groups}


def load_ports(path: Path) -> PortContract:
    root = ET.parse(path).getroot()
    ports = tuple(
        Port(p.get("name"), p.get("dir"), int(p.get("width")), p.get("group", "")) for p in root.iter("port")
    )
    return PortContract(root.get("top"), root.get("clock"), root.get("reset"), ports)


def port_problems(contract: PortContract, actual: dict[str, tuple[str, int]], groups: tuple[str, ...]) -> list[str]:
    """Differences between a module's ``actual`` ports and the contract with ``groups`` enabled."""
    expected = contract.expected(groups)
    problems = [f"missing port {n} ({d}, {w} bit)" for n, (d, w) in expected.items() if n not in actual]
    problems += [
        f"port {n} is {actual[n][0]} {actual[n][1]} bit, contract says {d} {w} bit"
        for n, (d, w) in expected.items()
        if n in actual and actual[n] != (d, w)
    ]
    problems += [f"unexpected port {n}" for n in actual if n not in expected]
    return problems


def design_port_problems(design: Design, contract: PortContract) -> list[str]:
    """Why ``design`` does not have the contract's top module and ports, all ``groups`` enabled (empty if it does):
    yosys elaborates it (syntax errors, missing modules, combinational loops and undriven wires show here, after
    the port differences of a design that elaborated)."""
    if design.top != contract.top:
        return [f"design.toml top is {design.top!r}, the contract requires {contract.top!r}"]
    e = elaborate((design.text,), design.top)
    return (port_problems(contract, e.ports, contract.groups()) if e.ports else []) + e.problems
