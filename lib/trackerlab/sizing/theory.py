"""The seeds' space formulas, as published and corrected, and the entropy lower bounds.

Every function names the seed and the equation it implements. "As published" functions
reproduce the seed's arithmetic, including its mistakes; the ``corrected_*`` functions and
the payload rules say what Roaring really stores (RoaringBitmap README FAQ; Lemire et al.,
"Consistently faster and smaller compressed bitmaps with Roaring", SPE 46(11), 2016).

Seeds: ``000`` = PIP-393 (negative acks), ``001`` = the TimeBucket blog (delayed delivery),
``003`` = massive delayed messages (#15500).
"""

from __future__ import annotations

import math

#: ``managedLedgerMaxEntriesPerLedger`` default, the L = ceil(M / 50000) of both seeds.
ENTRIES_PER_LEDGER = 50_000
#: Roaring container limits: values per 2^16 chunk, array→bitset switch, bitset bytes.
CHUNK_VALUES = 1 << 16
ARRAY_MAX_CARDINALITY = 4096
BITSET_BYTES = 8192

# --------------------------------------------------------------- seed 000, PIP-393


def pip393_open_addressing_bytes_per_entry(
    payload_bytes: int = 32, fill_factor: float = 0.66, idle_factor: float = 0.15
) -> tuple[float, float]:
    """PIP-393 "Space complexity of ConcurrentLongLongPairHashMap": ``32/0.66 = 48`` (best)
    and ``32/0.15 = 213`` (worst) bytes per entry for 4 longs of payload."""
    return payload_bytes / fill_factor, payload_bytes / idle_factor


def pip393_messages_per_bucket(rate_per_ms: float, trim_bits: int) -> float:
    """M = x · 2^y messages in one bucket of 2^y ms at x msg/ms (the PIP's intended formula)."""
    return rate_per_ms * 2.0**trim_bits


def pip393_messages_per_bucket_as_printed(rate_per_ms: float, trim_bits: int) -> float:
    """The PIP text as printed: "one bucket will contains 2**x ms, M=2**x*y msgs" (x/y swapped).

    For x = 1, y = 10 it gives 20 instead of 1024; the PIP's own examples use x · 2^y.
    """
    return 2.0**rate_per_ms * trim_bits


def pip393_ledgers_per_bucket(
    messages_per_bucket: float, entries_per_ledger: int = ENTRIES_PER_LEDGER
) -> int:
    """L = ceil(M / 50000): the PIP's count of ledgers (bitmaps) per bucket."""
    return max(1, math.ceil(messages_per_bucket / entries_per_ledger))


def pip393_bucket_bytes(
    messages_per_bucket: float, bitmap_bytes: float, entries_per_ledger: int = ENTRIES_PER_LEDGER
) -> float:
    """PIP-393: one bucket costs ``8 + 8L + L·size(bitmap)`` bytes."""
    ledgers = pip393_ledgers_per_bucket(messages_per_bucket, entries_per_ledger)
    return 8 + 8 * ledgers + ledgers * bitmap_bytes


def pip393_bytes_per_entry(
    messages_per_bucket: float, entries_per_ledger: int = ENTRIES_PER_LEDGER
) -> float:
    """PIP-393's three regimes, as published (ids N04–N06).

    - M > 50000: ``M/50000 · 8 KiB / M`` = 8192/50000 = 0.163 B per entry;
    - 4096 < M ≤ 50000: one 8 KiB bitmap, ``8192 / M``;
    - M ≤ 4096: "4N byte", i.e. 4 B per entry (Roaring arrays hold 2 B per value: see
      :func:`corrected_array_bytes_per_entry`).
    """
    m = messages_per_bucket
    if m > entries_per_ledger:
        return BITSET_BYTES / entries_per_ledger
    if m > ARRAY_MAX_CARDINALITY:
        return BITSET_BYTES / m
    return 4.0


# --------------------------------------------------------------- seed 001, TimeBucket


def timebucket_total_entry_size(
    messages_per_bucket: float, entries_per_ledger: int = ENTRIES_PER_LEDGER
) -> float:
    """TimeBucket blog §3.2, "Total Entry Size" (TES) of one bucket, as published.

    M < 4096: ``8 + 8 + 2M``; M > 4096: ``8 + 8L + 8L KiB``.
    """
    m = messages_per_bucket
    if m <= ARRAY_MAX_CARDINALITY:
        return 8 + 8 + 2 * m
    ledgers = pip393_ledgers_per_bucket(m, entries_per_ledger)
    return 8 + 8 * ledgers + ledgers * BITSET_BYTES


