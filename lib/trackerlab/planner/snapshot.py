"""A tracker's content at steady state, as the counts every catalog design is sized from.

Both paths return a :class:`~trackerlab.models.design.PointCounts` of the index at a steady
snapshot time ``T`` (:meth:`TrackedStream.steady_time_ms`): what is tracked, admitted, and
not yet handed out at ``T``. Each design's ``from_counts`` turns it into bytes, so the fast
and the exact answer go through the same sizing code.

- :func:`fast_counts` never generates a message. For a systematic sample of the pending
  bucket keys it computes, per (bucket, ledger, 2^16-entry chunk), how many tracked entries
  land there: for each point mass of the delay the entries published in an exact window
  (thinned by the share), for each density a Poisson number with mean
  ``share * p * rate * (G(k + w - a) - G(k + w - b) - G(k - a) + G(k - b))`` over the chunk's
  publication interval ``[a, b)`` (``G`` the delay's CDF integral,
  :mod:`trackerlab.workloads.delay_forms`). The sampled (bucket, ledger, chunk) table is sized
  like a built index's content and scaled by the sampling stride. Counts that do not depend
  on the sample (pending entries) come from closed forms. Cost: O(sampled rows), bounded by
  :data:`ROW_BUDGET` (well under a second).
- :func:`exact_counts` generates every entry the snapshot depends on
  (:meth:`TrackedStream.workload`) in chunks and folds the pending ones with the reducer of
  the Spark sweeps (:mod:`trackerlab.models.time_buckets.reducer`): the message-level answer.

Random draws use a generator seeded from ``seed``, so both answers are reproducible.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from trackerlab.models.design import PointCounts
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.models.time_buckets.index import trim_lower_bits
from trackerlab.planner.streams import START_LEDGER, TrackedStream
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.workloads import delay_forms
from trackerlab.workloads.stream import DEFAULT_START_MS

CHUNK = 1 << 16
#: Sampled (bucket, ledger chunk) pairs the fast path evaluates at most.
ROW_BUDGET = 100_000
#: Sampled bucket keys at most (the first keys of a range are always all taken).
KEY_BUDGET = 4096


def _pending_keys(stream: TrackedStream, t: float) -> tuple[int, int, int]:
    """``(first, last, width)``: the bucket keys that can hold pending entries at ``t``."""
    width = 1 << stream.bits
    first = (math.floor((t + stream.due_after_ms) / width) + 1) * width
    reach = stream.max_delay_ms
    if stream.visible_ms is not None:
        reach = min(reach, stream.visible_ms)
    last = math.floor((t + reach) / width) * width
    return first, last, width


def _sample_keys(first: int, last: int, width: int, budget: int) -> tuple[np.ndarray, float]:
    """A systematic sample of the keys ``first, first + w, ..., last`` and its stride."""
    n = (last - first) // width + 1
    if n <= budget:
        return first + width * np.arange(n, dtype=np.int64), 1.0
    stride = n / budget
    picks = np.floor((np.arange(budget) + 0.5) * stride).astype(np.int64)
    return first + width * picks, stride


def _segments(stream: TrackedStream, keys: np.ndarray, t: float, width: int):
    """Every (key, ledger, chunk) whose publication interval can feed the key's bucket:
    ``(key, ledger index, chunk, a, b)`` arrays, ``[a, b)`` the chunk's publication times
    clipped to ``[0, t]``. O(rows)."""
    r = stream.entry_rate_per_ms
    per_ledger = stream.entries_per_ledger
    chunks = -(-per_ledger // CHUNK)
    seg_ms = CHUNK / r  # a full chunk's span
    span = stream.ledger_ms
    lo = np.maximum(keys - stream.max_delay_ms, 0.0)
    hi = np.minimum(keys + width - delay_forms.support_min(stream.delay), t)
    first_l = np.floor(lo / span).astype(np.int64)
    last_l = np.floor(np.maximum(hi, lo) / span).astype(np.int64)
    n_l = np.maximum(last_l - first_l + 1, 0)
    owner = np.repeat(np.arange(len(keys)), n_l * chunks)
    flat = np.arange(len(owner)) - np.repeat(np.cumsum(n_l * chunks) - n_l * chunks, n_l * chunks)
    ledger = first_l[owner] + flat // chunks
    chunk = flat % chunks
    a = ledger * span + chunk * seg_ms
    b = np.minimum(a + seg_ms, (ledger + 1) * span)
    a, b = np.minimum(a, t), np.minimum(b, t)
    keep = b > a
    return keys[owner][keep], ledger[keep], chunk[keep], a[keep], b[keep]


def _cards(stream, key, a, b, width, rng, t: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
    """Tracked entries of each segment landing in its key's bucket, and their run counts.

    Runs: entries a point mass sends to a bucket are one contiguous window of ids, which the
    share thins at random; a density scatters its entries over the whole segment. The run
    count of ``c`` ids drawn at random among ``n`` consecutive ones has mean
    ``c (n - c + 1) / n`` and variance ``c (c - 1) (n - c) (n - c + 1) / (n^2 (n - 1))``; it is
    drawn from the normal with those moments (a full window, share 1, is one run)."""
    r = stream.entry_rate_per_ms
    card = np.zeros(len(key), dtype=np.int64)
    runs = np.zeros(len(key), dtype=np.float64)
    segment = np.maximum(np.round((b - a) * r), 1)
    # keys of a bucket that are still not visible at t (not yet received) are left out
    top = key + width
    if stream.visible_ms is not None:
        top = np.minimum(top, math.floor(t + stream.visible_ms) + 1)
    for d, p in delay_forms.atoms(stream.delay):
        if d <= stream.admit_after_ms:
            continue  # dispatched at once, never indexed
        w_lo = np.clip(key - d, a, b)
        w_hi = np.clip(top - d, a, b)
        n = np.maximum(np.ceil(w_hi * r) - np.ceil(w_lo * r), 0).astype(np.int64)
        q = stream.share * p
        c = n if q >= 1 else rng.binomial(n, q)
        card += c
        runs += np.where(q >= 1, np.minimum(c, 1), _random_runs(c, n, rng))
    for part, p in delay_forms.continuous_parts(stream.delay):
        g = delay_forms.SpecDelay(part).cdf_integral
        mu = g(top - a) - g(top - b) - g(key - a) + g(key - b)
        c = rng.poisson(stream.share * p * r * np.maximum(mu, 0.0))
        card += c
        runs += _random_runs(c, segment, rng)
    return card, np.clip(np.round(runs), np.minimum(card, 1), card).astype(np.int64)


def _random_runs(c: np.ndarray, n: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A draw of the number of runs of ``c`` ids at random among ``n`` consecutive ones."""
    c = np.asarray(c, dtype=np.float64)
    n = np.maximum(np.asarray(n, dtype=np.float64), c)
    mean = np.where(n > 0, c * (n - c + 1) / np.maximum(n, 1), 0.0)
    var = np.where(
        n > 1,
        c * (c - 1) * (n - c) * (n - c + 1) / (np.maximum(n, 1) ** 2 * np.maximum(n - 1, 1)),
        0.0,
    )
    return mean + np.sqrt(np.maximum(var, 0.0)) * rng.standard_normal(len(c))


