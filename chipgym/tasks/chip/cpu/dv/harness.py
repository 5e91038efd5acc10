"""The memory model of ``harness.cpp`` in Python, for stepping a design through pyverilator (``simulate``).

It runs inside the sandbox, beside the design's library, in the worker of
:mod:`chipgym.engines.pyverilator`, so it imports nothing but the standard library. Each cycle does what
the C++ harness does, in the same order and with the same cycle numbers, and with the same seeded random
stalls when asked: the same retirements, protocol errors and end of run as the check's simulations.

``job``: ``imem_bytes``, ``dmem_bytes``, ``latency`` (``{"imem": n, "dmem": n}`` cycles), ``imem`` (words),
``dmem`` (``[[address, word], ...]``), ``stall_seed`` and ``stall_permille`` (0: exact memories).
Events: ``["R", cycle, pc, insn, rd, rd_wdata, mem_en, mem_we, mem_addr, mem_wdata, mem_rdata]`` per
retirement, ``["E", kind, message]`` on a protocol violation, ``["END", cycle, halted, fault, cnt_cycles,
cnt_retired, cnt_stalls]`` and ``["M", address, word]`` per nonzero data word when the run ends (four cycles
after halt or fault, as the C++ harness).
"""

from collections import deque

RETIRE = ("ret_pc", "ret_insn", "ret_rd", "ret_rd_wdata", "ret_mem_en", "ret_mem_we", "ret_mem_addr",
          "ret_mem_wdata", "ret_mem_rdata")
RESET_CYCLES = 4
M64 = (1 << 64) - 1


class Rng:
    """The C++ harness's xorshift64: the same seed gives the same stalls."""

    def __init__(self, seed):
        self.s = (seed * 2654435761 + 1) & M64

    def next(self):
        s = self.s
        s ^= (s << 13) & M64
        s ^= s >> 7
        s ^= (s << 17) & M64
        self.s = s
        return s & 0xFFFFFFFF

    def chance(self, permille):
        return bool(permille) and self.next() % 1000 < permille


class Port:
    """One memory port: in-order responses after a fixed latency."""

    def __init__(self, name, latency, limit):
        self.name, self.latency, self.limit = name, latency, limit
        self.pending = deque()  # (cycle the response is due, rdata)
        self.last_due = 0
        self.held = False  # a request was valid and not accepted last cycle
        self.held_addr = self.held_we = self.held_wdata = 0
        self.burst = 0  # cycles left of a stall burst


class Bench:
    def __init__(self, model, job):
        self.model, self.events, self.done = model, [], None
        self.imem = list(job["imem"]) + [0] * max(0, job["imem_bytes"] // 4 - len(job["imem"]))
        self.dmem = {address: word for address, word in job["dmem"]}
        self.ip = Port("imem", job["latency"]["imem"], job["imem_bytes"])
        self.dp = Port("dmem", job["latency"]["dmem"], job["dmem_bytes"])
        self.end = -1
        self.rng, self.permille = Rng(job.get("stall_seed", 0)), job.get("stall_permille", 0)
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

    def ready(self, port):
        """Whether ``port`` accepts a request this cycle: single stalled cycles at ``permille``, and at
        ``permille / 50`` a burst of 8-63 stalled cycles or (one burst in 8) a window of 100-299."""
        rng = self.rng
        if not port.burst and rng.chance(self.permille // 50):
            port.burst = 8 + rng.next() % 56 if rng.next() % 8 else 100 + rng.next() % 200
        if port.burst:
            port.burst -= 1
            return False
        return not rng.chance(self.permille)

    def request(self, port, cycle, valid, ready, addr, we=0, wdata=0):
        """Checks this cycle's request of ``port``; whether it is accepted."""
        changed = addr != port.held_addr or we != port.held_we or (we and wdata != port.held_wdata)
        if port.held and (not valid or changed):
            self.fail(cycle, "protocol", "request changed or withdrawn while stalled", port.name)
            return False
        port.held = bool(valid) and not ready
        port.held_addr, port.held_we, port.held_wdata = addr, we, wdata
        if not valid or not ready:
            return False
        if addr % 4 or addr >= port.limit:
            self.fail(cycle, "protocol", "request to a misaligned or out-of-range address", port.name)
            return False
        return True

    def respond(self, port, cycle, rdata):
        jitter = 1 + self.rng.next() % 3 if self.rng.chance(self.permille) else 0
        port.last_due = max(cycle + port.latency + jitter, port.last_due + 1)
        port.pending.append((port.last_due, rdata))

    def cycle(self, cycle):
        m, ip, dp = self.model, self.ip, self.dp
        ready = {"imem": self.ready(ip), "dmem": self.ready(dp)}
        m.set("imem_req_ready", int(ready["imem"]))
        m.set("dmem_req_ready", int(ready["dmem"]))
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
        if self.request(ip, cycle, m.get("imem_req_valid"), ready["imem"], m.get("imem_req_addr")):
            self.respond(ip, cycle, self.imem[m.get("imem_req_addr") // 4])
        if self.done is None and self.request(dp, cycle, m.get("dmem_req_valid"), ready["dmem"],
                                              m.get("dmem_req_addr"), m.get("dmem_req_we"), m.get("dmem_req_wdata")):
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
