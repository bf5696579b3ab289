"""java.util.BitSet model against the naive bit set, and its word-array growth rule."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tests.reference.primitives import NaiveBitSet
from trackerlab.models.primitives.java_bitset import JavaBitSet
from trackerlab.sizing.jvm_collections import BitSetWords

BITS = st.integers(0, 5000)


def test_growth_doubles_or_jumps_and_never_shrinks():
    bs = JavaBitSet()
    assert bs.length_words == 1 and bs.jvm_bytes() == 48
    for i in range(100):
        bs.set(i)
    assert bs.length_words == 2 and bs.jvm_bytes() == 24 + 32  # 100 bits: long[2]
    bs.set(49_999)  # required 782 > 2 * 2: jump to 782
    assert bs.length_words == 782
    bs.clear_all()
    assert bs.length_words == 782 and bs.words_in_use == 0 and bs.next_set_bit(0) == -1


def test_seed_index_sizes():
    """#26024 BitSet overhead: ascending ids 0..n-1 -> long[2], long[16], long[1024]."""
    for n, words in [
        (10, 1),
        (100, 2),
        (1000, 16),
        (2500, 64),
        (5000, 128),
        (10_000, 256),
        (50_000, 1024),
    ]:
        bs = JavaBitSet.from_sets(np.arange(n))
        assert bs.length_words == words, n
        tracker = BitSetWords()
        tracker.set_many(range(n))
        assert tracker.length == words


@settings(max_examples=50, deadline=None)
@given(st.lists(BITS, max_size=200))
def test_bulk_equals_sequential(bits):
    seq = JavaBitSet()
    for b in bits:
        seq.set(b)
    bulk = JavaBitSet.from_sets(np.array(bits, dtype=np.int64))
    assert bulk.words.tolist() == seq.words.tolist() and bulk.words_in_use == seq.words_in_use


class BitSetVsNaive(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.bs = JavaBitSet()
        self.ref = NaiveBitSet()
        self.peak = 1

    @rule(i=BITS)
    def set_bit(self, i):
        self.bs.set(i)
        self.ref.set(i)

    @rule(i=BITS)
    def clear_bit(self, i):
        self.bs.clear(i)
        self.ref.clear(i)

    @rule(a=BITS, b=BITS)
    def clear_range(self, a, b):
        self.bs.clear_range(a, b)
        self.ref.clear_range(a, b)

    @rule()
    def clear_all(self):
        self.bs.clear_all()
        self.ref.clear_all()

    @rule(start=BITS)
    def next_set_bit(self, start):
        assert self.bs.next_set_bit(start) == self.ref.next_set_bit(start)

    @rule(i=BITS)
    def get(self, i):
        assert self.bs.get(i) == (i in self.ref.bits)

    @invariant()
    def same_bits(self):
        assert self.bs.cardinality() == self.ref.cardinality()
        assert self.bs.length() == self.ref.length()
        assert self.bs.length_words == self.ref.length_words
        assert self.bs.length_words >= self.peak
        self.peak = self.bs.length_words


BitSetVsNaive.TestCase.settings = settings(max_examples=30, stateful_step_count=50, deadline=None)
TestBitSetVsNaive = BitSetVsNaive.TestCase
