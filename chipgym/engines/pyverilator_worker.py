"""The sandboxed worker of :mod:`chipgym.engines.pyverilator`: loads a design's pyverilator library and steps it
with a testbench, on request.

Run by Debian's ``python3 -I`` inside the sandbox as ``pyverilator_worker.py LIBRARY BENCH``, with
``/sim/lib`` holding the ``pyverilator`` and ``packaging`` packages and ``/sim`` this file and
``chipgym/waveform.py``. ``BENCH`` is a trusted Python file defining ``Bench(model, job)`` with a method
``cycle(n)`` that drives one clock cycle through ``model.get``, ``model.set`` and ``model.settle(tick)``, and
the attributes ``events`` (a list it appends JSON-ready records to) and ``done`` (None, or why the run ended).

Requests are JSON lines on stdin; replies are JSON lines on a descriptor of their own (the design's output,
fd 1 and 2, goes to stderr):
- at start ``{"started": true}``, then ``{"ready": true, "signals": [[name, width], ...]}``;
- ``{"op": "reset", "job": {...}}``: a fresh model and bench; ``{"cycle": 0}``;
- ``{"op": "run", "until": N, "trace_from": C, "signals": [names]}``: cycles up to N (fewer when the bench is
  done), the VCD traced from cycle C on; ``{"cycle": next, "done": ..., "events": [...], "changes": {name:
  [[tick, value], ...]}}``.
"""

import ctypes
import json
import os
import re
import sys

TRACE = "/tmp/window.vcd"
MAX_SIGNALS = 4096  # names listed at start
ELABORATED = re.compile(r"_\d+_")  # a net Yosys named (chipgym.tasks.chip.canonical)
PART = re.compile(r"(.+)\[(\d+)(?::(\d+))?\]")  # a wire split from a vector: "pc[3]", "ir[24:22]"
MAX_CHANGES = 50_000  # per signal and window


class Model:
    """A loaded model's ports by name (through pyverilator's accessors, looked up once), and its settling."""

    def __init__(self, sim):
        self.sim = sim
        self.lib, self.handle = self.sim.lib, ctypes.c_void_p(self.sim.model)
        self.getters, self.setters = {}, {}
        for name, width in self.sim.inputs + self.sim.outputs:
            if width <= 64:
                fn = getattr(self.lib, "get_" + name)
                fn.argtypes, fn.restype = [ctypes.c_void_p], ctypes.c_uint64 if width > 32 else ctypes.c_uint32
                self.getters[name] = fn
        for name, width in self.sim.inputs:
            if width <= 64:
                fn = getattr(self.lib, "set_" + name)
                fn.argtypes = [ctypes.c_void_p, ctypes.c_uint64 if width > 32 else ctypes.c_uint32]
                self.setters[name] = fn
        self.lib.eval.argtypes = [ctypes.c_void_p]
        self.lib.start_vcd_trace.argtypes, self.lib.start_vcd_trace.restype = [ctypes.c_void_p, ctypes.c_char_p], \
            ctypes.c_void_p
        self.lib.add_to_vcd_trace.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib.stop_vcd_trace.argtypes = [ctypes.c_void_p]
        self.trace = None

    def get(self, name):
        return int(self.getters[name](self.handle))

    def set(self, name, value):
        self.setters[name](self.handle, value)

    def settle(self, tick=None):
        """Evaluates the model; while tracing, dumps its signals at ``tick`` (half cycles)."""
        self.lib.eval(self.handle)
        if self.trace is not None and tick is not None:
            self.lib.add_to_vcd_trace(self.trace, tick)

    def start_trace(self):
        self.trace = ctypes.c_void_p(self.lib.start_vcd_trace(self.handle, TRACE.encode()))

    def stop_trace(self):
        if self.trace is not None:
            self.lib.stop_vcd_trace(self.trace)
            self.trace = None


