"""Bulk construction helpers shared by the ``PendingAcksMap`` layouts (numpy, no per-entry loop).

``from_arrays`` on each layout builds the state that ``addPendingAckIfAllowed`` over the
arrays, in order, would build; these helpers validate the arrays once and split them by
ledger, keeping the order of the puts inside each ledger.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from trackerlab.core.errors import UsageError
from trackerlab.models.pending_acks.common import INT32_MAX, INT32_MIN

Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def check_arrays(ledger_ids, entry_ids, remaining, hashes) -> Arrays:
    """int64 ids, remaining counts in 0..2^31-1 and int32 hashes, all of one length."""
    arrays = [np.asarray(a) for a in (ledger_ids, entry_ids, remaining, hashes)]
    names = ("ledger_ids", "entry_ids", "remaining_unacked", "sticky_key_hashes")
    n = len(arrays[0])
    for name, a in zip(names, arrays, strict=True):
        if a.ndim != 1 or len(a) != n:
            raise UsageError(f"{name} must be a 1-d array of length {n}, got shape {a.shape}")
        if n and not np.issubdtype(a.dtype, np.integer):
            raise UsageError(f"{name} must hold integers, got dtype {a.dtype}")
    ledgers, entries, rem, hsh = (a.astype(np.int64) for a in arrays)
    if n and (rem.min() < 0 or rem.max() > INT32_MAX):
        raise UsageError(
            f"remaining_unacked must be an integer in 0..{INT32_MAX}, got {int(rem.min())}"
        )
    if n and (hsh.min() < INT32_MIN or hsh.max() > INT32_MAX):
        raise UsageError(f"sticky_key_hashes must be Java ints in {INT32_MIN}..{INT32_MAX}")
    return ledgers, entries, rem, hsh


def split_by_ledger(ledger_ids, entry_ids, remaining, hashes) -> Iterator[tuple[int, Arrays]]:
    """``(ledgerId, (positions, entry ids, remaining, hashes))`` per ledger, ascending;
    inside a ledger the puts keep their order. O(n log n)."""
    ledgers, entries, rem, hsh = check_arrays(ledger_ids, entry_ids, remaining, hashes)
    order = np.argsort(ledgers, kind="stable")
    sorted_ledgers = ledgers[order]
    starts = np.flatnonzero(np.r_[True, sorted_ledgers[1:] != sorted_ledgers[:-1]])
    uniq = sorted_ledgers[starts] if len(order) else sorted_ledgers
    bounds = np.append(starts, len(order))
    for i, ledger_id in enumerate(uniq.tolist()):
        sl = order[bounds[i] : bounds[i + 1]]
        yield ledger_id, (sl, entries[sl], rem[sl], hsh[sl])


def sorted_buckets(
    ledger_ids, entry_ids, remaining, hashes
) -> Iterator[tuple[int, list[int], list[int], list[int]]]:
    """Per ledger: entry ids, remaining counts and hashes as Python lists, in put order."""
    for ledger_id, (_, e, r, h) in split_by_ledger(ledger_ids, entry_ids, remaining, hashes):
        yield ledger_id, e.tolist(), r.tolist(), h.tolist()


def pack_array(remaining: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """``PendingAckValues.pack`` over arrays (int64)."""
    return (remaining.astype(np.int64) << 32) | (hashes.astype(np.int64) & 0xFFFF_FFFF)
