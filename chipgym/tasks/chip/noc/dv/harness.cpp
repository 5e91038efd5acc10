// Trusted testbench harness for the ChipGym NoC: each endpoint injects its packets of the trace (respecting
// ready, holding a stalled flit), each ejection port accepts with seeded random back-pressure, and every
// delivered flit is printed with its cycle. The harness checks the ejection protocol (a stalled flit must stay,
// unchanged) and the watchdog; what was delivered is compared with the reference in Python.
// stdin:  nonce endpoints flit_bits stall_seed stall_permille idle_cycles max_cycles
//         then one line of per-endpoint ejection permille overrides (0: the run's stall_permille)
//         then n_packets, then one line per packet: src release n_flits flit0 ... (hex), in each source's order
// stdout: written through the harness's own copy of the descriptor, taken before the model exists; the design's
//         output ($display and Verilator's messages) goes to /dev/null, and every line starts with the nonce:
//         "D cycle endpoint data last" per delivered flit, "E kind message" on a protocol violation or watchdog
//         expiry (then exits), "END drained_cycle delivered injected" at the end, where drained_cycle is the
//         cycle in which the last flit was accepted at its ejection port.
// Built with -DCHIPGYM_GATE_LEVEL=WORDS for a gate-level netlist: it also counts, for every bit of the
// netlist's chipgym_nets port (WORDS 32-bit words), its toggles up to the drained cycle, sampled after each
// clock edge, and prints them on one line "A count0 count1 ...".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fcntl.h>
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
static const int AFTER = 8;  // cycles run after draining, in which any flit delivered is an extra one

struct Rng {  // xorshift64: seeded, reproducible back-pressure
  uint64_t s;
  uint32_t next() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)s; }
  bool chance(uint32_t permille) { return permille && next() % 1000 < permille; }
};

struct Packet { uint64_t release; std::vector<uint32_t> flits; };

struct Source { std::deque<Packet> packets; size_t next = 0; uint64_t free_from = 0; };

struct Sink {  // one ejection port: single stalled cycles at permille, and bursts of 8-63 (or 100-299)
  uint32_t permille = 0, burst = 0;
  bool held = false;
  uint32_t held_data = 0, held_last = 0;
  bool ready(Rng& rng) {
    if (!burst && rng.chance(permille / 50)) burst = rng.next() % 8 ? 8 + rng.next() % 56 : 100 + rng.next() % 200;
    if (burst) { burst--; return false; }
    return !rng.chance(permille);
  }
};

static uint64_t delivered = 0, injected = 0;

static void fail(uint64_t cyc, const char* kind, const char* what, int endpoint) {
  if (endpoint < 0) fprintf(verdict, "%s E %s cycle %llu: %s", nonce, kind, (unsigned long long)cyc, what);
  else fprintf(verdict, "%s E %s cycle %llu: endpoint %d %s", nonce, kind, (unsigned long long)cyc, endpoint, what);
  fprintf(verdict, " (%llu flits injected, %llu delivered)\n", (unsigned long long)injected,
          (unsigned long long)delivered);
  exit(0);
}

static uint32_t get_bit(const uint8_t& v, int i) { return (v >> i) & 1; }

template <typename W>
static uint32_t get_flit(const W& words, int i, int bits) {  // bits divides 32
  return (words[i * bits / 32] >> (i * bits % 32)) & ((1u << bits) - 1);
}