def timebucket_bytes_per_entry(
    messages_per_bucket: float, entries_per_ledger: int = ENTRIES_PER_LEDGER
) -> float:
    """TimeBucket blog §3.2, "Average Entry Size" (AES), as published (ids N18, N16, N17).

    M < 4096: 2 B; 4096 < M < 50000: 8192/M; M ≫ 50000: 0.163 B (the fixed terms ignored).
    """
    m = messages_per_bucket
    if m > entries_per_ledger:
        return BITSET_BYTES / entries_per_ledger
    if m > ARRAY_MAX_CARDINALITY:
        return BITSET_BYTES / m
    return 2.0


def triple_bytes_per_entry() -> int:
    """TimeBucket blog §3 and #15500: one ``(deliverAt, ledgerId, entryId)`` triple = 3 longs."""
    return 24


def one_bit_lower_bound_bytes_per_entry() -> float:
    """TimeBucket blog §3.2: "at least one bit per delayed message" = 0.125 B (id N19).

    Not a true bound: it holds for a random subset, but consecutive entry ids compress
    below it (see :func:`interval_bits`, run containers).
    """
    return 1 / 8


# --------------------------------------------------------------- corrected rules


def corrected_array_bytes_per_entry() -> int:
    """A Roaring array container stores each value as a 16-bit short: 2 B, not the PIP's 4 B."""
    return 2


def container_payload_bytes(cardinality: int, runs: int | None = None) -> int:
    """Payload of one Roaring container holding ``cardinality`` values of one 2^16 chunk.

    Array (2 B per value) up to 4096 values, else an 8 KiB bitset; with ``runs`` given
    (a run-optimized bitmap) a run container (4 B per run) when it is strictly smaller, as
    ``runOptimize()`` chooses. Serialized-size rules of the Roaring format spec; in-memory
    overheads (headers, capacity slack) are the layout models' business.
    """
    if cardinality <= 0:
        return 0
    plain = 2 * cardinality if cardinality <= ARRAY_MAX_CARDINALITY else BITSET_BYTES
    if runs is not None and 4 * runs < plain:
        return 4 * runs
    return plain


def consecutive_payload_bytes(count: int, run_optimize: bool = False) -> int:
    """Payload of ``count`` consecutive ids starting at a chunk boundary (one run per chunk)."""
    full, rest = divmod(count, CHUNK_VALUES)
    chunks = [CHUNK_VALUES] * full + ([rest] if rest else [])
    return sum(container_payload_bytes(c, 1 if run_optimize else None) for c in chunks)


# --------------------------------------------------------------- entropy bounds


def entropy_bits(universe: int, count: int) -> float:
    """``log2 C(u, n)``: bits needed by any encoding of an n-subset of a u-universe.

    The information-theoretic floor for a *random* subset (anchors.md §2). O(1) via lgamma.
    """
    if not 0 <= count <= universe:
        raise ValueError(f"count must be in 0..universe, got {count} of {universe}")
    if count in (0, universe):
        return 0.0
    ln = math.lgamma(universe + 1) - math.lgamma(count + 1) - math.lgamma(universe - count + 1)
    return ln / math.log(2)


def entropy_bytes_per_entry(universe: int, count: int) -> float:
    """:func:`entropy_bits` per value, in bytes."""
    return entropy_bits(universe, count) / 8 / count if count else 0.0


def interval_bits(universe: int) -> float:
    """Bits to name one interval of consecutive ids in a u-universe: start and length,
    ``log2(u (u + 1) / 2) ≈ 2 log2 u`` (≈ 31 bits for u = 50,000)."""
    return math.log2(universe * (universe + 1) / 2)


def corrected_bucket_bytes_per_entry(
    messages_per_bucket: float,
    entries_per_ledger: int = ENTRIES_PER_LEDGER,
    per_bucket_bytes: float = 0.0,
    per_bitmap_bytes: float = 0.0,
    run_optimize: bool = False,
) -> float:
    """Seeds 000/001 corrected: bytes per entry of a time bucket of M consecutive entries.

    ``(per_bucket + L · (per_bitmap + payload(M / L))) / M`` where L, the ledgers a bucket
    touches, is ``1 + (M - 1) / E`` on average for buckets at random offsets in the ledger
    sequence (the seeds' ``ceil(M / E)`` assumes aligned buckets), ``payload`` follows the
    Roaring container rules (2 B per array value, 8 KiB per bitset chunk, one 4-B run per
    chunk when run-optimized), and the fixed costs per bucket and per bitmap come from the
    layout model (:mod:`trackerlab.models.time_buckets.shapes`). O(1).
    """
    m = float(messages_per_bucket)
    if m <= 0:
        return 0.0
    ledgers = 1.0 + (m - 1.0) / entries_per_ledger
    per_ledger = m / ledgers
    chunks = max(1.0, per_ledger / CHUNK_VALUES)
    if run_optimize:
        payload = 4.0 * chunks
    elif per_ledger / chunks <= ARRAY_MAX_CARDINALITY:
        payload = 2.0 * per_ledger
    else:
        payload = BITSET_BYTES * chunks
    return (per_bucket_bytes + ledgers * (per_bitmap_bytes + payload)) / m
