"""The gap-coded stream: decoding gives back what was appended, and the reducer's vectorized
token count (lab_stats.stream_token_bytes) equals the bytes a stream really holds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerlab.models.proposals.gap_stream import (
    HEADER_BYTES,
    GapStream,
    read_varint,
    stream_length,
    varint,
)
from trackerlab.models.time_buckets import lab_stats as lab

elements = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 40), st.integers(0, 5)), max_size=80
)


def _in_stream_order(items):
    """Sorted by (slot, entry), arrival kept within an entry (sorted() is stable)."""
    return sorted(items, key=lambda x: (x[0], x[1]))


@settings(max_examples=200, deadline=None)
@given(items=elements, far=st.booleans())
def test_decode_gives_back_the_appended_elements(items, far):
    bits = lab.FAR_SHIFT if far else lab.NEAR_SHIFT
    stream = GapStream(bits)
    kept = []
    for slot, entry, offset in _in_stream_order(items):
        if stream.append(slot, entry, offset):
            kept.append((slot, entry, offset))
    assert list(stream.elements()) == kept
    assert stream.count == len(kept) == len(set(kept))
    assert stream.length == stream_length(stream.used) >= stream.used


@settings(max_examples=200, deadline=None)
@given(items=elements, far=st.booleans())
def test_vectorized_token_bytes_equal_the_stream(items, far):
    items = _in_stream_order(items)
    level = 1 if far else 0
    stream = GapStream(lab.FAR_SHIFT if far else lab.NEAR_SHIFT)
    for slot, entry, offset in items:
        stream.append(slot, entry, offset)
    key = np.full(len(items), 1 << 20 | level, dtype=np.int64)
    cols = np.array(items, dtype=np.int64).reshape(-1, 3)
    tokens = lab.stream_token_bytes(key, cols[:, 0], cols[:, 1], cols[:, 2])
    if not items:
        assert tokens.elements == 0 and len(tokens.keys) == 0
        return
    assert tokens.elements == stream.count
    assert tokens.token_bytes.tolist() == [len(stream.tokens)]
    assert HEADER_BYTES + len(stream.tokens) == stream.used


def test_runs_cost_one_token():
    """1000 consecutive entry ids at one offset: one switch head, the slot, one run count."""
    stream = GapStream(lab.NEAR_SHIFT)
    for entry in range(1000):
        stream.append(5, entry, 7)
    head = ((0 << 8 | 7) << 2) | 2 | 1
    assert bytes(stream.tokens) == varint(head) + (5).to_bytes(2, "big") + varint(999)
    assert read_varint(varint(300), 0) == (300, 2)
    assert stream_length(HEADER_BYTES + 6) == 32 and stream_length(33) == 48
