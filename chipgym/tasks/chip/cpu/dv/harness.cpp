// Trusted testbench harness for the ChipGym CPU: models imem/dmem behind valid/ready ports,
// checks the memory protocol, and prints the retirement stream and final state.
// stdin:  nonce imem_bytes dmem_bytes imem_latency dmem_latency stall_seed stall_permille watchdog
//         n_imem then n_imem hex words; n_dmem then n_dmem "hex_addr hex_word" pairs
// stdout: written through the harness's own copy of the descriptor, taken before the model exists; the design's
//         output ($display and Verilator's messages) goes to /dev/null, and every line starts with the nonce:
//         "R cycle pc insn rd rd_wdata mem_en mem_we mem_addr mem_wdata mem_rdata" per retirement,
//         "E kind message" on a protocol violation or watchdog expiry (then exits),
//         "END cycle halted fault cnt_cycles cnt_retired cnt_stalls", then "M addr word" per nonzero dmem word.
// Built with -DCHIPGYM_GATE_LEVEL=WORDS for a gate-level netlist (no retirement port): instead of retirements it
// counts, for every bit of the netlist's chipgym_nets port (WORDS 32-bit words), its toggles up to halt/fault,
// sampled after each clock edge (so the clock and every net of its tree toggle twice per cycle), and prints
// them on one line "A count0 count1 ...".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fcntl.h>
#include <map>
#include <unistd.h>
#include <vector>
#include "Vtop.h"
#include "verilated.h"

static char nonce[64];
static FILE* verdict;  // the harness's stdout; the design's output goes to /dev/null

// Before the model is built: nothing the design prints can reach the verdict.
static void open_verdict() {
  verdict = fdopen(dup(1), "w");
  int null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  close(null);
}

struct Rng {  // xorshift64: seeded, reproducible stalls
  uint64_t s;
  uint32_t next() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)s; }
  bool chance(uint32_t permille) { return permille && next() % 1000 < permille; }
};

struct Port {  // one memory port: in-order responses, optional random stalls
  const char* name;
  uint32_t latency;
  std::deque<std::pair<uint64_t, uint32_t>> pending;  // (cycle the response is due, rdata)
  uint64_t last_due = 0;
  bool held = false;  // a request was valid and not accepted last cycle
  uint32_t held_addr = 0, held_wdata = 0, held_we = 0;
  uint32_t burst = 0;  // cycles left of a stall burst
};

// Request ready of one port this cycle: with stalls on (permille > 0), single stalled cycles at permille, and
// at permille / 50 a burst of 8-63 stalled cycles or (one burst in 8) a window of 100-299.
static bool ready(Port& p, Rng& rng, uint32_t permille) {
  if (!p.burst && rng.chance(permille / 50)) p.burst = rng.next() % 8 ? 8 + rng.next() % 56 : 100 + rng.next() % 200;
  if (p.burst) { p.burst--; return false; }
  return !rng.chance(permille);
}

static void fail(uint64_t cyc, const char* kind, const char* what, const char* port) {
  fprintf(verdict, "%s E %s cycle %llu: %s %s\n", nonce, kind, (unsigned long long)cyc, port, what);
  exit(0);
}

// Checks the request of this cycle; returns whether it is accepted.
static bool request(Port& p, uint64_t cyc, bool valid, bool ready, uint32_t addr, uint32_t we,
                    uint32_t wdata, uint32_t limit) {
  if (p.held && (!valid || addr != p.held_addr || we != p.held_we || (we && wdata != p.held_wdata)))
    fail(cyc, "protocol", "request changed or withdrawn while stalled", p.name);
  p.held = valid && !ready;
  p.held_addr = addr, p.held_we = we, p.held_wdata = wdata;
  if (!valid || !ready) return false;
  if (addr % 4 || addr >= limit) fail(cyc, "protocol", "request to a misaligned or out-of-range address", p.name);
  return true;
}

int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  uint32_t IMEM_BYTES, DMEM_BYTES, lat_i, lat_d, permille, n;
  unsigned long long seed, watchdog;
  if (scanf("%63s %u %u %u %u %llu %u %llu", nonce, &IMEM_BYTES, &DMEM_BYTES, &lat_i, &lat_d, &seed, &permille, &watchdog) != 8)
    return 2;
  std::vector<uint32_t> imem(IMEM_BYTES / 4, 0);
  std::map<uint32_t, uint32_t> dmem;
  scanf("%u", &n);
  for (uint32_t i = 0; i < n; i++) scanf("%x", &imem.at(i));
  scanf("%u", &n);
  for (uint32_t i = 0, a, w; i < n; i++) { scanf("%x %x", &a, &w); dmem[a] = w; }

  Rng rng{seed * 2654435761u + 1};
  Port ip{"imem", lat_i}, dp{"dmem", lat_d};
  open_verdict();
  Vtop* top = new Vtop;
  top->rst = 1;
  for (int i = 0; i < 4; i++) { top->clk = 0; top->eval(); top->clk = 1; top->eval(); }
  top->rst = 0;
  long long end = -1;