def signal_names(model, parse_vcd):
    """The design's traced signals, named from inside its top module (``pc``, ``regs[3]``, ``alu.y``), and the
    parts each vector was split into: the canonical design (:mod:`chipgym.tasks.chip.canonical`) splits a vector
    into wires of a bit or a range (``pc[3]``, ``ir[24:22]``), which are listed whole again; the nets its
    elaboration named itself (``_0123_``) are left out."""
    model.start_trace()
    model.lib.add_to_vcd_trace(model.trace, 0)  # the header, without evaluating the design
    model.stop_trace()
    prefix = f"TOP.{model.sim.module_name}."
    with open(TRACE) as vcd:
        signals, _ = parse_vcd(vcd, keep=lambda name: name.startswith(prefix), max_changes=1)
    os.unlink(TRACE)
    widths = {name[len(prefix):]: s.width for name, s in signals.items()
              if not ELABORATED.fullmatch(name[len(prefix):])}
    parts = vector_parts(widths)
    split = {part for kept in parts.values() for part, _ in kept}
    whole = {name: width for name, width in widths.items() if name not in split}
    whole.update({vector: sum(widths[part] for part, _ in kept) for vector, kept in parts.items()})
    return prefix, sorted(whole.items())[:MAX_SIGNALS], parts


def vector_parts(widths):
    """``{vector: [(part, lowest bit), ...]}`` for the names of ``widths`` that are parts of a vector not itself
    named (``pc[0]`` ... ``pc[31]``; ``ir[24:22]`` of width 3), where the parts cover its bits exactly once."""
    found = {}
    for name, width in widths.items():
        part = PART.fullmatch(name)
        if part:
            high, low = int(part[2]), int(part[3] if part[3] is not None else part[2])
            if high - low + 1 == width:
                found.setdefault(part[1], []).append((name, low, width))
    parts = {}
    for vector, pieces in found.items():
        bits = sorted(bit for _, low, width in pieces for bit in range(low, low + width))
        if vector not in widths and bits == list(range(bits[0], bits[0] + len(bits))):
            parts[vector] = [(name, low - bits[0]) for name, low, _ in pieces]
    return parts


def window(prefix, wanted, parts, parse_vcd):
    """The changes of the ``wanted`` signals in the trace just written: name -> [[tick, value], ...], a vector
    of ``parts`` put together from its parts' changes."""
    if not os.path.exists(TRACE):
        return {}
    read = {part for name in wanted for part, _ in parts.get(name, [(name, 0)])}
    keep = {prefix + name for name in read}
    with open(TRACE) as vcd:
        signals, changes = parse_vcd(vcd, keep=keep.__contains__, max_changes=MAX_CHANGES)
    os.unlink(TRACE)
    own = {name[len(prefix):]: changes[name] for name in signals}
    shown = {}
    for name in wanted:
        if name in parts:
            shown[name] = joined([(own.get(part, []), shift) for part, shift in parts[name]])
        elif name in own:
            shown[name] = [list(c) for c in own[name]]
    return shown


def joined(pieces):
    """One vector's changes from its parts' (``[(changes, shift), ...]``): its value after each tick at which a
    part changed."""
    events = sorted((tick, shift, value) for changes, shift in pieces for tick, value in changes)
    current, value, out = {}, None, []
    for index, (tick, shift, part_value) in enumerate(events):
        current[shift] = part_value
        if index + 1 < len(events) and events[index + 1][0] == tick:
            continue
        now = sum(v << s for s, v in current.items())
        if now != value:
            out.append([tick, now])
            value = now
    return out[:MAX_CHANGES]


def main():
    sys.path[:0] = ["/sim/lib", "/sim"]
    from pyverilator import PyVerilator
    from waveform import parse_vcd

    library, bench_path = sys.argv[1], sys.argv[2]
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    flush_c_stdio = ctypes.CDLL(None).fflush  # the design's $display goes through C's buffered stdout

    def reply(message):
        flush_c_stdio(None)
        sys.stdout.flush()
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    bench_code = compile(open(bench_path).read(), bench_path, "exec")
    reply({"started": True})
    model = Model(PyVerilator(library, auto_eval=False))
    prefix, signals, parts = signal_names(model, parse_vcd)
    reply({"ready": True, "signals": signals})
    bench, cycle = None, 0
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "reset":
            model.stop_trace()
            del model
            model = Model(PyVerilator(library, auto_eval=False))
            namespace = {}
            exec(bench_code, namespace)
            bench, cycle = namespace["Bench"](model, request["job"]), 0
            reply({"cycle": 0})
        elif request["op"] == "run":
            bench.events.clear()
            trace_at = max(request["trace_from"], cycle)
            while cycle < request["until"] and bench.done is None:
                if cycle == trace_at:
                    model.start_trace()
                bench.cycle(cycle)
                cycle += 1
            model.stop_trace()
            reply({"cycle": cycle, "done": bench.done, "events": bench.events,
                   "changes": window(prefix, request["signals"], parts, parse_vcd)})


if __name__ == "__main__":
    main()
