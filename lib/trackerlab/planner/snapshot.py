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
from trackerlab.models.time_buckets.time_bucket_index import trim_lower_bits
from trackerlab.planner.streams import START_LEDGER, TrackedStream
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.workloads import delay_forms
from trackerlab.workloads.stream import DEFAULT_START_MS

CHUNK = 1 << 16
#: Sampled (bucket, ledger chunk) pairs the fast path evaluates at most.
ROW_BUDGET = 100_000
#: Sampled bucket keys at most in the pilot sample.
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


def _sample_keys(first: int, last: int, width: int, budget: int) -> tuple[np.ndarray, float, int]:
    """A sample of the keys ``first, first + w, ..., last``: all when there are at most
    ``budget``, else the first and last :data:`EDGE_KEYS` (taken whole: the partial buckets at
    the due edge and at the longest delay) and a systematic sample of the keys between.
    Returns the keys, the middle's stride and how many keys lead and trail it. O(budget)."""
    n = (last - first) // width + 1
    if n <= budget:
        return first + width * np.arange(n, dtype=np.int64), 1.0, 0
    edge = min(EDGE_KEYS, max((budget - 2) // 4, 0))
    take = max(budget - 2 * edge, 1)
    stride = (n - 2 * edge) / take
    picks = edge + np.floor((np.arange(take) + 0.5) * stride).astype(np.int64)
    index = np.r_[np.arange(edge), picks, np.arange(n - edge, n)].astype(np.int64)
    return first + width * index, stride, edge


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
    drawn from the normal with those moments (a full window, share 1, is one run). Point
    masses whose windows can overlap (delays less than a bucket apart) are drawn together
    (:func:`_atom_cluster_cards`): a message takes one delay, so no id is counted twice."""
    r = stream.entry_rate_per_ms
    card = np.zeros(len(key), dtype=np.int64)
    runs = np.zeros(len(key), dtype=np.float64)
    segment = np.maximum(np.round((b - a) * r), 1)
    # keys of a bucket that are still not visible at t (not yet received) are left out
    top = key + width
    if stream.visible_ms is not None:
        top = np.minimum(top, math.floor(t + stream.visible_ms) + 1)
    indexed = [(d, p) for d, p in delay_forms.atoms(stream.delay) if d > stream.admit_after_ms]
    for cluster in delay_forms.atom_clusters(indexed, width):
        c, cluster_runs = _atom_cluster_cards(stream, cluster, key, top, a, b, rng)
        card += c
        runs += cluster_runs
    for part, p in delay_forms.continuous_parts(stream.delay):
        g = delay_forms.SpecDelay(part).cdf_integral
        mu = g(top - a) - g(top - b) - g(key - a) + g(key - b)
        c = rng.poisson(stream.share * p * r * np.maximum(mu, 0.0))
        card += c
        runs += _random_runs(c, segment, rng)
    return card, np.clip(np.round(runs), np.minimum(card, 1), card).astype(np.int64)


def _atom_cluster_cards(
    stream: TrackedStream,
    cluster: list[tuple[float, float]],
    key: np.ndarray,
    top: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Entries and runs a group of point masses sends to each segment's bucket, drawn per
    message: each published id takes at most one delay, so an id whose time lies in the
    windows of several atoms lands with the sum of their probabilities (a multinomial choice),
    never twice. The windows' ends cut the segment into pieces of constant probability, each
    a binomial draw. O(rows x atoms log atoms)."""
    r = stream.entry_rate_per_ms
    d = np.array([x for x, _ in cluster], dtype=np.float64)
    p = np.array([x for _, x in cluster], dtype=np.float64)
    lo = np.clip(key[:, None] - d, a[:, None], b[:, None])
    hi = np.clip(top[:, None] - d, a[:, None], b[:, None])
    at = np.concatenate([lo, hi], axis=1)
    step = np.concatenate([np.broadcast_to(p, lo.shape), -np.broadcast_to(p, hi.shape)], axis=1)
    order = np.argsort(at, axis=1, kind="stable")
    at = np.take_along_axis(at, order, axis=1)
    share = np.clip(np.cumsum(np.take_along_axis(step, order, axis=1), axis=1), 0.0, 1.0)
    card = np.zeros(len(key), dtype=np.int64)
    runs = np.zeros(len(key), dtype=np.float64)
    for j in range(at.shape[1] - 1):
        n = np.maximum(np.ceil(at[:, j + 1] * r) - np.ceil(at[:, j] * r), 0).astype(np.int64)
        q = np.minimum(stream.share * share[:, j], 1.0)
        c = rng.binomial(n, q)
        card += c
        runs += np.where(q >= 1, np.minimum(c, 1), _random_runs(c, n, rng))
    return card, runs


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


#: The fast path's target: the relative standard error of the sampled bytes (1.96x this is the
#: stated 95% bound). A pilot sample estimates it; a larger sample follows when it is missed.
TARGET_RELATIVE_SE = 0.005
#: The fast path's hard limit on sampled rows (a second sample never exceeds it).
MAX_ROWS = 2_000_000
#: Keys at each end of the pending range always taken: the partial buckets at the due edge
#: and at the longest delay are where a systematic sample would miss or overweight structure.
EDGE_KEYS = 4


def _sparse_parts(
    stream: TrackedStream,
    first: int,
    last: int,
    width: int,
    t: float,
    seed: int,
    layout: JvmLayout,
    crowding: float,
) -> tuple[list[tuple[np.ndarray, float]], float]:
    """The sparse limit: the edge keys sampled, every entry between them alone in its key;
    the weighted parts and the relative error (the expected crowding)."""
    # the sparse limit: no key is likely to hold two entries, and a key sample would see
    # a handful of lone entries at best (a 1/s, 1 ms, 7 d draw put 0-3 in 4,096 keys)
    edges = 4 * EDGE_KEYS + 2  # the budget whose sample is the edge keys and two middle keys
    parts, edge = _sampled(stream, first, last, width, edges, t, seed, layout)[::3]
    lo, hi = first + edge * width, last + width - edge * width
    between = stream.pending(t, lo - t - 1) - stream.pending(t, hi - t - 1)
    if between >= 1:
        alone = min(round(between), SPARSE_ROWS)
        parts = [(_alone(lo, width, alone), between / alone), *parts[1:]]
    else:
        parts = [(np.zeros((0, 6), dtype=np.int64), 1.0), *parts[1:]]
    error = crowding
    return parts, error


def _sampled_parts(
    stream: TrackedStream,
    first: int,
    last: int,
    width: int,
    budget: int,
    rows_per_key: float,
    t: float,
    seed: int,
    layout: JvmLayout,
) -> tuple[list[tuple[np.ndarray, float]], float]:
    """A systematic key sample (a pilot, then one sized to the target error) scaled by the
    closed form's count of the middle keys' entries; the weighted parts and their relative
    standard error."""
    n_keys = (last - first) // width + 1
    parts, per_key, taken, edge = _sampled(stream, first, last, width, budget, t, seed, layout)
    # the entries whose deliverAt falls in the middle keys' buckets, by the closed form
    lo, hi = first + edge * width, last + width - edge * width
    between = stream.pending(t, lo - t - 1) - stream.pending(t, hi - t - 1)
    ratio, error = _estimator(*per_key, parts[0][1], between)
    if error > TARGET_RELATIVE_SE and taken < n_keys:
        need = math.ceil(taken * (error / TARGET_RELATIVE_SE) ** 2)
        bigger = int(min(n_keys, need, max(budget, MAX_ROWS / rows_per_key)))
        if bigger > taken:
            parts, per_key, _, edge = _sampled(stream, first, last, width, bigger, t, seed, layout)
            ratio, error = _estimator(*per_key, parts[0][1], between)
    (middle, weight), rest = parts[0], parts[1:]
    sampled = float(middle[:, 3].sum()) * weight
    if ratio and sampled > 0:
        # ratio estimator: the closed form knows how many entries the middle holds; the
        # sample gives how they are laid out (bytes per entry)
        parts = [(middle, weight * between / sampled), *rest]
    elif weight > 1 and sampled == 0 and between >= 1:
        # so sparse that no sampled bucket holds an entry: each one sits alone in its
        # bucket and bitmap (the sparse limit), off by the buckets two entries share
        parts = [(_alone(lo, width, round(between)), 1.0), *rest]
        error = max(error, between / n_keys)
    return parts, error


def fast_counts(
    stream: TrackedStream,
    seed: int = 0,
    layout: JvmLayout = COMPRESSED,
    t_ms: float | None = None,
) -> tuple[PointCounts, float]:
    """The snapshot's counts from closed forms and a sample of bucket keys (module docstring),
    and the snapshot time. The sample takes the first and last :data:`EDGE_KEYS` keys and a
    systematic sample between; a pilot estimates the relative standard error of the sampled
    bytes from successive key differences, and when it is above :data:`TARGET_RELATIVE_SE`
    a sample sized to meet it (up to :data:`MAX_ROWS` rows) replaces it. The totals carry
    ``error_bound_ppm``: 1.96 standard errors, in millionths (0: every key taken). O(sampled
    rows). ``t_ms``: the snapshot time (default :meth:`TrackedStream.steady_time_ms`)."""
    t = stream.steady_time_ms() if t_ms is None else t_ms
    first, last, width = _pending_keys(stream, t)
    chunks = -(-stream.entries_per_ledger // CHUNK)
    rows_per_key = (stream.max_delay_ms / stream.ledger_ms + 2) * chunks
    budget = int(min(KEY_BUDGET, max(16, ROW_BUDGET / rows_per_key)))
    parts, error = [(np.zeros((0, 6), dtype=np.int64), 1.0)], 0.0
    crowding = _max_entries_per_key(stream, width)
    if last >= first and crowding < SPARSE_ENTRIES_PER_KEY:
        parts, error = _sparse_parts(stream, first, last, width, t, seed, layout, crowding)
    elif last >= first:
        parts, error = _sampled_parts(
            stream, first, last, width, budget, rows_per_key, t, seed, layout
        )
    counts = _weighted_counts(stream, parts, t, layout)
    totals = {**counts.totals, "error_bound_ppm": round(1.96 * error * 1e6)}
    return replace(counts, totals=totals), t


#: The sparse limit: when the densest bucket expects fewer entries than this, every entry is
#: taken to sit alone in its bucket and bitmap (:func:`_alone`), off by at most this share.
SPARSE_ENTRIES_PER_KEY = 0.01
#: Rows the sparse limit builds at most (each weighted to the closed form's count).
SPARSE_ROWS = 100_000


def _max_entries_per_key(stream: TrackedStream, width: int) -> float:
    """The most entries one bucket expects: pending deliver-at times have the density
    ``rate x share x P(delay > s)`` at ``s`` ahead, which is largest at the due edge, so no
    bucket of ``width`` ms expects more than ``rate x share x width``. O(1)."""
    return stream.entry_rate_per_ms * stream.share * width


def _alone(first: int, width: int, n: int) -> np.ndarray:
    """Content of ``n`` entries each alone in its own bucket and bitmap. O(n)."""
    content = np.zeros((n, 6), dtype=np.int64)
    content[:, 0] = first + width * np.arange(n, dtype=np.int64)
    content[:, 1] = START_LEDGER
    content[:, 3] = content[:, 4] = 1
    return content


def _sampled(
    stream: TrackedStream,
    first: int,
    last: int,
    width: int,
    budget: int,
    t: float,
    seed: int,
    layout: JvmLayout,
) -> tuple[list[tuple[np.ndarray, float]], tuple[np.ndarray, np.ndarray], int, int]:
    """A key sample's content parts with their weights (the middle its stride, first; the
    edges 1), the middle keys' proxy bytes and entries (:func:`_per_key`), how many keys it
    took and how many edge keys lead and trail the middle."""
    rng = np.random.default_rng([seed, 14, budget])
    keys, stride, edge = _sample_keys(first, last, width, budget)
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
    middle_keys = keys[edge : len(keys) - edge] if edge else keys
    in_middle = (content[:, 0] >= middle_keys[0]) & (content[:, 0] <= middle_keys[-1])
    parts = [(content[in_middle], stride), (content[~in_middle], 1.0)]
    return parts, _per_key(content[in_middle], middle_keys, layout), len(keys), edge


def _per_key(content: np.ndarray, keys: np.ndarray, layout) -> tuple[np.ndarray, np.ndarray]:
    """Per sampled key: proxy bytes (plain containers, one fixed part per bitmap and one bucket
    overhead per non-empty key) and entries. O(rows)."""
    from trackerlab.models.time_buckets import shapes as tbs

    cols = tba.chunk_columns(content[:, 3], content[:, 4], layout)
    per_row = cols["jvm_containers_plain"] + tbs_bitmap_fixed(layout)
    at = np.searchsorted(keys, content[:, 0])
    y = np.bincount(at, weights=per_row, minlength=len(keys))
    x = np.bincount(at, weights=content[:, 3], minlength=len(keys))
    y = y + (x > 0) * tbs.per_bucket_overhead(layout=layout)
    return y, x


#: Cochran's large-sample conditions for the ratio estimator (Sampling Techniques, 3rd ed.,
#: section 6.4): at least this many sampled keys holding entries, and a coefficient of
#: variation of the sample's mean entries below :data:`RATIO_MAX_CV`. Below them its bias and
#: its variance estimate are not to be trusted (a sparse sample of lone entries shows no
#: residual at all, while the population has buckets two entries share).
RATIO_MIN_KEYS = 30
RATIO_MAX_CV = 0.1


def _estimator(y: np.ndarray, x: np.ndarray, stride: float, between: float) -> tuple[bool, float]:
    """Which estimator scales the systematic middle sample, and its relative standard error:
    the expansion estimator (``stride`` times the sampled bytes) or the ratio estimator (the
    closed form's ``between`` entries times the sample's bytes per entry). Each one's variance
    comes from successive differences (systematic sampling) of what it leaves unexplained:
    the per-key bytes, or their residuals from bytes-per-entry times entries. The ratio
    estimator is taken when its variance is the smaller and the sample meets
    :data:`RATIO_MIN_KEYS` and :data:`RATIO_MAX_CV`: it wins when bytes follow entries; the
    expansion one wins when a fixed part per bucket dominates and entries per key vary (the
    ratio would scale every bucket's fixed part by the sample's random entry count), and on
    sparse samples. O(keys)."""
    if stride <= 1.0 or len(y) < 3 or y.mean() <= 0:
        return False, 0.0
    se_expansion = _successive_se(y)
    n = len(x)
    large = (
        between > 0
        and np.count_nonzero(x) >= RATIO_MIN_KEYS
        and x.std(ddof=1) / (x.mean() * math.sqrt(n)) < RATIO_MAX_CV
    )
    if large:
        se_ratio = _successive_se(y - y.sum() / x.sum() * x)
        if se_ratio < se_expansion:
            return True, se_ratio / y.mean()
    return False, se_expansion / y.mean()


def _successive_se(y: np.ndarray) -> float:
    """Standard error of the mean of a systematic sample from successive differences."""
    var = np.sum(np.diff(y) ** 2) / (2 * (len(y) - 1))
    return float(math.sqrt(var / len(y)))


def tbs_bitmap_fixed(layout) -> int:
    """Bytes of one single-key bitmap besides its container (the per-row proxy's fixed part)."""
    from trackerlab.models.time_buckets import shapes as tbs

    return tbs.roaring64_fixed_bytes(1, layout)


def _scaled_counts(
    stream: TrackedStream, content: np.ndarray, stride: float, t: float, layout: JvmLayout
) -> PointCounts:
    """PointCounts of a sampled content table, every additive count scaled by ``stride``."""
    return _weighted_counts(stream, [(content, stride)], t, layout)


def _weighted_counts(
    stream: TrackedStream, parts: list[tuple[np.ndarray, float]], t: float, layout: JvmLayout
) -> PointCounts:
    """PointCounts of sampled content tables, each part's additive counts scaled by its weight
    (the edge keys count once, the systematic middle by its stride); the pending and heap
    counts come from closed forms. O(rows)."""
    totals: dict[str, float] = dict.fromkeys(tba.CHUNK_FIELDS, 0.0)
    aggs = []
    for content, weight in parts:
        cols = tba.chunk_columns(content[:, 3], content[:, 4], layout) if len(content) else {}
        agg = tba.aggregates_of_content(content, layout, cols or None)
        for f, v in cols.items():
            totals[f] += float(v.sum()) * weight
        aggs.append((agg, weight))
    first = aggs[0][0]
    bitmaps = sum(a.bitmaps * w for a, w in aggs)
    totals["bitmaps"] = bitmaps
    totals["selected"] = totals["index_messages"] = totals["entries"]
    totals["heap_entries"] = stream.pending(t, stream.admit_after_ms)
    ranges = [(a.bucket_range, a.ledger_range) for a, _ in aggs if a.bitmaps] or [
        (first.bucket_range, first.ledger_range)
    ]
    buckets = (min(r[0][0] for r in ranges), max(r[0][1] for r in ranges))
    ledgers = (min(r[1][0] for r in ranges), max(r[1][1] for r in ranges))
    scaled = replace(
        first,
        bitmaps=round(bitmaps),
        bitmap_bytes={
            k: round(sum(a.bitmap_bytes[k] * w for a, w in aggs)) for k in first.bitmap_bytes
        },
        ledger_counts=np.concatenate([a.ledger_counts for a, _ in aggs]),
        bucket_counts=np.concatenate(
            [np.round(a.bucket_counts * w).astype(np.int64) for a, w in aggs]
        ),
        bucket_range=buckets,
        ledger_range=ledgers,
        art_statics=frozenset().union(*(a.art_statics or frozenset() for a, _ in aggs)),
    )
    rounded = {k: round(v) for k, v in totals.items()}
    rounded["pending_closed_form"] = round(stream.pending(t, stream.due_after_ms))
    return PointCounts(rounded, scaled, stream.tracked_rate_per_ms, stream.bits, None)


def exact_counts(
    stream: TrackedStream,
    seed: int = 0,
    piece: int = 1 << 22,
    layout: JvmLayout = COMPRESSED,
    spark=None,
    t_ms: float | None = None,
) -> tuple[PointCounts, float]:
    """The snapshot's counts from every entry it depends on, generated and folded in pieces
    of ``piece`` entries (the reducer of the Spark sweeps). With a Spark session the entries
    are generated and folded in Spark tasks (whole ledgers each) and merged on the driver.
    ``t_ms``: the snapshot time (default :meth:`TrackedStream.steady_time_ms`). O(entries)."""
    t = stream.steady_time_ms() if t_ms is None else t_ms
    workload, _ = stream.workload(t, seed)
    task = _SnapshotTask(stream, workload, t, piece, layout)
    if spark is None:
        results = [task((0, workload.messages))]
    else:
        from trackerlab.spark.session import spark_action

        sc = spark.sparkContext
        target = max(1 << 20, -(-workload.messages // (4 * sc.defaultParallelism)))
        ranges = bc.plan_tasks(workload.messages, workload.entries_per_ledger, 1, target)
        with spark_action("plan --exact"):
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
