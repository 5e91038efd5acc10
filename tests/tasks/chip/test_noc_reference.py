"""The NoC's reference, traffic and divergence rules on hand-made cases (no simulator)."""
import pytest

from chipgym.tasks.chip.noc.arch import load_arch
from chipgym.tasks.chip.noc.heldout import heldout_traces
from chipgym.tasks.chip.noc.reference import expected
from chipgym.tasks.chip.noc.testbench import SimResult, divergence
from chipgym.tasks.chip.noc.traffic import Packet, Trace
from chipgym.tasks.chip.noc.workloads import public_traces, scored_traces, traffic

ARCH = load_arch()


def packet(src: int, dst: int, payload: tuple[int, ...], release: int = 0, tag: int = 0) -> Packet:
    return Packet(src, dst, release, (ARCH.head(dst=dst, src=src, length=len(payload), tag=tag), *payload))


A, B, C = packet(1, 4, (0xAAAA,)), packet(1, 4, (0xBBBB, 0xCCCC)), packet(2, 4, ())
TRACE = Trace("t", (A, B, C))


def delivered(*packets: Packet, at: int = 4) -> SimResult:
    flits = [(i, f, int(k == len(p.flits) - 1)) for p in packets for k, f in enumerate(p.flits) for i in [0]]
    return SimResult({e: flits if e == at else [] for e in range(ARCH.endpoints)}, 10)


def test_reference_keeps_each_source_in_order():
    assert expected(TRACE)[4] == {1: [A.flits, B.flits], 2: [C.flits]}
    assert all(not expected(TRACE)[e] for e in range(ARCH.endpoints) if e != 4)


def test_other_sources_may_overtake():
    assert divergence(TRACE, delivered(C, A, B)) is None
    assert divergence(TRACE, delivered(A, C, B)) is None


@pytest.mark.parametrize("got, words", [
    (delivered(B, A, C), "out of order"),
    (delivered(A, A, B, C), "duplicate"),
    (delivered(A, B, C, C), "extra packets from source 2"),
    (delivered(A, C), "never came"),
    (delivered(A, B, C, at=5), "a packet for endpoint 4"),
    (delivered(A, Packet(1, 4, 0, (B.flits[0], 0xBBBA, B.flits[2])), C), "expected 3 flits"),
    (delivered(A, Packet(1, 4, 0, B.flits[:2]), C), "says 2 payload flits"),
])
def test_divergence_names_the_fault(got, words):
    problem = divergence(TRACE, got)
    assert problem and words in problem, problem


def test_interleaved_packets_are_malformed():
    flits = [(0, A.flits[0], 0), (1, C.flits[0], 1), (2, A.flits[1], 1), (3, B.flits[0], 0), (4, B.flits[1], 0),
             (5, B.flits[2], 1)]
    got = SimResult({e: flits if e == 4 else [] for e in range(ARCH.endpoints)}, 5)
    assert divergence(TRACE, got).startswith("t: endpoint 4: cycle")


def test_a_run_with_an_error_is_a_divergence():
    got = delivered(A, B, C)
    got.error = "watchdog cycle 99: no flit injected or delivered"
    assert "watchdog" in divergence(TRACE, got)


def test_traffic_is_legal_and_deterministic():
    for trace in public_traces():
        assert trace == next(t for t in public_traces() if t.name == trace.name)
        for p in trace.packets:
            head = p.flits[0]
            assert (ARCH.field(head, "src"), ARCH.field(head, "dst")) == (p.src, p.dst)
            assert ARCH.field(head, "length") == len(p.flits) - 1 <= ARCH.max_payload_flits
            assert all(0 <= f < 1 << ARCH.flit_bits for f in p.flits)
        for packets in trace.sources().values():
            assert [p.release for p in packets] == sorted(p.release for p in packets)


def test_hard_cases_are_there():
    traces = {t.name: t for t in public_traces()}
    assert {p.dst for p in traces["all-to-one-1.0"].packets} == {3}
    assert {len(p.flits) for p in traces["min-length"].packets} == {1}
    assert {len(p.flits) for p in traces["max-length"].packets} == {8}
    assert traces["slow-ejection"].slow
    assert {t.name for t in scored_traces()} <= set(traces)


def test_injection_rate_is_what_it_says():
    trace = traffic("uniform", 0.25, seed=3, packets=200)
    for packets in trace.sources().values():
        flits = sum(len(p.flits) for p in packets)
        assert 0.2 < flits / packets[-1].release < 0.3


def test_heldout_traces_depend_on_the_seed_only():
    a, b = heldout_traces(11), heldout_traces(12)
    assert a == heldout_traces(11) and a != b
    public = {p.flits for t in public_traces() for p in t.packets if len(p.flits) > 2}
    assert not public & {p.flits for t in a for p in t.packets}
