"""Benchmark: bulk builds of the pair map and the triple heap against per-message Python loops.

Not a timed test: :func:`bench_heaps` measures, in one run, messages per second of the bulk
path for ``messages`` entries and of the per-operation model for ``loop_messages`` entries
(the same workload: 1 entry per ms, 50,000 entries per ledger, as in the seeds' loops), the
ratio of the two rates, and the seconds taken to size the bulk result (JVM model + pympler).
Each timing is the best of ``REPEATS`` runs: the first build of a 512 MiB table also pays the
kernel's first-touch page faults, which depend on what the process freed before.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from trackerlab.core.params import check_int
from trackerlab.models.primitives.pair_hash_map import ConcurrentLongLongPairHashMap
from trackerlab.models.primitives.triple_heap import TripleLongPriorityQueue
from trackerlab.sizing.python import python_real_bytes

REPEATS = 2
ENTRIES_PER_LEDGER = 50_000
START_LEDGER = 10_000


@dataclass(frozen=True)
class BenchRow:
    """One structure: bulk and per-operation rates (messages/s) and the sizing time."""

    case: str
    bulk_messages: int
    bulk_seconds: float
    loop_messages: int
    loop_seconds: float
    sizing_seconds: float
    jvm_bytes: int

    @property
    def bulk_rate(self) -> float:
        return self.bulk_messages / self.bulk_seconds

    @property
    def loop_rate(self) -> float:
        return self.loop_messages / self.loop_seconds

    @property
    def ratio(self) -> float:
        return self.bulk_rate / self.loop_rate


def _ids(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    i = np.arange(n, dtype=np.int64)
    ledger = START_LEDGER + i // ENTRIES_PER_LEDGER
    entry = i % ENTRIES_PER_LEDGER
    return ledger, entry, 1_700_000_000_000 + i + seed


def _timed(fn: Callable[[], object]) -> tuple[object, float]:
    """``fn()`` and its best time of :data:`REPEATS` runs (the last result is kept)."""
    best = float("inf")
    result = None
    for _ in range(REPEATS):
        result = None  # free the previous build before the next one
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best


def _triple_jvm_bytes(queue: TripleLongPriorityQueue) -> int:
    """The queue's heap plus direct-buffer bytes. O(1)."""
    return queue.jvm_bytes() + queue.jvm_direct_bytes()


def _sizing(structure: object, jvm: Callable[[], int]) -> tuple[int, float]:
    start = time.perf_counter()
    jvm_bytes = jvm()
    python_real_bytes(structure)
    return jvm_bytes, time.perf_counter() - start


def bench_pair_map(messages: int, loop_messages: int, seed: int = 0) -> list[BenchRow]:
    """NegativeAcksTracker v.B's map (1 section, autoShrink): ``from_arrays`` (with and
    without the repeated-key search) against ``put`` per entry."""
    rows = []
    ledger, entry, ts = _ids(messages, seed)
    zeros = np.zeros(messages, dtype=np.int64)
    small = _ids(loop_messages, seed)

    def loop() -> ConcurrentLongLongPairHashMap:
        m = ConcurrentLongLongPairHashMap(auto_shrink=True, concurrency_level=1)
        for a, b, c in zip(*(x.tolist() for x in small), strict=True):
            m.put(a, b, 0, c)
        return m

    _, loop_seconds = _timed(loop)
    for unique in (True, False):
        built, seconds = _timed(
            functools.partial(
                ConcurrentLongLongPairHashMap.from_arrays,
                ledger,
                entry,
                zeros,
                ts,
                assume_unique=unique,
                auto_shrink=True,
                concurrency_level=1,
            )
        )
        assert isinstance(built, ConcurrentLongLongPairHashMap)
        jvm_bytes, sizing = _sizing(built, built.jvm_bytes)
        case = "pair-map bulk (unique keys)" if unique else "pair-map bulk (repeat search)"
        rows.append(
            BenchRow(case, messages, seconds, loop_messages, loop_seconds, sizing, jvm_bytes)
        )
        del built
    return rows


def bench_triple_heap(messages: int, loop_messages: int, seed: int = 0) -> list[BenchRow]:
    """TripleLongPriorityQueue (v2): ``build`` of triples in deliverAt order (the blog's loop)
    and shuffled, each against ``add`` per triple in the same order."""
    rows = []
    ledger, entry, at = _ids(messages, seed)
    small = _ids(loop_messages, seed)
    rng = np.random.default_rng(seed)
    for label, shuffle in (("in deliverAt order", False), ("shuffled", True)):
        perm = rng.permutation(messages) if shuffle else slice(None)
        small_perm = rng.permutation(loop_messages) if shuffle else slice(None)
        small_ledger, small_entry, small_at = (x[small_perm].tolist() for x in small)

        def loop(a=small_at, b=small_ledger, c=small_entry) -> TripleLongPriorityQueue:
            q = TripleLongPriorityQueue()
            for x, y, z in zip(a, b, c, strict=True):
                q.add(x, y, z)
            return q

        _, loop_seconds = _timed(loop)
        cols = (at[perm], ledger[perm], entry[perm])
        built, seconds = _timed(functools.partial(TripleLongPriorityQueue.build, *cols))
        assert isinstance(built, TripleLongPriorityQueue)
        jvm_bytes, sizing = _sizing(built, functools.partial(_triple_jvm_bytes, built))
        rows.append(
            BenchRow(
                f"triple-heap bulk ({label})",
                messages,
                seconds,
                loop_messages,
                loop_seconds,
                sizing,
                jvm_bytes,
            )
        )
        del built, cols
    return rows


def bench_heaps(
    messages: int = 10_000_000, loop_messages: int = 100_000, seed: int = 0
) -> list[BenchRow]:
    """Both structures; UsageError for counts outside 1..1e9 (bulk) or 1..1e7 (loop)."""
    messages = check_int("--messages", messages, 1, 1_000_000_000)
    loop_messages = check_int("--loop-messages", loop_messages, 1, 10_000_000)
    seed = check_int("--seed", seed, 0)
    return bench_pair_map(messages, loop_messages, seed) + bench_triple_heap(
        messages, loop_messages, seed
    )


def format_rows(rows: list[BenchRow]) -> str:
    """One line per case: rates in messages/s, the ratio, sizing seconds and JVM bytes."""
    lines = []
    for r in rows:
        lines.append(
            f"{r.case:38s} bulk {r.bulk_messages:>11,} in {r.bulk_seconds:6.2f} s = "
            f"{r.bulk_rate / 1e6:6.2f} M msg/s | per-op {r.loop_messages:,} in "
            f"{r.loop_seconds:5.2f} s = {r.loop_rate / 1e3:6.1f} k msg/s | ratio "
            f"{r.ratio:6.1f}x | sizing {r.sizing_seconds:.2f} s | jvm {r.jvm_bytes:,} B"
        )
    return "\n".join(lines)
