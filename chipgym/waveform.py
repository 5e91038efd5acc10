"""Waveforms of a simulated window: value changes per signal, as compact text, as a VCD file and as a picture.

Time is counted in half clock cycles, ``tick = 2 * cycle + phase``: phase 0 is the low half of a cycle, when
a testbench drives the inputs and reads the outputs, phase 1 the high half, after the rising edge. The text
form reads every signal at phase 0 of each cycle, as a testbench sees it.

This module imports only the standard library at its top (the sandboxed simulation worker reads VCD files
with it); :meth:`Waveform.render` needs matplotlib.

>>> wave = Waveform((Signal("clk", 1), Signal("pc", 32)), {"clk": ((0, 0), (1, 1), (2, 0), (3, 1)),
...                 "pc": ((0, 0), (2, 4))}, start=0, end=2)
>>> print(wave.text())
clk: 0:0x0
pc[31:0]: 0:0x0 1:0x4
>>> signals, changes = parse_vcd(wave.vcd().splitlines())
>>> sorted(signals), changes["top.pc"]
(['top.clk', 'top.pc'], [(0, 0), (10000, 4)])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

MAX_CHANGES_SHOWN = 32  # value changes shown per signal in the text form
_VCD_CODES = [chr(c) for c in range(33, 127)]


@dataclass(frozen=True)
class Signal:
    name: str
    width: int

    @property
    def label(self) -> str:
        return self.name if self.width == 1 else f"{self.name}[{self.width - 1}:0]"


@dataclass(frozen=True)
class Waveform:
    """The signals of cycles ``start`` to ``end - 1``: per signal its value changes as (tick, value), the first
    one at or before the window's first tick."""

    signals: tuple[Signal, ...]
    changes: Mapping[str, tuple[tuple[int, int], ...]]
    start: int
    end: int
    period_ps: int = 10_000
    top: str = "top"
    notes: tuple[str, ...] = field(default=())

    def per_cycle(self, name: str) -> list[tuple[int, int]]:
        """The signal's value at phase 0 of each cycle of the window, changes only: (cycle, value)."""
        out: list[tuple[int, int]] = []
        changes, index, value = self.changes.get(name, ()), 0, None
        for cycle in range(self.start, self.end):
            while index < len(changes) and changes[index][0] <= 2 * cycle:
                value = changes[index][1]
                index += 1
            if value is not None and (not out or out[-1][1] != value):
                out.append((cycle, value))
        return out

    def text(self, max_changes: int = MAX_CHANGES_SHOWN) -> str:
        """One line per signal: ``name[msb:0]: cycle:value ...`` (hex, changes only), at most ``max_changes``."""
        lines = []
        for signal in self.signals:
            changes = self.per_cycle(signal.name)
            shown = " ".join(f"{cycle}:{value:#x}" for cycle, value in changes[:max_changes])
            more = f" ... (+{len(changes) - max_changes} changes)" if len(changes) > max_changes else ""
            lines.append(f"{signal.label}: {shown or '(no value)'}{more}")
        return "\n".join(lines + list(self.notes))

    def vcd(self) -> str:
        """The window as a VCD file (timescale 1 ps, one clock period per cycle), which GTKWave opens."""
        codes = {s.name: _code(i) for i, s in enumerate(self.signals)}
        lines = ["$version chipgym $end", "$timescale 1ps $end", f"$scope module {self.top} $end"]
        for signal in self.signals:
            bits = "" if signal.width == 1 else f" [{signal.width - 1}:0]"
            lines.append(f"$var wire {signal.width} {codes[signal.name]} {_vcd_name(signal.name)}{bits} $end")
        lines += ["$upscope $end", "$enddefinitions $end"]
        first, events = 2 * self.start, {}
        for signal in self.signals:
            for tick, value in self.changes.get(signal.name, ()):
                events.setdefault(max(tick, first), {})[signal.name] = value
        widths = {s.name: s.width for s in self.signals}
        for tick in sorted(t for t in events if t < 2 * self.end):
            lines.append(f"#{tick * self.period_ps // 2}")
            for name, value in events[tick].items():
                bits = str(value & 1) if widths[name] == 1 else f"b{value:b} "
                lines.append(f"{bits}{codes[name]}")
        lines.append(f"#{self.end * self.period_ps}")
        return "\n".join(lines) + "\n"

    def render(self, width: int = 960) -> "numpy.ndarray":  # noqa: F821
        """An RGB picture (height x width x 3, uint8): one row per signal, cycles across, bus values written
        in their lanes."""
        try:
            import matplotlib
        except ImportError:
            from chipgym.errors import InfrastructureError

            raise InfrastructureError("drawing a waveform needs matplotlib: pip install matplotlib") from None
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        rows = max(1, len(self.signals))
        dpi = 100
        figure, axes = plt.subplots(figsize=(width / dpi, (40 + 28 * rows) / dpi), dpi=dpi)
        cycles = max(1, self.end - self.start)
        for row, signal in enumerate(self.signals):
            y = rows - 1 - row
            steps = self._steps(signal.name)
            if not steps:
                continue
            if signal.width == 1:
                xs = [t / 2 for t, _ in steps] + [self.end]
                ys = [y + 0.1 + 0.7 * (v & 1) for _, v in steps]
                axes.step(xs, ys + ys[-1:], where="post", color="#1f77b4", linewidth=1.2)
            else:
                for (t0, value), (t1, _) in zip(steps, steps[1:] + [(2 * self.end, 0)]):
                    x0, x1 = t0 / 2, t1 / 2
                    axes.fill([x0, x0 + 0.15, x1 - 0.15, x1, x1 - 0.15, x0 + 0.15],
                              [y + 0.45, y + 0.8, y + 0.8, y + 0.45, y + 0.1, y + 0.1],
                              facecolor="#e8f0fa", edgecolor="#1f77b4", linewidth=0.8)
                    label = f"{value:x}"
                    if (x1 - x0) * width / cycles > 7 * len(label) + 4:
                        axes.text((x0 + x1) / 2, y + 0.45, label, ha="center", va="center", fontsize=7)
        axes.set_yticks([rows - 1 - i + 0.45 for i in range(rows)], [s.label for s in self.signals], fontsize=8)
        axes.set_xlim(self.start, self.end)
        axes.set_ylim(-0.1, rows)
        axes.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        axes.grid(axis="x", alpha=0.3)
        axes.set_xlabel("cycle", fontsize=8)
        axes.tick_params(axis="x", labelsize=7)
        figure.tight_layout(pad=0.3)
        figure.canvas.draw()
        image = np.asarray(figure.canvas.buffer_rgba())[..., :3].copy()
        plt.close(figure)
        return image

    def _steps(self, name: str) -> list[tuple[int, int]]:
        """The signal's (tick, value) changes inside the window, starting at its first tick."""
        first, out = 2 * self.start, []
        for tick, value in self.changes.get(name, ()):
            if tick >= 2 * self.end:
                break
            if tick <= first:
                out = [(first, value)]
            elif not out or out[-1][1] != value:
                out.append((tick, value))
        return out


