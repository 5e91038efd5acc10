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
import sys

TRACE = "/tmp/window.vcd"
MAX_SIGNALS = 4096  # names listed at start
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
    """The design's traced signals, named from inside its top module (``pc``, ``regs[3]``, ``alu.y``)."""
    model.start_trace()
    model.lib.add_to_vcd_trace(model.trace, 0)  # the header, without evaluating the design
    model.stop_trace()
    prefix = f"TOP.{model.sim.module_name}."
    with open(TRACE) as vcd:
        signals, _ = parse_vcd(vcd, keep=lambda name: name.startswith(prefix), max_changes=1)
    os.unlink(TRACE)
    return prefix, sorted((name[len(prefix):], s.width) for name, s in signals.items())[:MAX_SIGNALS]


def window(prefix, wanted, parse_vcd):
    """The changes of the ``wanted`` signals in the trace just written: name -> [[tick, value], ...]."""
    if not os.path.exists(TRACE):
        return {}
    keep = {prefix + name for name in wanted}
    with open(TRACE) as vcd:
        signals, changes = parse_vcd(vcd, keep=keep.__contains__, max_changes=MAX_CHANGES)
    os.unlink(TRACE)
    return {name[len(prefix):]: [list(c) for c in changes[name]] for name in signals}


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
    prefix, signals = signal_names(model, parse_vcd)
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
                   "changes": window(prefix, request["signals"], parse_vcd)})


if __name__ == "__main__":
    main()