#ifdef CHIPGYM_GATE_LEVEL
  std::vector<uint32_t> last(CHIPGYM_GATE_LEVEL), toggles(32 * CHIPGYM_GATE_LEVEL);
  bool sampled = false;
  auto sample = [&]() {  // the nets that changed since the last clock edge
    for (int w = 0; w < CHIPGYM_GATE_LEVEL; w++) {
      uint32_t now = top->chipgym_nets[w], changed = sampled ? now ^ last[w] : 0;
      last[w] = now;
      for (; changed; changed &= changed - 1) toggles[32 * w + __builtin_ctz(changed)]++;
    }
    sampled = true;
  };
#endif
  for (uint64_t cyc = 0;; cyc++) {
    if (end < 0 && cyc >= watchdog) fail(cyc, "watchdog", "no halt or fault within the cycle budget", "core");
    top->imem_req_ready = ready(ip, rng, permille);
    top->dmem_req_ready = ready(dp, rng, permille);
    top->imem_resp_valid = !ip.pending.empty() && ip.pending.front().first <= cyc;
    top->imem_resp_rdata = top->imem_resp_valid ? ip.pending.front().second : 0;
    top->dmem_resp_valid = !dp.pending.empty() && dp.pending.front().first <= cyc;
    top->dmem_resp_rdata = top->dmem_resp_valid ? dp.pending.front().second : 0;
    top->clk = 0;
    top->eval();
#ifdef CHIPGYM_GATE_LEVEL
    if (end < 0) sample();
#endif
    if (top->imem_resp_valid) ip.pending.pop_front();
    if (top->dmem_resp_valid) dp.pending.pop_front();
    bool done = end >= 0;
#ifdef CHIPGYM_GATE_LEVEL
    const bool retiring = false;
#else
    const bool retiring = top->ret_valid;
#endif
    if (done && (top->imem_req_valid || top->dmem_req_valid || retiring))
      fail(cyc, "protocol", "request or retirement after halt/fault", "core");
    if (request(ip, cyc, top->imem_req_valid, top->imem_req_ready, top->imem_req_addr, 0, 0, IMEM_BYTES)) {
      ip.last_due = std::max<uint64_t>(cyc + ip.latency + (rng.chance(permille) ? 1 + rng.next() % 3 : 0), ip.last_due + 1);
      ip.pending.push_back({ip.last_due, imem[top->imem_req_addr / 4]});
    }
    if (request(dp, cyc, top->dmem_req_valid, top->dmem_req_ready, top->dmem_req_addr, top->dmem_req_we,
                top->dmem_req_wdata, DMEM_BYTES)) {
      uint32_t a = top->dmem_req_addr, rdata = 0;
      if (top->dmem_req_we) dmem[a] = top->dmem_req_wdata;
      else rdata = dmem.count(a) ? dmem[a] : 0;
      dp.last_due = std::max<uint64_t>(cyc + dp.latency + (rng.chance(permille) ? 1 + rng.next() % 3 : 0), dp.last_due + 1);
      dp.pending.push_back({dp.last_due, rdata});
    }
#ifndef CHIPGYM_GATE_LEVEL
    if (top->ret_valid)
      fprintf(verdict, "%s R %llu %x %x %x %x %x %x %x %x %x\n", nonce, (unsigned long long)cyc, top->ret_pc,
              top->ret_insn, top->ret_rd, top->ret_rd_wdata, top->ret_mem_en, top->ret_mem_we, top->ret_mem_addr,
              top->ret_mem_wdata, top->ret_mem_rdata);
#endif
    if (!done && (top->halted || top->fault)) end = cyc;
    if (done && (!top->halted && !top->fault)) fail(cyc, "protocol", "halted/fault dropped", "core");
    if (done && cyc >= (uint64_t)end + 4) break;
    top->clk = 1;
    top->eval();
#ifdef CHIPGYM_GATE_LEVEL
    if (end < 0) sample();
#endif
  }
  // the verdict is read from the model, then printed once the model (and any final block of it) is gone
  const unsigned halted = top->halted, fault = top->fault, cycles = top->cnt_cycles, retired = top->cnt_retired,
                 stalls = top->cnt_stalls;
  top->final();
  delete top;
  fprintf(verdict, "%s END %lld %u %u %u %u %u\n", nonce, end, halted, fault, cycles, retired, stalls);
#ifdef CHIPGYM_GATE_LEVEL
  fprintf(verdict, "%s A", nonce);
  for (uint32_t t : toggles) fprintf(verdict, " %u", t);
  fprintf(verdict, "\n");
#endif
  for (auto& kv : dmem)
    if (kv.second) fprintf(verdict, "%s M %x %x\n", nonce, kv.first, kv.second);
  fclose(verdict);
  return 0;
}
