"""The slot table: ordinals, the live window, growth and the 2^16 bounds."""

from __future__ import annotations

import numpy as np
import pytest

from trackerlab.core.errors import UsageError
from trackerlab.models.proposals.ledger_slots import (
    LedgerSlots,
    check_bounds,
    slot_capacity,
    slot_table_bytes,
)


def test_window_growth_and_wrap():
    slots = LedgerSlots()
    assert slots.slot(70_000) == 0
    assert slots.capacity == 16
    top = slots.slot(70_000 + 40)
    assert top == 40 and slots.capacity == 64
    below = slots.slot(69_999)  # an older ledger: ordinal -1, slot 0xFFFF
    assert below == 0xFFFF and slots.ledger(below) == 69_999
    assert slots.order(below) < slots.order(0) < slots.order(top)
    assert slots.ledger_array(np.array([0xFFFF, 0, 40])).tolist() == [69_999, 70_000, 70_040]


def test_head_moves_past_released_ledgers_and_restarts_empty():
    slots = LedgerSlots()
    for ledger in (10, 11, 12):
        slots.slot(ledger)
        slots.hold(ledger, 2)
    slots.release(10, 2)
    assert (slots.first, slots.end) == (1, 3)
    slots.release(12, 2)
    assert (slots.first, slots.end) == (1, 3)  # the tail stays until the head passes it
    slots.release(11, 2)
    assert slots.origin is None and slots.capacity == 16  # arrays stay allocated


def test_sizes_and_bounds():
    assert [slot_capacity(w) for w in (1, 16, 17, 1000)] == [16, 16, 32, 1024]
    assert slot_table_bytes(0) == 0 and slot_table_bytes(3) == (16 + 128) + (16 + 64)
    check_bounds(65_536, 65_535)
    with pytest.raises(UsageError, match="entries_per_ledger: the proposals pack entry ids"):
        check_bounds(10, 65_536)
    with pytest.raises(UsageError, match="messages: the proposals pack fewer than 2"):
        check_bounds(65_537, 10)