def fast_counts(
    stream: TrackedStream, seed: int = 0, layout: JvmLayout = COMPRESSED
) -> tuple[PointCounts, float]:
    """The snapshot's counts from closed forms and a sample of bucket keys (module docstring),
    and the snapshot time. O(sampled rows)."""
    t = stream.steady_time_ms()
    first, last, width = _pending_keys(stream, t)
    rng = np.random.default_rng([seed, 14])
    chunks = -(-stream.entries_per_ledger // CHUNK)
    rows_per_key = (stream.max_delay_ms / stream.ledger_ms + 2) * chunks
    budget = int(min(KEY_BUDGET, max(16, ROW_BUDGET / rows_per_key)))
    content = np.zeros((0, 6), dtype=np.int64)
    stride = 1.0
    if last >= first:
        keys, stride = _sample_keys(first, last, width, budget)
        key, ledger, chunk, a, b = _segments(stream, keys, t, width)
        card, runs = _cards(stream, key, a, b, width, rng, t)
        used = card > 0
        content = np.zeros((int(used.sum()), 6), dtype=np.int64)
        content[:, 0] = key[used]
        content[:, 1] = START_LEDGER + ledger[used]
        content[:, 2] = chunk[used]
        content[:, 3] = card[used]
        content[:, 4] = runs[used]
        order = np.lexsort((content[:, 2], content[:, 1], content[:, 0]))
        content = content[order]
    return _scaled_counts(stream, content, stride, t, layout), t


def _scaled_counts(
    stream: TrackedStream, content: np.ndarray, stride: float, t: float, layout: JvmLayout
) -> PointCounts:
    """PointCounts of a sampled content table, every additive count scaled by ``stride``."""
    cols = tba.chunk_columns(content[:, 3], content[:, 4], layout) if len(content) else {}
    agg = tba.aggregates_of_content(content, layout, cols or None)
    totals: dict[str, float] = {f: float(v.sum()) * stride for f, v in cols.items()}
    for f in tba.CHUNK_FIELDS:
        totals.setdefault(f, 0.0)
    totals["bitmaps"] = agg.bitmaps * stride
    pending = stream.pending(t, stream.due_after_ms)
    totals["selected"] = totals["index_messages"] = totals["entries"]
    totals["heap_entries"] = stream.pending(t, stream.admit_after_ms)
    scaled = replace(
        agg,
        bitmaps=round(agg.bitmaps * stride),
        bitmap_bytes={k: round(v * stride) for k, v in agg.bitmap_bytes.items()},
        bucket_counts=np.round(agg.bucket_counts * stride).astype(np.int64),
    )
    rounded = {k: round(v) for k, v in totals.items()}
    rounded["pending_closed_form"] = round(pending)
    return PointCounts(rounded, scaled, stream.tracked_rate_per_ms, stream.bits, None)


def exact_counts(
    stream: TrackedStream,
    seed: int = 0,
    piece: int = 1 << 22,
    layout: JvmLayout = COMPRESSED,
    spark=None,
) -> tuple[PointCounts, float]:
    """The snapshot's counts from every entry it depends on, generated and folded in pieces
    of ``piece`` entries (the reducer of the Spark sweeps). With a Spark session the entries
    are generated and folded in Spark tasks (whole ledgers each) and merged on the driver.
    O(entries)."""
    t = stream.steady_time_ms()
    workload, _ = stream.workload(t, seed)
    task = _SnapshotTask(stream, workload, t, piece, layout)
    if spark is None:
        results = [task((0, workload.messages))]
    else:
        sc = spark.sparkContext
        target = max(1 << 20, -(-workload.messages // (4 * sc.defaultParallelism)))
        ranges = bc.plan_tasks(workload.messages, workload.entries_per_ledger, 1, target)
        results = sc.parallelize(ranges, len(ranges)).map(task).collect()
    totals, agg = bc.merge_outputs([out for out, _ in results], layout)
    totals = dict(totals)
    totals["heap_entries"] = sum(heap for _, heap in results)
    totals["pending_closed_form"] = round(stream.pending(t, stream.due_after_ms))
    return PointCounts(totals, agg, stream.tracked_rate_per_ms, stream.bits, None), t


class _SnapshotTask:
    """One task of the exact snapshot: its messages through the reducer, keeping those still
    pending at ``t``; also counts the entries a heap would still hold (``deliverAt > now +
    admit``). Picklable, so Spark can run it on executors."""

    def __init__(self, stream: TrackedStream, workload, t: float, piece: int, layout) -> None:
        self.stream, self.workload, self.piece, self.layout = stream, workload, piece, layout
        self.now = DEFAULT_START_MS + t
        self.due_key = int(
            trim_lower_bits(np.int64(math.floor(self.now + stream.due_after_ms)), stream.bits)
        )

    def __call__(self, task: tuple[int, int]):
        heap = 0
        stream, now, due_key = self.stream, self.now, self.due_key
        fixed = stream.delay.kind == "fixed"

        def keep(chunk, bucket: np.ndarray) -> np.ndarray | slice:
            """The admitted entries published by ``now`` whose bucket is not due yet. With one
            fixed delay every array is sorted, so the kept entries are one slice (no mask)."""
            nonlocal heap
            deliver_at = chunk.deliver_at
            if fixed:
                if len(chunk) == 0 or chunk.delay_ms[0] <= stream.admit_after_ms:
                    return slice(0, 0)
                hi = int(np.searchsorted(chunk.publish_ms, now, side="right"))
                if stream.visible_ms is not None:  # received (so nacked) by now
                    hi = int(np.searchsorted(deliver_at[:hi], now + stream.visible_ms, "right"))
                lo = int(np.searchsorted(bucket[:hi], due_key, side="right"))
                heap += hi - int(
                    np.searchsorted(deliver_at[:hi], now + stream.admit_after_ms, "right")
                )
                return slice(lo, hi)
            admitted = chunk.delay_ms > stream.admit_after_ms
            if len(chunk) and chunk.publish_ms[-1] > now:  # only the last piece reaches past it
                admitted &= chunk.publish_ms <= now
            if stream.visible_ms is not None:  # not received (so not nacked) by now
                admitted &= deliver_at <= now + stream.visible_ms
            heap += int(np.count_nonzero(admitted & (deliver_at > now + stream.admit_after_ms)))
            return admitted & (bucket > due_key)

        out = bc.reduce_range(
            self.workload, stream.bits, None, task[0], task[1], self.piece, self.layout, keep
        )
        return out, heap
