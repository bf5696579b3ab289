"""Per-bucket statistics of the design lab's proposals, reduced from message arrays.

The proposals of :mod:`trackerlab.models.proposals` store the same (bucket, ledger, entry)
set as the time-bucket index, but their sizes depend on a few more numbers per bucket. This
module computes them, vectorized, for the streaming reducer
(:mod:`trackerlab.models.time_buckets.reducer`), and defines the rules the proposals share,
so that a model built from messages and a Spark sweep sized from counts agree to the byte:

- **ledger slots**: every proposal stores ``slot << 16 | entryId`` in 32 bits, ``slot`` the
  ledger's ordinal among the topic's ledgers modulo 2^16 (:data:`ENTRY_BITS`); entry ids must be
  below 2^16 and fewer than 2^16 ledgers live at once;
- **spill threshold** (``time-buckets-adaptive``): a ledger's first :data:`SPILL_AT` entries of a
  bucket stay in the bucket's packed ``int[]``, the rest go to a ``RoaringBitmap``
  (:func:`spill_threshold`: ski rental between 4 B per packed value and 2 B per array-container
  value plus the container's fixed bytes);
- **gap-coded streams** (``time-buckets-hier``): two levels of buckets, ``2^(bits + 8)`` ms with
  8-bit tick offsets for messages due within ``2^(bits + 8)`` ms, ``2^(bits + 16)`` ms with
  16-bit offsets beyond; each bucket a ``byte[]`` of LEB128 tokens (:func:`stream_token_bytes`).

Transport (no change to the Spark engine): the reducer's per-bucket rows
(``ReducerOutput.bucket_keys`` / ``bucket_ledgers``) are summed per key and their sums
histogrammed. A time bucket's value packs three additive counts (:func:`pack_bucket_value`:
ledgers, packed values, spilled ledgers); a stream bucket of ``time-buckets-hier`` uses a key
with :data:`STREAM_TAG` set and the value ``token bytes << 24``, whose low 24 bits are zero
where a time bucket's ledger count is at least one (:func:`split_histogram`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from trackerlab.sizing.jvm import COMPRESSED

#: Bits of the entry id in a packed 32-bit value; the ledger slot takes the other 16.
ENTRY_BITS = 16
SLOT_MASK = (1 << 16) - 1
#: Bit 62 of a key marks a stream bucket of ``time-buckets-hier`` (time keys stay below 2^42).
STREAM_TAG = 1 << 62
#: Offset bits (ticks per bucket, as a power of two) of the two stream levels.
NEAR_SHIFT, FAR_SHIFT = 8, 16
#: Fields of a time bucket's packed value: ledgers (24 bits), packed values (20), spilled (19).
LEDGER_BITS, PACKED_BITS = 24, 20
LEDGER_FIELD = (1 << LEDGER_BITS) - 1
PACKED_FIELD = (1 << PACKED_BITS) - 1


def spill_threshold() -> int:
    """Values a ledger keeps in a bucket's packed ``int[]`` before it spills to a bitmap.

    Ski rental: a packed value costs 4 B, a value of an array container 2 B, and a container
    costs fixed ``ArrayContainer`` (24 B) + ``char[]`` header (16 B) + its ``char`` key and
    ``Container[]`` slot in the ``RoaringArray`` (2 + 4 B) = 46 B with compressed oops. Paying
    the 2-B premium until it adds up to the fixed cost, ``ceil(46 / 2) = 23`` values, never costs
    more than twice the better choice made in hindsight."""
    lay = COMPRESSED
    fixed = lay.instance("IL") + lay.array(0, "C") + 2 + lay.ref
    return math.ceil(fixed / (4 - 2))


SPILL_AT = spill_threshold()


def pack_bucket_value(ledgers: np.ndarray, packed: np.ndarray, spilled: np.ndarray) -> np.ndarray:
    """One time bucket's additive counts in one int64: ledgers | packed << 24 | spilled << 44."""
    return (
        np.asarray(ledgers, dtype=np.int64)
        | (np.asarray(packed, dtype=np.int64) << LEDGER_BITS)
        | (np.asarray(spilled, dtype=np.int64) << (LEDGER_BITS + PACKED_BITS))
    )


