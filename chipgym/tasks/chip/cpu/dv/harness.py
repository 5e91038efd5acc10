"""The memory model of ``harness.cpp`` in Python, for stepping a design through pyverilator (``simulate``).

It runs inside the sandbox, beside the design's library, in the worker of
:mod:`chipgym.engines.pyverilator`, so it imports nothing but the standard library. Each cycle does what
the C++ harness does, in the same order and with the same cycle numbers, with exact memories (no random
stalls): the same retirements, protocol errors and end of run as the check's first simulation.

``job``: ``imem_bytes``, ``dmem_bytes``, ``latency`` (``{"imem": n, "dmem": n}`` cycles), ``imem`` (words)
and ``dmem`` (``[[address, word], ...]``). Events: ``["R", cycle, pc, insn, rd, rd_wdata, mem_en, mem_we,
mem_addr, mem_wdata, mem_rdata]`` per retirement, ``["E", kind, message]`` on a protocol violation, ``["END",
cycle, halted, fault, cnt_cycles, cnt_retired, cnt_stalls]`` and ``["M", address, word]`` per nonzero data
word when the run ends (four cycles after halt or fault, as the C++ harness).
"""

from collections import deque

RETIRE = ("ret_pc", "ret_insn", "ret_rd", "ret_rd_wdata", "ret_mem_en", "ret_mem_we", "ret_mem_addr",
          "ret_mem_wdata", "ret_mem_rdata")
RESET_CYCLES = 4


class Port:
    """One memory port: in-order responses after a fixed latency."""

    def __init__(self, name, latency, limit):
        self.name, self.latency, self.limit = name, latency, limit
        self.pending = deque()  # (cycle the response is due, rdata)
        self.last_due = 0


class Bench:
    def __init__(self, model, job):
        self.model, self.events, self.done = model, [], None
        self.imem = list(job["imem"]) + [0] * max(0, job["imem_bytes"] // 4 - len(job["imem"]))
        self.dmem = {address: word for address, word in job["dmem"]}
        self.ip = Port("imem", job["latency"]["imem"], job["imem_bytes"])
        self.dp = Port("dmem", job["latency"]["dmem"], job["dmem_bytes"])
        self.end = -1
        model.set("rst", 1)
        for _ in range(RESET_CYCLES):
            model.set("clk", 0)
            model.settle()
            model.set("clk", 1)
            model.settle()
        model.set("rst", 0)

    def fail(self, cycle, kind, what, port):
        self.events.append(["E", kind, f"cycle {cycle}: {port} {what}"])
        self.done = kind

    def request(self, port, cycle, valid, addr):
        """Whether this cycle's request of ``port`` is accepted (always ready: no stalls)."""
        if not valid:
            return False
        if addr % 4 or addr >= port.limit:
            self.fail(cycle, "protocol", "request to a misaligned or out-of-range address", port.name)
            return False
        return True

    def respond(self, port, cycle, rdata):
        port.last_due = max(cycle + port.latency, port.last_due + 1)
        port.pending.append((port.last_due, rdata))

    def cycle(self, cycle):
        m, ip, dp = self.model, self.ip, self.dp
        m.set("imem_req_ready", 1)
        m.set("dmem_req_ready", 1)
        for port, prefix in ((ip, "imem"), (dp, "dmem")):
            valid = bool(port.pending) and port.pending[0][0] <= cycle
            m.set(f"{prefix}_resp_valid", int(valid))
            m.set(f"{prefix}_resp_rdata", port.pending[0][1] if valid else 0)
            if valid:
                port.pending.popleft()
        m.set("clk", 0)
        m.settle(2 * cycle)
        done = self.end >= 0
        if done and (m.get("imem_req_valid") or m.get("dmem_req_valid") or m.get("ret_valid")):
            return self.fail(cycle, "protocol", "request or retirement after halt/fault", "core")
        if self.request(ip, cycle, m.get("imem_req_valid"), m.get("imem_req_addr")):
            self.respond(ip, cycle, self.imem[m.get("imem_req_addr") // 4])
        if self.done is None and self.request(dp, cycle, m.get("dmem_req_valid"), m.get("dmem_req_addr")):
            addr, rdata = m.get("dmem_req_addr"), 0
            if m.get("dmem_req_we"):
                self.dmem[addr] = m.get("dmem_req_wdata")
            else:
                rdata = self.dmem.get(addr, 0)
            self.respond(dp, cycle, rdata)
        if self.done is not None:
            return None
        if m.get("ret_valid"):
            self.events.append(["R", cycle] + [m.get(name) for name in RETIRE])
        halted, fault = m.get("halted"), m.get("fault")
        if not done and (halted or fault):
            self.end = cycle
        if done and not (halted or fault):
            return self.fail(cycle, "protocol", "halted/fault dropped", "core")
        if done and cycle >= self.end + 4:
            self.events.append(["END", self.end, halted, fault, m.get("cnt_cycles"), m.get("cnt_retired"),
                                m.get("cnt_stalls")])
            self.events += [["M", a, w] for a, w in sorted(self.dmem.items()) if w]
            self.done = "halted" if halted else "fault"
            return None
        m.set("clk", 1)
        m.settle(2 * cycle + 1)
        return None
