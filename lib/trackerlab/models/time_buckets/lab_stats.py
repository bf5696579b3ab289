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


_VARINT_STEPS = np.array([1 << (7 * k) for k in range(1, 9)], dtype=np.int64)  # 9 bytes cap 2^63


def varint_len(x: np.ndarray) -> np.ndarray:
    """Bytes of the LEB128 encoding of each non-negative value (1 for 0). O(n log 9)."""
    return 1 + np.searchsorted(_VARINT_STEPS, np.asarray(x, dtype=np.int64), side="right")


def stream_levels(delay_ms: np.ndarray, bits: int) -> np.ndarray:
    """0 (near) for messages due within ``2^(bits + 8)`` ms of being added, else 1 (far)."""
    return (np.asarray(delay_ms) >= (1 << (bits + NEAR_SHIFT))).astype(np.int64)


def stream_keys(
    deliver_at: np.ndarray, level: np.ndarray, bits: int
) -> tuple[np.ndarray, np.ndarray]:
    """The stream bucket key (``start | level``) and the tick offset of each message."""
    near, far = bits + NEAR_SHIFT, bits + FAR_SHIFT
    is_near = level == 0
    start = np.where(is_near, (deliver_at >> near) << near, (deliver_at >> far) << far)
    ticks = deliver_at >> bits
    offset = np.where(is_near, ticks & ((1 << NEAR_SHIFT) - 1), ticks & ((1 << FAR_SHIFT) - 1))
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
    same_group = np.zeros(n, dtype=bool)
    np.logical_and(key[1:] == key[:-1], ledger[1:] == ledger[:-1], out=same_group[1:])
    gap = entry.copy()
    gap[1:] -= np.where(same_group[1:], entry[:-1], 0)
    cont = np.zeros(n, dtype=bool)
    cont[1:] = same_group[1:] & (gap[1:] == 1) & (offset[1:] == offset[:-1])
    payload = np.where((key & 1) == 0, (gap << NEAR_SHIFT) | offset, (gap << FAR_SHIFT) | offset)
    tokens = varint_len(payload << 2) + 2 * ~same_group
    runs = 0
    if cont.any():  # a run's elements after its head cost nothing but the run count
        tokens[cont] = 0
        heads = np.flatnonzero(~cont)
        run_len = np.diff(heads, append=n)
        long_runs = run_len > 1
        tokens[heads[long_runs]] += varint_len(run_len[long_runs] - 1)
        runs = int(long_runs.sum())
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    return StreamTokens(key[starts], np.add.reduceat(tokens, starts), n, runs)


def _drop_repeats(
    key: np.ndarray, ledger: np.ndarray, entry: np.ndarray, offset: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Drop later arrivals of an element already in its stream (batched messages of one entry
    due in the same tick); elements of one entry stay in arrival order. O(n), plus a sort of
    the elements that share their position with another (batched messages only)."""
    same = np.r_[False, (key[1:] == key[:-1]) & (ledger[1:] == ledger[:-1])]
    same &= np.r_[False, entry[1:] == entry[:-1]]
    if not same.any():
        return key, ledger, entry, offset
    run = np.cumsum(~same)
    shared = same | np.r_[same[1:], False]  # rows of a position held more than once
    rows = np.flatnonzero(shared)
    order = rows[np.lexsort((rows, offset[rows], run[rows]))]
    dup = np.r_[
        False, (run[order][1:] == run[order][:-1]) & (offset[order][1:] == offset[order][:-1])
    ]
    keep = np.ones(len(key), dtype=bool)
    keep[order[dup]] = False
    return key[keep], ledger[keep], entry[keep], offset[keep]


def stream_order(key: np.ndarray, bits: int) -> np.ndarray | None:
    """The permutation into stream order (key, ledger, entry, then arrival) of elements that
    arrive in (ledger, entry) order, as a stream's do: a stable sort by key alone, keys
    compacted to ``(start - first start) >> (bits + 8) << 1 | level`` (a radix sort when they fit
    16 bits). None when already ordered (fixed delays). O(n)."""
    if len(key) < 2 or bool(np.all(key[1:] >= key[:-1])):
        return None
    start = key & ~np.int64(1)
    compact = ((start - start.min()) >> (bits + NEAR_SHIFT)) << 1 | (key & 1)
    if int(compact.max()) < 1 << 16:
        return np.argsort(compact.astype(np.uint16), kind="stable")
    return np.argsort(compact, kind="stable")
