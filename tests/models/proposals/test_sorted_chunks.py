"""``sorted-chunks`` (issue 27, item 2): the codec, the per-message model against the naive
index (the shared machine and a 64-bit one), the split and capacity rules, hand-computed bytes,
and the numpy sorted build held equal to the per-message model."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.models.proposals.machine import SETTINGS, ProposalMachine
from tests.reference.delayed import DeliveryWindow, NaiveDelayedIndex
from trackerlab.catalog import CATALOG, SizeRequest
from trackerlab.models.proposals import sorted_chunks as sc
from trackerlab.models.proposals.sorted_chunks import SortedChunksTracker
from trackerlab.sizing.jvm import COMPRESSED, UNCOMPRESSED_OOPS
from trackerlab.workloads.stream import Workload

MAX_ID = (1 << 63) - 1
#: bursts of hundreds of adds shrink for minutes: report the failing example as found
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


# --------------------------------------------------------------------------- codec


def test_tokens_by_hand():
    # same tick, same ledger: gap 2 -> 2 << 2 | 0 = 8 -> 0x08
    assert sc.token((10, 5, 7), (10, 5, 9)) == b"\x08"
    # same tick, new ledger: dL 3 -> 3 << 2 | 1 = 13 -> 0x0d; E = 300 = 2 * 128 + 44 -> ac 02
    assert sc.token((10, 5, 9), (10, 8, 300)) == b"\x0d\xac\x02"
    # new tick: dt 1 -> 1 << 2 | 2 = 6; dL = -2 -> zigzag 3; E = 2
    assert sc.token((10, 8, 300), (11, 6, 2)) == b"\x06\x03\x02"
    # the largest values: a gap of 2^62 - 1 -> (2^64 - 4) needs 10 LEB128 bytes
    assert len(sc.token((0, 0, 0), (0, 0, (1 << 62) - 1))) == 10
    assert sc.zigzag(-1) == 1 and sc.zigzag(1) == 2 and sc.zigzag(-(1 << 63)) == (1 << 64) - 1
    with pytest.raises(ValueError, match="2\\^62"):
        sc.token((0, 0, 0), (0, 0, 1 << 62))


keys_strategy = st.lists(
    st.tuples(
        st.integers(0, (1 << 40)),
        st.integers(0, (1 << 61)),
        st.integers(0, (1 << 61)),
    ),
    min_size=1,
    max_size=60,
    unique=True,
).map(sorted)


@given(keys_strategy)
def test_codec_round_trip_and_vectorized_lengths(keys):
    data = sc.encode(keys)
    assert sc.decode(keys[0], data) == keys
    t, led, e = (np.array(col, dtype=np.int64) for col in zip(*keys, strict=True))
    lengths = sc.token_lengths(t, led, e)
    assert lengths[0] == 0
    assert lengths[1:].tolist() == [len(sc.token(a, b)) for a, b in itertools.pairwise(keys)]


@given(st.integers(0, (1 << 64) - 1))
def test_varint_lengths(x):
    assert sc.varint_lengths(np.array([x], dtype=np.uint64))[0] == len(sc.varint(x))


def test_capacity_rule():
    assert [sc.capacity(n) for n in (0, 1, 32, 33, 64, 65, 2049, 4096)] == [
        32, 32, 32, 64, 64, 128, 4096, 4096,
    ]  # fmt: skip
    assert sc.chunk_capacities(np.array([0, 33, 4096])).tolist() == [32, 64, 4096]
    with pytest.raises(ValueError, match=r"0\.\.4096"):
        sc.capacity(4097)


# --------------------------------------------------------------------------- bytes by hand


def _tiny() -> SortedChunksTracker:
    tr = SortedChunksTracker(1000)  # bits = 9
    for t, led, e in [(10, 5, 7), (10, 5, 9), (10, 8, 300), (11, 6, 2)]:
        assert tr.add_message(led, e, t << 9, 0)
    return tr


def test_tiny_tracker_bytes_by_hand():
    """Four keys, one chunk: tokens 08 | 0d ac 02 | 06 03 02 = 7 bytes (test_tokens_by_hand),
    byte[32]. Compressed oops: TreeSet 16 + TreeMap 48 + node 40 + Chunk 80 (12 header, 6
    longs, 3 ints, a ref: 76 -> 80) + byte[32] 48 + probe 80 + HashMap of 3 (48 + Node[16] 80 +
    3 x 32) 224 + 3 Long 72 + 3 RoaringBitmaps of one array container each (16 + RoaringArray 24
    + char[4] 24 + Container[4] 32 = 96, + ArrayContainer 24 + char[4] 24 = 144): 432, + the
    node's value TreeSet.PRESENT, one Object, 16 (JOL's histogram: ``Object*1=16``) -> 1056.
    runOptimize hits ledgers 5 and 8 (left by appends of new ledgers) and changes nothing (2 or
    1 values: an array is smaller)."""
    tr = _tiny()
    (chunk,) = tr.chunks
    assert chunk.unread() == bytes.fromhex("080dac02060302")
    assert chunk.capacity == 32 and chunk.count == 4
    assert tr.optimized == {5, 8}
    assert tr.jvm_bytes(COMPRESSED) == 1056
    # getBufferMemoryUsage: 72 + 16 + 32 + bitmaps (8 + 2 + 2 card + 4: 18, 16, 16) + 40 = 210
    assert tr.buffer_memory_usage() == 210
    t, led, e = (
        np.array(c) for c in zip(*[(10, 5, 7), (10, 5, 9), (10, 8, 300), (11, 6, 2)], strict=True)
    )
    assert sc.sorted_build(t, led, e).jvm_bytes == 1056
    assert (
        tr.jvm_bytes(UNCOMPRESSED_OOPS) == sc.sorted_build(t, led, e, UNCOMPRESSED_OOPS).jvm_bytes
    )


def test_empty_tracker_bytes():
    # TreeSet 16 + TreeMap 48 + probe 80 + HashMap 48 (no table yet)
    assert SortedChunksTracker().jvm_bytes() == 192
    assert sc.sorted_build(np.zeros(0), np.zeros(0), np.zeros(0)).jvm_bytes == 192


def test_readd_and_contains_and_dispatch_order():
    tr = _tiny()
    assert tr.add_message(5, 7, 99 << 9, 0)  # held: true, counted once, nothing moves
    assert tr.number_of_delayed_messages() == 4 and tr.contains_message(5, 7)
    assert not tr.add_message(5, 100, 500, 0)  # due within the tick: deliver now
    assert not tr.contains_message(5, 100)
    # a tick is due when its last ms is within the cutoff: tick 10 = [5120, 5631] ms is not due
    # at cutoff 5630 (now 4630), is at cutoff 5631 (now 4631); tick 11's last ms is 6143
    assert not tr.has_message_available(11 * 512 - 2 - 1000)
    assert tr.get_scheduled_messages(10, 11 * 512 - 2 - 1000) == []
    got = tr.get_scheduled_messages(2, 11 * 512 - 1 - 1000)
    assert got == [(5, 7), (5, 9)]  # smallest keys first
    assert not tr.contains_message(5, 7) and 5 not in tr.bitmaps
    assert tr.get_scheduled_messages(10, 11 * 512 - 1 - 1000) == [(8, 300)]
    assert not tr.has_message_available(12 * 512 - 2 - 1000)
    assert tr.has_message_available(12 * 512 - 1 - 1000)
    assert tr.next_key() == 12 * 512 - 1
    tr.clear()
    assert tr.number_of_delayed_messages() == 0 and not tr.chunks and not tr.bitmaps


@pytest.mark.parametrize("strict", [False, True])
def test_a_handed_out_position_is_refused_when_replayed(strict):
    """The replay loop: tick 1000 ms (bits 9), deliverAt 5200 in tick 10 = [5120, 5631] ms.
    Due at ``tickKey << bits <= cutoff`` (the old rule), it went out at cutoff 5120 and, replayed
    by the dispatcher at the same now, was accepted again (5200 > 5120), due again, and so on
    till the cutoff reached 5200. Due at the tick's last ms, it goes out at cutoff 5631 and the
    replay is refused. Every now from 4000 to 5700 ms (cutoff = now + 1000, or now strict)."""
    tr = SortedChunksTracker(1000, strict)
    first = None
    for now in range(4000 if not strict else 5000, 5700):
        if not tr.contains_message(1, 1):
            assert tr.add_message(1, 1, 5200, 0)
        for ledger, entry in tr.get_scheduled_messages(10, now):
            assert not tr.add_message(ledger, entry, 5200, now), f"accepted again at now {now}"
            first = now if first is None else first
    assert first == (5631 if strict else 4631)  # the tick's last ms is within the cutoff
    assert not tr.add_message(1, 1, 5200, 5200 if strict else 4200)  # deliverAt <= cutoff


# --------------------------------------------------------------------------- split rules


def _full_chunk_keys(n: int = 1500) -> list[tuple[int, int, int]]:
    return [(100, 7, 3 * i) for i in range(n)]  # 1-byte tokens (gap 3 -> 12)


def test_in_order_appends_start_a_new_chunk_only_when_full():
    tr = SortedChunksTracker(1)
    for t, led, e in _full_chunk_keys(9000):
        tr.add_message(led, e, t, 0)
    # 4096 one-byte tokens after each first key: chunks of 4097 keys, all full
    assert [c.count for c in tr.chunks] == [4097, 4097, 806]
    assert [c.length for c in tr.chunks] == [4096, 4096, 805]
    assert [c.capacity for c in tr.chunks] == [4096, 4096, 1024]


def test_an_insert_into_a_full_chunk_splits_it_in_halves():
    tr = SortedChunksTracker(1)
    for t, led, e in _full_chunk_keys(4097):
        tr.add_message(led, e, t, 0)
    assert len(tr.chunks) == 1 and tr.chunks[0].length == 4096
    tr.add_message(7, 3 * 2000 + 1, 100, 0)  # between two held keys: 4097 B, a split of 4098 keys
    assert [c.count for c in tr.chunks] == [2049, 2049]
    assert tr.chunks[0].last < tr.chunks[1].first
    assert [c.capacity for c in tr.chunks] == [sc.capacity(c.length) for c in tr.chunks]
    keys = tr.chunks[0].keys() + tr.chunks[1].keys()
    assert keys == sorted(keys) and len(keys) == 4098


# --------------------------------------------------------------------------- the splice

#: (ledger, entry, deliverAt ms, now ms) rows of the hand splice (tick 1 ms: bits 0, tick =
#: deliverAt); a row with ledger None is getScheduledMessages(entry) at now. Shared with
#: tests/broker/test_sorted_chunks_parity.py (the same bytes through JOL).
SPLICE_ROWS: list[tuple[int | None, int, int, int]] = [
    *[(7, 10 * i, 100, 0) for i in range(31)],  # 0: 30 tokens 0x28 (gap 10 -> 40)
    (None, 2, 0, 99),  # 1: dispatch (7,0) (7,10): readOffset 2
    (7, 25, 100, 0),  # 2: in place, readOffset kept
    (7, 35, 100, 0),  # 3: in place, up to the capacity exactly
    (7, 45, 100, 0),  # 4: does not fit: a new byte[32], readOffset 0
    (7, 55, 100, 0),  # 5: in place
    (7, 65, 100, 0),  # 6: growth to byte[64]
    (7, 4396, 100, 0),  # 7: append, gap 4096 -> varint(16384) = 80 80 01
    (7, 301, 100, 0),  # 8: g = 0: 04 | fc 7f replaces 80 80 01
    (7, 0, 50, 0),  # 9: below the first key: the new first, token ca 01 00 14 in front
]
#: after each step: (first, last, count, unread hex, length, read_offset, capacity), by hand
SPLICE_STEPS = {
    0: ((100, 7, 0), (100, 7, 300), 31, "28" * 30, 30, 0, 32),
    1: ((100, 7, 20), (100, 7, 300), 29, "28" * 28, 28, 2, 32),
    # a = (100,7,20) b = (100,7,30): 28 -> 14 14 (gap 5 -> 20), g = +1: 2 + 29 <= 32
    2: ((100, 7, 20), (100, 7, 300), 30, "14" * 2 + "28" * 27, 29, 2, 32),
    # a = (100,7,30) b = (100,7,40): 2 + 30 = 32 <= 32, still in place
    3: ((100, 7, 20), (100, 7, 300), 31, "14" * 4 + "28" * 26, 30, 2, 32),
    # 2 + 31 > 32, 31 <= 4096: capacity(31) = 32, a new array, the unread bytes at 0
    4: ((100, 7, 20), (100, 7, 300), 32, "14" * 6 + "28" * 25, 31, 0, 32),
    5: ((100, 7, 20), (100, 7, 300), 33, "14" * 8 + "28" * 24, 32, 0, 32),
    # 0 + 33 > 32: capacity(33) = 64
    6: ((100, 7, 20), (100, 7, 300), 34, "14" * 10 + "28" * 23, 33, 0, 64),
    7: ((100, 7, 20), (100, 7, 4396), 35, "14" * 10 + "28" * 23 + "808001", 36, 0, 64),
    # a = (100,7,300) b = (100,7,4396): 80 80 01 (3 B) -> 04 (gap 1) fc 7f (4095 << 2 =
    # 16380 = 0x3ffc: 7c|80, 7f): 3 B, g = 0
    8: ((100, 7, 20), (100, 7, 4396), 36, "14" * 10 + "28" * 23 + "04fc7f", 36, 0, 64),
    # k = (50,7,0): token(k -> (100,7,20)) = varint(50 << 2 | 2 = 202) ca 01, zigzag(0) 00,
    # varint(20) 14: 4 B in front, 4 + 36 <= 64 in place
    9: ((50, 7, 0), (100, 7, 4396), 37, "ca010014" + "14" * 10 + "28" * 23 + "04fc7f", 40, 0, 64),
}


def replay_splice(steps: int) -> SortedChunksTracker:
    """The hand splice rows up to step ``steps`` (0: the 31 adds) on the model."""
    tr = SortedChunksTracker(1)
    rows = SPLICE_ROWS[: 31 + steps]
    for led, ent, at, now in rows:
        if led is None:
            tr.get_scheduled_messages(ent, now)
        else:
            assert tr.add_message(led, ent, at, now)
    return tr


def chunk_state(c: sc.Chunk) -> tuple:
    return (c.first, c.last, c.count, c.unread().hex(), c.length, c.read_offset, c.capacity)


@pytest.mark.parametrize("step", sorted(SPLICE_STEPS))
def test_splice_bytes_capacity_and_read_offset_by_hand(step):
    tr = replay_splice(step)
    (chunk,) = tr.chunks
    assert chunk_state(chunk) == SPLICE_STEPS[step]
    assert chunk.keys() == sorted(chunk.keys()) and len(chunk.keys()) == chunk.count


def test_a_splice_never_shrinks_by_hand():
    # the g = 0 case of step 8, and the three cases at the ends
    assert sc.splice_growth((100, 7, 300), (100, 7, 301), (100, 7, 4396)) == 0
    assert sc.splice_growth((100, 7, 20), (100, 7, 25), (100, 7, 30)) == 1
    assert sc.splice_growth(None, (50, 7, 0), (100, 7, 20)) == 4
    assert sc.splice_growth((100, 7, 20), (100, 7, 25), None) == 1
    # the largest shrink one might hope for: k at b's tick and ledger with a tiny entry id,
    # b's entry id huge: the absolute id moves to k (1 B) but the gap keeps b's size
    a, k, b = (0, 0, 0), (1, 0, 0), (1, 0, (1 << 62) - 1)
    assert len(sc.token(a, b)) == 1 + 1 + 9
    assert sc.splice_growth(a, k, b) == 3 + 10 - 11


_magnitudes = st.one_of(
    st.integers(0, 130), st.integers(0, 1 << 20), st.integers(0, (1 << 61) - 1),
    st.sampled_from([0, 1, 127, 128, 16383, 16384, (1 << 61) - 1]),
)  # fmt: skip


@given(st.lists(st.tuples(_magnitudes, _magnitudes, _magnitudes), min_size=3, max_size=3,
                unique=True).map(sorted))  # fmt: skip
@settings(max_examples=2000)
def test_a_splice_never_shrinks(three):
    """No negative growth exists (the proof: splice_growth's docstring); searched here over
    keys of every varint size."""
    a, k, b = three
    assert sc.splice_growth(a, k, b) >= 0
    assert sc.splice_growth(None, a, k) >= 1 and sc.splice_growth(a, k, None) >= 1


# --------------------------------------------------------------------------- machines


class SortedChunksMachine(ProposalMachine):
    """Due at the tick's last ms: :meth:`DeliveryWindow.whole_tick`, replays refused."""

    checks_replay = True

    def make(self, tick, strict, delay, lookahead=0):
        return SortedChunksTracker(tick, strict)

    def window(self, tick, strict):
        return DeliveryWindow.whole_tick(tick, strict, self.tracker.bits)

    @invariant()
    def chunks_are_well_formed(self):
        if hasattr(self, "tracker"):
            _check_chunks(self.tracker)


def _check_chunks(tr: SortedChunksTracker) -> None:
    prev = None
    total = 0
    for c in tr.chunks:
        assert c.length <= sc.CHUNK_MAX_BYTES  # never above 4096 bytes of data
        assert c.read_offset + c.length <= c.capacity <= sc.CHUNK_MAX_BYTES
        keys = c.keys()
        assert len(keys) == c.count and keys == sorted(set(keys)) and keys[-1] == c.last
        assert prev is None or prev < keys[0]
        prev = keys[-1]
        total += c.count
    assert total == tr.count == sum(len(b) for b in tr.bitmaps.values())


class WideIdMachine(RuleBasedStateMachine):
    """64-bit ledger and entry ids (a band chosen per run so deltas stay below 2^62), entry ids
    above 2^32, re-adds of held positions, bursts of out-of-order adds that force splits."""

    @initialize(
        band=st.sampled_from([0, (1 << 32) - 40, 1 << 62, MAX_ID - (1 << 50)]),
        tick=st.sampled_from([1, 16, 1000]),
        strict=st.booleans(),
    )
    def setup(self, band, tick, strict):
        self.band = band
        self.tracker = SortedChunksTracker(tick, strict)
        self.ref = NaiveDelayedIndex(tick, strict)
        self.now = 1_000_000

    def _pos(self, lo: int, eo: int) -> tuple[int, int]:
        return min(self.band + lo, MAX_ID), min(self.band + eo, MAX_ID)

    def _add(self, ledger, entry, deliver_at):
        held = self.ref.tracks(ledger, entry)
        got = self.tracker.add_message(ledger, entry, deliver_at, self.now)
        if held:
            assert got == (deliver_at > self.ref.cutoff(self.now))
            assert self.tracker.contains_message(ledger, entry)
        else:
            assert got == self.ref.add(ledger, entry, deliver_at, self.now)

    @rule(
        lo=st.sampled_from([0, 1, 2, 1 << 40]),
        eo=st.one_of(st.integers(0, 40), st.integers(0, 1 << 49)),
        dt=st.integers(-5, 5000),
    )
    def add(self, lo, eo, dt):
        self._add(*self._pos(lo, eo), self.now + dt)

    @rule(seed=st.integers(0, 2**32), n=st.integers(150, 450))
    def burst(self, seed, n):
        rng = random.Random(seed)
        for _ in range(n):
            lo = rng.choice([0, 1, 1 << 40])
            eo = rng.randrange(1 << 49) if rng.random() < 0.7 else rng.randrange(64)
            self._add(*self._pos(lo, eo), self.now + rng.randrange(2000, 3000))

    @rule(data=st.data())
    def readd_held(self, data):
        held = sorted(self.ref.deliver_at())
        if held:
            ledger, entry = data.draw(st.sampled_from(held))
            before = self.tracker.number_of_delayed_messages()
            assert self.tracker.add_message(ledger, entry, self.now + 10**6, self.now)
            assert self.tracker.number_of_delayed_messages() == before

    @rule(dt=st.integers(0, 3000))
    def advance(self, dt):
        self.now += dt

    @rule(n=st.integers(1, 400))
    def get_scheduled(self, n):
        got = self.tracker.get_scheduled_messages(n, self.now)
        assert got == sorted(set(got)) and len(got) <= n
        # due at the tick's last ms (DeliveryWindow.whole_tick): deliverAt <= cutoff, so a
        # replay at the same now is refused
        cutoff = self.tracker.cutoff(self.now)
        due = self.ref.deliver_at()
        for pos in got:
            assert pos in due and due[pos] <= cutoff
        self.ref.remove(got)
        for pos in got:
            assert not self.tracker.add_message(*pos, due[pos], self.now)
            assert not self.ref.add(*pos, due[pos], self.now)
        if len(got) < n:  # nothing due left behind
            mask = (1 << self.tracker.bits) - 1
            assert all((t | mask) > cutoff for t, _, _ in self.ref.heap)
        for pos in got:
            assert not self.tracker.contains_message(*pos)

    @invariant()
    def consistent(self):
        if hasattr(self, "tracker"):
            assert self.tracker.number_of_delayed_messages() == len(self.ref)
            _check_chunks(self.tracker)
            for _, led, e in self.ref.heap[:50]:
                assert self.tracker.contains_message(led, e)


TestSortedChunksMachine = SortedChunksMachine.TestCase
TestSortedChunksMachine.settings = SETTINGS
TestWideIdMachine = WideIdMachine.TestCase
TestWideIdMachine.settings = settings(
    max_examples=12, stateful_step_count=15, deadline=None, phases=NO_SHRINK
)


# --------------------------------------------------------------------------- bulk path


def _per_message_key_order(t, led, e, tick_ms=1000, layout=COMPRESSED) -> SortedChunksTracker:
    tr = SortedChunksTracker(tick_ms)
    for i in np.lexsort((e, led, t)).tolist():
        assert tr.add_message(int(led[i]), int(e[i]), int(t[i]) << tr.bits, 0)
    return tr


@pytest.mark.parametrize(
    ("delay", "messages", "epl", "batch"),
    [
        ("uniform:0:1h", 8000, 3000, 1),
        ("fixed:10s", 12_000, 700, 1),
        ("mix:0.8*uniform:0:60s+0.2*uniform:1d:30d", 8000, 60_002, 1),
        ("uniform:0:30s", 9000, 500, 3),  # batches: a position keeps its first add
    ],
)
def test_bulk_sorted_build_equals_the_per_message_model(delay, messages, epl, batch):
    w = Workload.from_options(messages, 2.0, delay=delay, entries_per_ledger=epl, batch_size=batch)
    t, led, e = sc.tracked_arrays(w, 1000)
    tr = _per_message_key_order(t, led, e)
    bulk = sc.sorted_build(t, led, e)
    assert (bulk.entries, bulk.chunks, bulk.ledgers) == (tr.count, len(tr.chunks), len(tr.bitmaps))
    assert bulk.data_bytes == sum(c.length for c in tr.chunks)
    assert bulk.jvm_bytes == tr.jvm_bytes()
    assert bulk.chunks > 1
    # in key order every add is an append: only the last chunk may be below full
    for c, nxt in zip(tr.chunks, tr.chunks[1:], strict=False):
        assert c.length + len(sc.token(c.last, nxt.first)) > sc.CHUNK_MAX_BYTES
    # the tracker fed in publish order instead (the dispatcher's order) holds the same keys
    pub = SortedChunksTracker(1000)
    for i in range(len(t)):
        pub.add_message(int(led[i]), int(e[i]), int(t[i]) << 9, 0)
    _check_chunks(pub)
    assert pub.count == tr.count


def test_bulk_path_with_wide_entry_ids():
    rng = np.random.default_rng(7)
    n = 3000
    led = rng.integers(1 << 40, (1 << 40) + 4, n)
    e = np.where(rng.random(n) < 0.5, rng.integers(0, 5000, n), rng.integers(1 << 33, 1 << 34, n))
    t = rng.integers(10, 60, n)  # deliverAt = t << 9 > cutoff 1000 at now 0
    pos: dict[tuple[int, int], int] = {}
    for i in range(n):  # distinct positions, the first draw of each
        pos.setdefault((int(led[i]), int(e[i])), i)
    idx = np.array(sorted(pos.values()))
    t, led, e = t[idx], led[idx], e[idx]
    tr = _per_message_key_order(t, led, e)
    assert tr.wide  # some ledgers hold Roaring64Bitmaps
    assert sc.sorted_build(t, led, e).jvm_bytes == tr.jvm_bytes()


def test_chunk_lengths_greedy_by_hand():
    # tokens (the first key has none): 0, 3000, 1000, 100, 4000, 5. Chunk A: keys 0..2, 4000
    # bytes (key 3 would make 4100 > 4096, so it opens chunk B alone, its token not stored);
    # B: key 4 -> 4000, key 5 -> 4005 (open)
    closed, open_len = sc.chunk_lengths(np.array([0, 3000, 1000, 100, 4000, 5]))
    assert closed == [4000] and open_len == 4005


def test_catalog_sizes_the_sorted_build():
    w = Workload.from_options(5000, 1.0, delay="uniform:0:1h", entries_per_ledger=100_000)
    got = CATALOG["sorted-chunks"].build(SizeRequest(w, tick_ms=1000))  # type: ignore[misc]
    t, led, e = sc.tracked_arrays(w, 1000)
    assert got.jvm_bytes == _per_message_key_order(t, led, e).jvm_bytes()
    assert got.entries == len(t) and got.details["build_order"].startswith("key order")


def test_bad_positions_are_value_errors():
    tr = SortedChunksTracker()
    with pytest.raises(ValueError, match="2\\^63-1"):
        tr.add_message(-1, 0, 10**6, 0)
    with pytest.raises(ValueError, match="2\\^63-1"):
        tr.add_message(0, 1 << 63, 10**6, 0)