def group_values(cards: np.ndarray) -> np.ndarray:
    """The packed value of each (bucket, ledger) group with ``cards`` entries: one ledger, its
    first :data:`SPILL_AT` entries packed, one spilled ledger when it holds more."""
    cards = np.asarray(cards, dtype=np.int64)
    return pack_bucket_value(np.ones_like(cards), np.minimum(cards, SPILL_AT), cards > SPILL_AT)


@dataclass(frozen=True)
class LabHistograms:
    """Per-bucket counts of the proposals, as histograms: ``bucket_counts[i]`` time buckets
    hold ``packed[i]`` packed values and ``spilled[i]`` spilled ledgers; ``stream_counts[i]``
    stream buckets hold ``stream_bytes[i]`` token bytes."""

    packed: np.ndarray
    spilled: np.ndarray
    bucket_counts: np.ndarray
    stream_bytes: np.ndarray
    stream_counts: np.ndarray


def split_histogram(
    values: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, LabHistograms]:
    """Split the histogram of per-key sums (``counts[i]`` keys summed to ``values[i]``) into
    the time buckets' ledger histogram (``ledger_counts``, ``bucket_counts``) and the
    proposals' histograms. O(distinct values)."""
    values = np.asarray(values, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    ledgers = values & LEDGER_FIELD
    fine = ledgers > 0
    lv, lc = count_by_key(ledgers[fine], counts[fine])
    packed = (values[fine] >> LEDGER_BITS) & PACKED_FIELD
    spilled = values[fine] >> (LEDGER_BITS + PACKED_BITS)
    key = (packed << 32) | spilled
    kv, kc = count_by_key(key, counts[fine])
    sv, sc = count_by_key(values[~fine] >> LEDGER_BITS, counts[~fine])
    return lv, lc, LabHistograms(kv >> 32, kv & 0xFFFFFFFF, kc, sv, sc)


def count_by_key(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum ``counts`` per distinct key (sorted keys out). O(n log n)."""
    if len(keys) == 0:
        return keys, counts
    order = np.argsort(keys, kind="stable")
    k, c = keys[order], counts[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    return k[starts], np.add.reduceat(c, starts)


# --------------------------------------------------------------------------- streams


def varint_len(x: np.ndarray) -> np.ndarray:
    """Bytes of the LEB128 encoding of each non-negative value (1 for 0). O(n)."""
    x = np.asarray(x, dtype=np.int64)
    n = np.ones(len(x), dtype=np.int64)
    for k in range(1, 10):
        n += x >= (1 << (7 * k))
    return n


def stream_levels(delay_ms: np.ndarray, bits: int) -> np.ndarray:
    """0 (near) for messages due within ``2^(bits + 8)`` ms of being added, else 1 (far)."""
    return (np.asarray(delay_ms) >= (1 << (bits + NEAR_SHIFT))).astype(np.int64)


def stream_keys(
    deliver_at: np.ndarray, level: np.ndarray, bits: int
) -> tuple[np.ndarray, np.ndarray]:
    """The stream bucket key (``start | level``) and the tick offset of each message."""
    shift = np.where(level == 0, bits + NEAR_SHIFT, bits + FAR_SHIFT)
    start = (deliver_at >> shift) << shift
    offset = (deliver_at >> bits) & ((np.int64(1) << (shift - bits)) - 1)
    return start | level, offset


@dataclass(frozen=True)
class StreamTokens:
    """Token bytes per stream bucket, in key order, with the element and run counts."""

    keys: np.ndarray
    token_bytes: np.ndarray
    elements: int
    runs: int


def stream_token_bytes(
    key: np.ndarray, ledger: np.ndarray, entry: np.ndarray, offset: np.ndarray
) -> StreamTokens:
    """Token bytes of each stream bucket holding these elements, given in **stream order**:
    by key, ledger, entry, then arrival; a repeated (key, ledger, entry, offset) is dropped.

    The encoding (``GapStream`` of :mod:`trackerlab.models.proposals.gap_stream`): a run of
    elements with consecutive entry ids of one ledger at one offset is one token: a LEB128
    head ``(payload << 2) | switch << 1 | run`` with ``payload = (gap << w) | offset`` (``gap``
    from the previous element's entry id, ``w`` the level's offset bits); when ``switch`` (the
    first element of its ledger in the bucket, whose ``gap`` is then the entry id itself) the
    2-byte ledger slot; when ``run`` the LEB128 run length - 1. O(n)."""
    key = np.asarray(key, dtype=np.int64)
    ledger = np.asarray(ledger, dtype=np.int64)
    entry = np.asarray(entry, dtype=np.int64)
    offset = np.asarray(offset, dtype=np.int64)
    if len(key) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return StreamTokens(empty, empty, 0, 0)
    key, ledger, entry, offset = _drop_repeats(key, ledger, entry, offset)
    n = len(key)
    same_group = np.r_[False, (key[1:] == key[:-1]) & (ledger[1:] == ledger[:-1])]
    cont = same_group & np.r_[False, (entry[1:] == entry[:-1] + 1) & (offset[1:] == offset[:-1])]
    heads = np.flatnonzero(~cont)
    run_len = np.diff(np.r_[heads, n])
    switch = ~same_group[heads]
    prev_entry = np.r_[0, entry[:-1]][heads]
    gap = np.where(switch, entry[heads], entry[heads] - prev_entry)
    w = np.where((key[heads] & 1) == 0, NEAR_SHIFT, FAR_SHIFT)
    head = ((gap << w) | offset[heads]) << 2
    tokens = varint_len(head) + 2 * switch + np.where(run_len > 1, varint_len(run_len - 1), 0)
    hk = key[heads]
    starts = np.flatnonzero(np.r_[True, hk[1:] != hk[:-1]])
    return StreamTokens(hk[starts], np.add.reduceat(tokens, starts), n, int((run_len > 1).sum()))


def _drop_repeats(
    key: np.ndarray, ledger: np.ndarray, entry: np.ndarray, offset: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Drop later arrivals of an element already in its stream (batched messages of one entry
    due in the same tick); elements of one entry stay in arrival order. O(n), plus a sort when
    an entry has several elements."""
    same = np.r_[False, (key[1:] == key[:-1]) & (ledger[1:] == ledger[:-1])]
    same &= np.r_[False, entry[1:] == entry[:-1]]
    if not same.any():
        return key, ledger, entry, offset
    pos = np.arange(len(key))
    order = np.lexsort((pos, offset, entry, ledger, key))
    k, led, e, o = key[order], ledger[order], entry[order], offset[order]
    dup = np.r_[False, (k[1:] == k[:-1]) & (led[1:] == led[:-1]) & (e[1:] == e[:-1])]
    dup &= np.r_[False, o[1:] == o[:-1]]
    keep = np.ones(len(key), dtype=bool)
    keep[order[dup]] = False
    return key[keep], ledger[keep], entry[keep], offset[keep]


def stream_order(key: np.ndarray, ledger: np.ndarray, entry: np.ndarray) -> np.ndarray | None:
    """The permutation into stream order (key, ledger, entry, then arrival), or None when the
    arrays already are in it (fixed delays). A stable sort of one packed int64 when the ranges
    fit 63 bits, else ``np.lexsort``."""
    if len(key) < 2:
        return None
    dk, dl, de = np.diff(key), np.diff(ledger), np.diff(entry)
    if bool(np.all((dk > 0) | ((dk == 0) & ((dl > 0) | ((dl == 0) & (de >= 0)))))):
        return None
    l0 = int(ledger.min())
    ranks = np.searchsorted(np.unique(key), key)
    wk = max(int(ranks.max()).bit_length(), 1)
    wl = max((int(ledger.max()) - l0).bit_length(), 1)
    we = max(int(entry.max()).bit_length(), 1)
    if wk + wl + we <= 63 and int(entry.min()) >= 0:
        packed = (ranks.astype(np.int64) << (wl + we)) | ((ledger - l0) << we) | entry
        return np.argsort(packed, kind="stable")
    return np.lexsort((np.arange(len(key)), entry, ledger, key))