def parse_vcd(lines: Iterable[str], keep=lambda name: True,
              max_changes: int = 1 << 20) -> tuple[dict[str, Signal], dict[str, list[tuple[int, int]]]]:
    """The variables of a VCD file named by their dotted scope path (``top.alu.y``), those where ``keep(name)``,
    and each one's changes (time, value); names of one net share its list. ``x`` and ``z`` bits read as 0; a
    net with more than ``max_changes`` changes keeps its first ones. Raises ValueError on what is not VCD."""
    signals: dict[str, Signal] = {}
    changes: dict[str, list[tuple[int, int]]] = {}  # by name
    by_code: dict[str, list[tuple[int, int]]] = {}
    scope: list[str] = []
    header, time = True, 0
    tokens = iter(token for line in lines for token in line.split())
    for token in tokens:
        if header:
            if token == "$scope":
                next(tokens)
                scope.append(next(tokens))
            elif token == "$upscope":
                scope.pop()
            elif token == "$var":
                _, width, code, reference = next(tokens), int(next(tokens)), next(tokens), next(tokens)
                name = ".".join(scope + [reference])
                if keep(name):
                    signals[name], changes[name] = Signal(name, width), by_code.setdefault(code, [])
            elif token == "$enddefinitions":
                header = False
            if token.startswith("$") and token != "$end":
                while token != "$end":
                    token = next(tokens)
            continue
        if token[0] == "#":
            time = int(token[1:])
        elif token[0] in "bBrR":
            _record(by_code, next(tokens), time, _bits(token[1:]), max_changes)
        elif token[0] in "01xXzZ":
            _record(by_code, token[1:], time, _bits(token[0]), max_changes)
        elif token[0] == "$":  # $dumpvars, $end, ... around initial values
            continue
        else:
            raise ValueError(f"VCD: unexpected {token[:40]!r} at time {time}")
    if header:
        raise ValueError("VCD: no $enddefinitions")
    return signals, changes


def _record(changes: dict[str, list[tuple[int, int]]], code: str, time: int, value: int, limit: int) -> None:
    kept = changes.get(code)
    if kept is not None and len(kept) < limit:
        if kept and kept[-1][0] == time:
            kept[-1] = (time, value)
        elif not kept or kept[-1][1] != value:
            kept.append((time, value))


def _bits(text: str) -> int:
    return int(re.sub(r"[xXzZ]", "0", text) or "0", 2)


def _code(index: int) -> str:
    code = ""
    while True:
        code += _VCD_CODES[index % len(_VCD_CODES)]
        index //= len(_VCD_CODES)
        if not index:
            return code


def _vcd_name(name: str) -> str:
    return re.sub(r"\s", "_", name)