int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  unsigned n, bits, permille, idle_limit, npackets;
  unsigned long long seed, max_cycles;
  if (scanf("%63s %u %u %llu %u %u %llu", nonce, &n, &bits, &seed, &permille, &idle_limit, &max_cycles) != 7) return 2;
  if (n != 8 || bits != 16) return 3;  // the widths of dv/ports.xml
  std::vector<Sink> sinks(n);
  for (unsigned e = 0; e < n; e++) {
    unsigned p;
    if (scanf("%u", &p) != 1) return 2;
    sinks[e].permille = p ? p : permille;
  }
  std::vector<Source> sources(n);
  if (scanf("%u", &npackets) != 1) return 2;
  uint64_t total = 0;
  for (unsigned i = 0; i < npackets; i++) {
    unsigned src, len;
    unsigned long long release;
    Packet p;
    if (scanf("%u %llu %u", &src, &release, &len) != 3 || src >= n || !len) return 2;
    p.release = release;
    p.flits.resize(len);
    for (unsigned k = 0; k < len; k++) if (scanf("%x", &p.flits[k]) != 1) return 2;
    total += len;
    sources[src].packets.push_back(p);
  }

  Rng rng{seed * 2654435761u + 1};
  open_verdict();
  Vtop* top = new Vtop;
  top->rst = 1;
  top->in_valid = 0;
  top->out_ready = 0;
  for (int i = 0; i < 4; i++) { top->clk = 0; top->eval(); top->clk = 1; top->eval(); }
  top->rst = 0;
  uint64_t last_progress = 0;
  long long drained = -1;
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
    if (drained < 0 && (cyc >= max_cycles || cyc - last_progress > idle_limit))
      fail(cyc, "watchdog", cyc >= max_cycles ? "the network did not drain within the cycle budget"
                                              : "no flit injected or delivered for idle_cycles (deadlock?)", -1);
    uint32_t valid = 0, ready = 0;
    for (unsigned s = 0; s < n; s++) {
      Source& src = sources[s];
      bool offer = !src.packets.empty() && cyc >= src.packets.front().release && cyc >= src.free_from;
      uint32_t flit = offer ? src.packets.front().flits[src.next] : 0;
      valid |= offer << s;
      top->in_data[s * bits / 32] = (top->in_data[s * bits / 32] & ~(((1u << bits) - 1) << (s * bits % 32))) |
                                    (flit << (s * bits % 32));
      uint32_t is_last = offer && src.next + 1 == src.packets.front().flits.size();
      top->in_last = (top->in_last & ~(1u << s)) | (is_last << s);
    }
    for (unsigned e = 0; e < n; e++) ready |= (uint32_t)sinks[e].ready(rng) << e;
    top->in_valid = valid;
    top->out_ready = ready;
    top->clk = 0;
    top->eval();
#ifdef CHIPGYM_GATE_LEVEL
    if (drained < 0) sample();
#endif
    for (unsigned e = 0; e < n; e++) {
      Sink& k = sinks[e];
      uint32_t v = get_bit(top->out_valid, e), data = get_flit(top->out_data, e, bits), l = get_bit(top->out_last, e);
      if (k.held && (!v || data != k.held_data || l != k.held_last))
        fail(cyc, "protocol", "stalled ejection flit withdrawn or changed before it was accepted", e);
      k.held = v && !get_bit(top->out_ready, e);
      k.held_data = data, k.held_last = l;
      if (v && get_bit(top->out_ready, e)) {
        fprintf(verdict, "%s D %llu %u %x %u\n", nonce, (unsigned long long)cyc, e, data, l);
        delivered++;
        last_progress = cyc;
        if (delivered > total + 64) fail(cyc, "protocol", "far more flits delivered than injected", e);
      }
    }
    for (unsigned s = 0; s < n; s++) {
      if (!get_bit(top->in_valid, s) || !get_bit(top->in_ready, s)) continue;
      Source& src = sources[s];
      injected++;
      last_progress = cyc;
      if (++src.next == src.packets.front().flits.size()) {
        src.packets.pop_front();
        src.next = 0;
        src.free_from = cyc + 1;
      }
    }
    if (injected == delivered && !valid) last_progress = cyc;  // an empty network waiting for releases is idle
    if (drained < 0 && delivered >= total && injected == total) drained = cyc;
    if (drained >= 0 && cyc >= (uint64_t)drained + AFTER) break;
    top->clk = 1;
    top->eval();
#ifdef CHIPGYM_GATE_LEVEL
    if (drained < 0) sample();
#endif
  }
  top->final();  // the verdict is the harness's own state, printed once the model is gone
  delete top;
  fprintf(verdict, "%s END %lld %llu %llu\n", nonce, drained, (unsigned long long)delivered,
          (unsigned long long)injected);
#ifdef CHIPGYM_GATE_LEVEL
  fprintf(verdict, "%s A", nonce);
  for (uint32_t t : toggles) fprintf(verdict, " %u", t);
  fprintf(verdict, "\n");
#endif
  fclose(verdict);
  return 0;
}
