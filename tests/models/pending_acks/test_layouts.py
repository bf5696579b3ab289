"""Every PendingAcksMap layout against the naive dict reference (hypothesis state machines),
plus the operations' edge cases: packing, handlers, callback order, index fallback."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.reference.pending_acks import NaivePendingAcksMap
from trackerlab.core.errors import UsageError
from trackerlab.models.pending_acks.common import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    NOT_FOUND,
    pack,
    unpack,
)
from trackerlab.models.pending_acks.layouts import (
    LAYOUTS,
    Dataset,
    benchmark_hash,
    build,
    check_layout,
    new_pending_acks,
)
from trackerlab.models.pending_acks.open_hash import MAX_INDEXED_ENTRY_ID

HASHES = st.integers(INT32_MIN, INT32_MAX)
LEDGERS = st.one_of(st.integers(0, 4), st.just(1 << 40))
BIG_IDS = [MAX_INDEXED_ENTRY_ID - 1, MAX_INDEXED_ENTRY_ID, MAX_INDEXED_ENTRY_ID + 1, 3 << 20]
ENTRIES = st.one_of(st.integers(-3, 40), st.sampled_from(BIG_IDS))


def refused(hash_: int) -> bool:
    """The add handler refuses these hashes (a Key_Shared draining hash)."""
    return hash_ % 7 == 3


class Recorder:
    """A PendingAcksRemoveHandler that logs its calls."""

    def __init__(self) -> None:
        self.log: list[tuple] = []

    def handle_removing(self, ledger_id, entry_id, sticky_key_hash, closing):
        self.log.append(("remove", ledger_id, entry_id, sticky_key_hash, closing))

    def start_batch(self):
        self.log.append(("start",))

    def end_batch(self):
        self.log.append(("end",))


def same_rows(layout_cls, got: list, want: list) -> None:
    """Sorted layouts: the exact order. Hash layouts: ledgers ascending (when the layout has
    ledger buckets), any entry order."""
    if layout_cls.sorted_entries:
        assert got == want
    else:
        assert sorted(got) == want
        ledgers = [row[0] for row in got]
        assert ledgers == sorted(ledgers) or not layout_cls.ledger_ordered


# --------------------------------------------------------------------------- state machines


def machine_for(layout: str, **options):
    """A state machine of ``layout`` (``options`` go to its constructor) vs the reference."""
    cls = LAYOUTS[layout]

    class LayoutVsReference(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.recorder = Recorder()
            self.model = cls(
                add_handler=lambda led, e, h: not refused(h),
                remove_handler=self.recorder,
                **options,
            )
            self.ref = NaivePendingAcksMap(
                cls.refuses_negative_update,
                skips_negative_boundary=layout == "pending-acks-open-hash-bitset",
            )

        def _handled(self) -> list[tuple]:
            log, self.recorder.log = self.recorder.log, []
            return log

        @rule(led=LEDGERS, e=ENTRIES, r=st.integers(0, 20), h=HASHES)
        def add(self, led, e, r, h):
            expected = self.ref.add(led, e, r, h, allowed=not refused(h))
            assert self.model.add_pending_ack_if_allowed(led, e, r, h) == expected

        @rule(led=LEDGERS, e=ENTRIES)
        def lookups(self, led, e):
            pair = self.ref.acks.get((led, e))
            assert self.model.contains(led, e) == (pair is not None)
            assert self.model.get(led, e) == pair
            assert self.model.get_remaining_unacked(led, e) == (
                NOT_FOUND if pair is None else pair[0]
            )

        @rule(led=LEDGERS, e=ENTRIES)
        def remove(self, led, e):
            pair = self.ref.remove(led, e)
            assert self.model.remove(led, e) == (pair is not None)
            want = [] if pair is None else [("remove", led, e, pair[1], self.ref.closed)]
            assert self._handled() == want

        @precondition(lambda self: self.ref.acks)
        @rule(data=st.data(), matching=st.booleans())
        def remove_conditional(self, data, matching):
            (led, e), (r, h) = data.draw(st.sampled_from(sorted(self.ref.acks.items())))
            if r < 0:  # only reachable through update in the non-refusing layouts
                return
            if not matching:
                r, h = r + 1, h
            removed = self.ref.remove(led, e, (r, h))
            assert self.model.remove(led, e, r, h) == (removed is not None)
            want = [] if removed is None else [("remove", led, e, h, self.ref.closed)]
            assert self._handled() == want

        @precondition(lambda self: self.ref.acks)
        @rule(data=st.data(), delta=st.integers(-5, 25))
        def update(self, data, delta):
            led, e = data.draw(st.sampled_from(sorted(self.ref.acks)))
            assert self.model.update_remaining_unacked(led, e, delta) == self.ref.update(
                led, e, delta
            )

        @rule(led=LEDGERS, e=ENTRIES, delta=st.integers(0, 3))
        def update_missing_or_not(self, led, e, delta):
            assert self.model.update_remaining_unacked(led, e, delta) == self.ref.update(
                led, e, delta
            )

        @rule(led=st.integers(-1, 5), e=st.one_of(st.integers(-2, 45), st.sampled_from(BIG_IDS)))
        def remove_all_up_to(self, led, e):
            want = self.ref.remove_all_up_to(led, e)
            got = []
            n = self.model.remove_all_up_to(led, e, lambda *row: got.append(row))
            assert n == len(want)
            same_rows(cls, got, want)
            handled = self._handled()
            if want:
                assert handled[0] == ("start",) and handled[-1] == ("end",)
                calls = [(x[1], x[2], x[3]) for x in handled[1:-1]]
                assert calls == [(row[0], row[1], row[3]) for row in got]  # handler, callback
            else:
                assert handled == []

        @rule()
        def for_each(self):
            got = []
            self.model.for_each(lambda *row: got.append(row))
            same_rows(cls, got, self.ref.rows())

        @rule(close=st.booleans())
        def for_each_and_clear(self, close):
            got = []
            (self.model.for_each_and_close if close else self.model.for_each_and_clear)(
                lambda *row: got.append(row)
            )
            same_rows(cls, got, self.ref.rows())
            self.ref.closed |= close
            handled = self._handled()
            assert handled[0] == ("start",) and handled[-1] == ("end",)
            assert all(x[4] == self.ref.closed for x in handled[1:-1])
            self.ref.acks.clear()

        @invariant()
        def same_content(self):
            assert self.model.size() == len(self.ref.acks)
            assert sorted(self.model.items()) == self.ref.rows()
            assert self.model.ledger_count() in (0, len({led for led, _ in self.ref.acks}))
            assert self.model.jvm_bytes() > 0

    LayoutVsReference.__name__ = f"{layout}-vs-reference"
    LayoutVsReference.TestCase.settings = settings(
        max_examples=35, stateful_step_count=40, deadline=None
    )
    return LayoutVsReference.TestCase


for _layout in LAYOUTS:
    globals()[f"TestStateMachine_{_layout.replace('-', '_')}"] = machine_for(_layout)
#: The benchmark's old store removes differently (no copy, whole ledgers dropped): same results.
TestStateMachine_treemap_jmh_store = machine_for("pending-acks-treemap", jmh_old_store=True)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_copy_is_independent(layout):
    m = build(layout, *Dataset(300, 3).arrays())
    clone = m.copy()
    clone.remove_all_up_to(1, 50)
    clone.add_pending_ack_if_allowed(9, 9, 1, 1)
    assert m.size() == 300 and clone.size() == 300 - 151 + 1
    assert list(m.items()) == list(build(layout, *Dataset(300, 3).arrays()).items())


# --------------------------------------------------------------------------- packing


@given(st.integers(0, INT32_MAX), HASHES)
def test_packing_round_trips_signed_hashes(remaining, hash_):
    packed = pack(remaining, hash_)
    assert -(2**63) <= packed <= INT64_MAX
    assert unpack(packed) == (remaining, hash_)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_packed_zero_is_a_valid_value(layout):
    assert pack(0, 0) == 0
    m = new_pending_acks(layout)
    assert m.add_pending_ack_if_allowed(7, 3, 0, 0)
    assert m.contains(7, 3) and m.get(7, 3) == (0, 0) and m.get_remaining_unacked(7, 3) == 0
    assert m.remove(7, 3, 0, 0) and m.size() == 0
    assert m.add_pending_ack_if_allowed(7, 3, 5, -1) and m.get(7, 3) == (5, -1)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_remove_all_up_to_is_inclusive_across_ledgers_in_order(layout):
    m = new_pending_acks(layout)
    for ledger in (3, 1, 2):
        for entry in (5, 0, 9):
            m.add_pending_ack_if_allowed(ledger, entry, entry + 1, -entry)
    got = []
    assert m.remove_all_up_to(2, 5, lambda *row: got.append(row)) == 5
    want = [(1, 0, 1, 0), (1, 5, 6, -5), (1, 9, 10, -9), (2, 0, 1, 0), (2, 5, 6, -5)]
    same_rows(LAYOUTS[layout], got, want)
    assert m.size() == 4 and m.ledger_count() in (0, 2)


@pytest.mark.parametrize(
    "layout", ["pending-acks-treemap", "pending-acks-packed-rb", "pending-acks-packed-avl"]
)
def test_head_map_overflow_at_long_max_removes_nothing(layout):
    """``headMap(markDeleteLedgerId + 1)`` wraps to Long.MIN_VALUE (Java long arithmetic)."""
    m = new_pending_acks(layout)
    m.add_pending_ack_if_allowed(1, 1, 1, 1)
    assert m.remove_all_up_to(INT64_MAX, 0) == 0 and m.size() == 1
    assert m.remove_all_up_to(1, INT64_MAX) == 0 and m.size() == 1
    assert new_pending_acks("pending-acks-open-hash-bitset").remove_all_up_to(INT64_MAX, 0) == 0


def test_update_refuses_negative_only_in_packed_layouts():
    for layout, cls in LAYOUTS.items():
        m = new_pending_acks(layout)
        m.add_pending_ack_if_allowed(1, 1, 2, 9)
        assert m.update_remaining_unacked(1, 1, 3) == (not cls.refuses_negative_update)
        assert m.get(1, 1) == ((2, 9) if cls.refuses_negative_update else (-1, 9))


def test_closed_map_refuses_adds_and_handlers_see_closing():
    rec = Recorder()
    m = new_pending_acks("pending-acks-treemap", remove_handler=rec)
    m.add_pending_ack_if_allowed(1, 1, 1, 1)
    seen = []
    m.for_each_and_close(lambda *row: seen.append(row))
    assert seen == [(1, 1, 1, 1)] and m.size() == 0 and m.closed
    assert rec.log == [("start",), ("remove", 1, 1, 1, True), ("end",)]
    assert not m.add_pending_ack_if_allowed(1, 2, 1, 1)


# --------------------------------------------------------------------------- index fallback


def test_entry_ids_beyond_the_index_range_fall_back_to_scanning():
    """#26024: an entry id outside 0..2^20 clears and disables the ledger's BitSet index;
    cleanup then scans the hash map (``removeIf``) and stays correct."""
    m = new_pending_acks("pending-acks-open-hash-bitset")
    for e in range(100):
        m.add_pending_ack_if_allowed(5, e, 1, e)
    bucket = m._ledgers[5]
    assert bucket.index_enabled and bucket.index.cardinality() == 100
    m.add_pending_ack_if_allowed(5, MAX_INDEXED_ENTRY_ID + 1, 1, 0)
    assert not bucket.index_enabled and bucket.index.cardinality() == 0
    assert bucket.index.length_words == 2  # cleared, never shrunk
    got = []
    assert m.remove_all_up_to(5, 49, lambda *row: got.append(row[1])) == 50
    assert sorted(got) == list(range(50))
    assert m.size() == 51 and m.contains(5, MAX_INDEXED_ENTRY_ID + 1)
    assert m.remove_all_up_to(5, MAX_INDEXED_ENTRY_ID + 1) == 51 and m.ledger_count() == 0


def test_index_walk_is_ascending_and_bounded():
    m = new_pending_acks("pending-acks-open-hash-bitset")
    for e in (9, 3, 700, 12, 0):
        m.add_pending_ack_if_allowed(1, e, 1, e)
    got = []
    m.remove_all_up_to(1, 12, lambda *row: got.append(row[1]))
    assert got == [0, 3, 9, 12]  # nextSetBit order
    assert m._ledgers[1].index.next_set_bit(0) == 700


def test_negative_mark_delete_entry_keeps_the_boundary_ledger_in_26024():
    for layout, kept in (
        ("pending-acks-open-hash-bitset", 1),
        ("pending-acks-open-hash", 0),
        ("pending-acks-treemap", 0),
    ):
        m = new_pending_acks(layout)
        m.add_pending_ack_if_allowed(1, -5, 1, 1)
        m.remove_all_up_to(1, -1)
        assert m.size() == kept, layout


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda m: m.add_pending_ack_if_allowed(1, 1, -1, 0), "remaining_unacked"),
        (lambda m: m.add_pending_ack_if_allowed(1, 1, 1, 1 << 31), "sticky_key_hash"),
        (lambda m: m.remove(1, 1, -2, 0), "batch_size"),
        (lambda m: m.add_pending_ack_if_allowed(1 << 63, 1, 1, 0), "ledger_id"),
    ],
)
def test_bad_values_raise_one_line_usage_errors(call, needle):
    with pytest.raises(UsageError) as err:
        call(new_pending_acks("pending-acks-packed-rb"))
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_unknown_layout_is_a_usage_error():
    with pytest.raises(
        UsageError, match="unknown layout 'btree'; choose one of: pending-acks-treemap"
    ):
        check_layout("btree")
    with pytest.raises(UsageError, match="remaining_unacked must be an integer in 0"):
        build("pending-acks-treemap", [1], [1], [-1], [0])


# --------------------------------------------------------------------------- bulk path


@pytest.mark.parametrize("layout", list(LAYOUTS))
@settings(max_examples=25, deadline=None)
@given(rows=st.lists(st.tuples(LEDGERS, ENTRIES, st.integers(0, 9), HASHES), max_size=80))
def test_bulk_build_equals_per_entry_adds(layout, rows):
    seq = new_pending_acks(layout)
    for row in rows:
        seq.add_pending_ack_if_allowed(*row)
    cols = (
        [np.array(c, dtype=np.int64) for c in zip(*rows, strict=True)]
        if rows
        else [np.zeros(0, np.int64)] * 4
    )
    bulk = build(layout, *cols)
    assert bulk.size() == seq.size() and bulk.jvm_bytes() == seq.jvm_bytes()
    if LAYOUTS[layout].ledger_ordered:
        assert list(bulk.items()) == list(seq.items())
    else:  # pair_hash_map's bulk path lays colliding keys out in a canonical order
        assert sorted(bulk.items()) == sorted(seq.items())


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_dataset_follows_the_benchmark(layout):
    ds = Dataset(1003, 5)
    ledgers, entries, remaining, hashes = ds.arrays()
    assert np.bincount(ledgers).tolist() == [201, 201, 201, 200, 200]
    assert entries[201] == 0 and remaining[:3].tolist() == [1, 2, 3]
    assert hashes[2] == 62 and benchmark_hash(np.array([69_273_667]))[0] == -2_147_483_619
    m = ds.build(layout)
    assert m.size() == 1003


# --------------------------------------------------------------------------- pre-4.0 layout


def test_pair_hash_rejects_negative_ledger_ids_and_refuses_negative_counts():
    m = new_pending_acks("pending-acks-pair-hash")
    with pytest.raises(UsageError, match="ledger_id must be an integer >= 0"):
        m.add_pending_ack_if_allowed(-1, 0, 1, 0)
    assert not m.contains(-1, 0) and m.get(-1, 0) is None
    m.add_pending_ack_if_allowed(1, 1, 1, -7)
    assert not m.update_remaining_unacked(1, 1, 2) and m.get(1, 1) == (1, -7)


def test_pair_hash_table_grows_and_shrinks_only_with_auto_shrink():
    sizes = {}
    for auto_shrink in (False, True):
        m = new_pending_acks("pending-acks-pair-hash", auto_shrink=auto_shrink)
        assert m.capacity() == 512 and m.jvm_bytes() == 16_536
        for e in range(2000):
            m.add_pending_ack_if_allowed(1, e, 1, 0)
        assert m.capacity() == 4096
        m.remove_all_up_to(1, 1989)
        sizes[auto_shrink] = (m.size(), m.capacity())
    assert sizes == {False: (10, 4096), True: (10, 512)}
