"""The design lab on Pulsar's own workload (issue 27, item 1): the realistic matrix.

What changes against :mod:`~trackerlab.experiments.design_lab`'s matrix, and why:

- **Unbatched.** The Java client never batches a message that has a deliver-at time:
  ``ProducerImpl.canAddToBatch`` is ``schemaReady && isBatchMessagingEnabled() &&
  !msg.getMessageBuilder().hasDeliverAtTime()`` (``ProducerImpl.java:845-848`` at v2.11.0,
  pulsar-client-original-2.11.0-sources.jar; the same ``hasDeliverAtTime`` test at
  ``ProducerImpl.java:1021-1022`` at v4.2.4, LineNumberTable of the 4.2.4 jar's class). Every
  realistic cell has batch size 1.
- **Ledgers roll as the release rolls them**, on entries and on time
  (:data:`ROLLOVER`, :func:`entries_per_ledger`): ``ServiceConfiguration.java:2444``
  ``managedLedgerMaxEntriesPerLedger = 50000``, ``:2449``
  ``managedLedgerMinLedgerRolloverTimeMinutes = 10``, ``:2454``
  ``managedLedgerMaxLedgerRolloverTimeMinutes = 240``, ``:2459``
  ``managedLedgerMaxSizePerLedgerMbytes = 2048`` (v4.2.4,
  pulsar-broker-common-4.2.4-sources.jar), handed to the managed ledger by
  ``BrokerService.java:2144-2151`` (v4.2.4). The rule,
  ``ManagedLedgerImpl.currentLedgerIsFull()`` (``ManagedLedgerImpl.java:4431-4458`` at v4.2.4,
  checked after every add, ``:913`` and ``:1903``): with ``age`` = now minus the ledger's
  creation, the ledger is full when ``(entries >= 50,000 or bytes >= 2,048 MiB or age >=
  240 min) and age > 10 min`` (the second clause only when the minimum is > 0); the entry whose
  add finds it full is the ledger's last one. :func:`rollover_reference` applies it entry by
  entry; the matrix uses its closed form, the existing
  :meth:`~trackerlab.workloads.ledger_rollover.LedgerRollover.entries_per_ledger` (constant
  rate: every ledger holds the same count; tests hold both equal). Stated simplifications: a
  ledger is created when its first entry is published (no BookKeeper latency), entry times are
  continuous (the stream's integer-ms publish times put up to ~10 more entries in a 6-million
  entry ledger at 10 msg/ms), the 2,048 MiB quota binds only for entries above ~43 KB
  (:data:`ENTRY_BYTES` = 1 KiB here), and the 0-5% jitter of the maximum-age timer
  (``getMaximumRolloverTimeMs``, ``:4546-4548``) matters only below 3.5 entries/s.
- **Memory while dispatching** beside the paused snapshot (:func:`dispatch_memory`): a
  dispatcher that scans every tick (``getScheduledMessages``, ``_Drain`` of the lab) while
  the producer publishes; live JVM bytes per pending entry sampled over time.
- **Tracker sizes 10^3 to 10^9 entries** (:data:`SIZES`): paused sizes come from the reducer's
  numpy pass (no per-message Python); the dispatching model is per message, so it runs up to
  :data:`MAX_DISPATCH_MESSAGES`.
- **An entropy estimate** of each workload beside the counting floor
  (:func:`entropy_estimate`).
- **The old cells** (batched, 50,000-entry ledgers regardless of time) stay as a stated
  ablation: :data:`ABLATION`, rows labelled ``scope = "ablation"``.

The proposals pack positions as ``slot << 16 | entryId`` (:mod:`~trackerlab.models.proposals.ledger_slots`):
with the time rule a ledger holds more than 2^16 entries above ~109 msg/s
(65,536 / 600 s), and they cannot hold such a workload at all. Those cells are kept with
``refused`` naming the reason and no bytes (never silently dropped).

``sorted-chunks`` (:mod:`~trackerlab.models.proposals.sorted_chunks`) holds full 64-bit
positions and is never refused. Its paused bytes are those of a **sorted build** (the tracked
positions added in key order, :func:`~trackerlab.models.proposals.sorted_chunks.workload_sorted_build`
in memory up to :data:`STREAMED_ABOVE_MESSAGES`, above it the same build streamed through
sorted runs on disk, :mod:`~trackerlab.models.proposals.sorted_chunks_streamed`, so every size
to 10^9 has its row); a tracker fed in publish order splits chunks in halves and is larger
(the dispatching model feeds it in publish order, per message).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

import trackerlab.experiments.design_lab as dl
from trackerlab.catalog import CATALOG
from trackerlab.core.durable import atomic_write_bytes
from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_int
from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.design import PointCounts
from trackerlab.models.proposals.ledger_slots import MAX_ENTRY_ID, MAX_WINDOW
from trackerlab.models.proposals.sorted_chunks import SortedChunksTracker, workload_sorted_build
from trackerlab.models.proposals.sorted_chunks_streamed import streamed_sorted_build
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.sizing.jvm import COMPRESSED
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.ledger_rollover import LedgerRollover
from trackerlab.workloads.stream import MessageChunk, Workload

#: Pulsar 4.2.4's rollover settings (sources in the module docstring).
ROLLOVER = LedgerRollover(
    max_entries=50_000,
    max_size_bytes=2048 * 1024 * 1024,
    min_rollover_ms=10 * 60_000,
    max_rollover_ms=240 * 60_000,
)
#: Bytes of one entry for the size quota (binds only above 2,048 MiB / 50,000 = 42.9 KB).
ENTRY_BYTES = 1024
#: ``delayedDeliveryTickTimeMillis`` = 1000 (the release table's default), and 1 minute.
TICKS_MS = (1000, 60_000)
#: Publish rates: 100, 1,000 and 10,000 msg/s.
RATES_PER_MS = (0.1, 1.0, 10.0)
#: Uniform 0-1 h and the 80/20 mixture of the lab (80% within a minute, 20% 1-30 days).
DELAYS = ("uniform:0:1h", "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d")
#: Every message delayed, or a random 5% of a topic's messages.
PATTERNS = ("all", "fraction:0.05")
#: Tracker sizes (messages published while the dispatcher is paused; every one is held when
#: its delay is above the tick).
SIZES = tuple(10**k for k in range(3, 10))
#: The per-message dispatching model's limit (about 15 s of Python per design at 10^6).
MAX_DISPATCH_MESSAGES = 10**6
#: The 64-bit proposal (issue 27, item 2): sized by its own numpy path, never refused.
SORTED_CHUNKS = "sorted-chunks"
#: Above this many messages ``sorted-chunks`` is sized by the streamed build
#: (:func:`~trackerlab.models.proposals.sorted_chunks_streamed.streamed_sorted_build`, the same
#: result, tested equal at 10^4..10^6). Why 10^6: the in-memory build grows by about 135 B per
#: message (measured by helper h43, uniform 0-1 h, 1 s tick: +140 MB at 10^6, +1.34 GB at
#: 10^7, so ~13 GB at 10^8, above the 8 GiB budget), while the streamed one stays near
#: 1.5 GB at any size (its ranges are bounded) and was faster at 10^7 (11.6 s against 35.5 s:
#: one packed uint64 sort instead of a three-key lexsort); at 10^6 and below both take ~1.5 s
#: and the in-memory build needs no disk.
STREAMED_ABOVE_MESSAGES = 10**6
#: The proposals of the realistic matrix: the lab's packed ones and ``sorted-chunks``.
PROPOSALS = (*dl.PROPOSALS, SORTED_CHUNKS)
DESIGNS = (*PROPOSALS, *dl.BASELINES)
#: Designs with a per-message model that a dispatcher can drain (the time-bucket baselines
#: have no per-message JVM size).
DISPATCH_DESIGNS = (*PROPOSALS, "triple-heap")
REALISTIC_SCOPE = "realistic"
ABLATION_SCOPE = "ablation"
ABLATION_NOTE = (
    "ablation only: batches of 100 messages per entry, which the Java client never builds for "
    "delayed messages (ProducerImpl.canAddToBatch), and 50,000-entry ledgers whatever the rate "
    "(the release rolls on time too)"
)


@dataclass(frozen=True)
class RealisticMatrix:
    """The realistic axes: unbatched cells at every size of ``sizes``, ledgers rolled by
    ``rollover``. ``scope`` labels the rows (``ablation`` for :data:`ABLATION`)."""

    delays: tuple[str, ...] = DELAYS
    patterns: tuple[str, ...] = PATTERNS
    rates_per_ms: tuple[float, ...] = RATES_PER_MS
    ticks_ms: tuple[int, ...] = TICKS_MS
    sizes: tuple[int, ...] = SIZES
    batch_sizes: tuple[int, ...] = (1,)
    rollover: LedgerRollover | None = ROLLOVER
    scope: str = REALISTIC_SCOPE
    note: str = field(default="", compare=False)

    @classmethod
    def of(
        cls,
        delays: Sequence[str],
        patterns: Sequence[str],
        rates_per_ms: Sequence[float],
        ticks_ms: Sequence[int],
        sizes: Sequence[int],
    ) -> RealisticMatrix:
        """The matrix of these axes (lists, as a notebook's parameters give them), unbatched,
        ledgers rolled by :data:`ROLLOVER`."""
        return cls(
            tuple(delays), tuple(patterns), tuple(rates_per_ms), tuple(ticks_ms), tuple(sizes)
        )

    def __post_init__(self) -> None:
        """Axes checked by :class:`~trackerlab.experiments.design_lab.Matrix` (one-line
        UsageError), sizes within 1..10^12."""
        for size in self.sizes:
            check_int("tracker size (messages)", size, 1, 10**12)
        if not self.sizes:
            raise UsageError("tracker sizes: give at least one size (1..10^12 messages)")
        self.matrix(self.sizes[0])

    def matrix(self, messages: int) -> dl.Matrix:
        return dl.Matrix(
            self.delays,
            self.patterns,
            self.rates_per_ms,
            self.ticks_ms,
            self.batch_sizes,
            messages,
        )

    def cells(self) -> list[dict[str, Any]]:
        """Every cell at every size, with its ledger size and scope."""
        out = []
        for size in self.sizes:
            for cell in self.matrix(size).cells():
                epl = self.entries_per_ledger(float(cell["rate_per_ms"]), int(cell["batch_size"]))
                out.append({**cell, "entries_per_ledger": epl, "scope": self.scope})
        return out

    def entries_per_ledger(self, rate_per_ms: float, batch_size: int) -> int:
        """Entries per ledger at this message rate (50,000 without a rollover rule)."""
        if self.rollover is None:
            return 50_000
        return entries_per_ledger(rate_per_ms / batch_size, self.rollover)


def entries_per_ledger(entries_per_ms: float, rollover: LedgerRollover = ROLLOVER) -> int:
    """Entries of each ledger at a constant entry rate: the closed form of
    ``currentLedgerIsFull`` (:meth:`LedgerRollover.entries_per_ledger`). O(1).
    100 msg/s: 60,002; 1,000 msg/s: 600,002; 10,000 msg/s: 6,000,002."""
    return rollover.entries_per_ledger(entries_per_ms, ENTRY_BYTES)


def rollover_reference(
    publish_ms: Sequence[float],
    rollover: LedgerRollover = ROLLOVER,
    entry_bytes: int = ENTRY_BYTES,
    start_ledger: int = 0,
) -> list[tuple[int, int]]:
    """``(ledgerId, entryId)`` of entries published at ``publish_ms`` (non-decreasing), applying
    ``ManagedLedgerImpl.currentLedgerIsFull()`` after each add (the reference of the closed
    form; ledger ids consecutive, a ledger created when its first entry comes). O(entries)
    Python: for tests and small streams."""
    out: list[tuple[int, int]] = []
    ledger, entries, size, created = start_ledger, 0, 0, None
    for t in publish_ms:
        if created is None:
            created = t
        out.append((ledger, entries))
        entries += 1
        size += entry_bytes
        age = t - created
        quota = entries >= rollover.max_entries or size >= rollover.max_size_bytes
        old = rollover.max_rollover_ms > 0 and age >= rollover.max_rollover_ms
        full = (quota or old) and (rollover.min_rollover_ms <= 0 or age > rollover.min_rollover_ms)
        if full:
            ledger, entries, size, created = ledger + 1, 0, 0, None
    return out


def packed_refusal(workload: Workload) -> str:
    """Why 32-bit packed positions cannot hold ``workload`` ('' when they can): an entry id
    of 2^16 or more, or more than 2^16 ledgers. O(1)."""
    entries = -(-workload.messages // workload.batch_size)
    top_entry = min(entries, workload.entries_per_ledger) - 1
    if top_entry > MAX_ENTRY_ID:
        return (
            f"entry id {top_entry:,} >= 2^16 (ledgers of {workload.entries_per_ledger:,} entries)"
        )
    ledgers = -(-entries // workload.entries_per_ledger)
    if ledgers > MAX_WINDOW:
        return f"{ledgers:,} ledgers > 2^16"
    return ""


# --------------------------------------------------------------------------- entropy estimate


def plugin_entropy_bits(counts: Iterable[int]) -> float:
    """Plug-in (maximum-likelihood) entropy ``-sum p log2 p`` of a histogram, bits per symbol,
    ``p = count / total``. O(symbols)."""
    c = np.asarray([x for x in counts if x > 0], dtype=np.float64)
    if c.sum() == 0:
        return 0.0
    p = c / c.sum()
    return float(-(p * np.log2(p)).sum())


def stream_symbols(
    chunk: MessageChunk, bits: int, tick_ms: int, prev: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """The two symbol streams of a chunk's tracked messages (delay above the tick, as
    ``addMessage`` keeps them) and the last (ledger, entry) for the next chunk:

    - ``bucket``: ``(deliverAt >> bits) - (publish >> bits)``, the bucket a message is due in,
      counted from its publish bucket;
    - ``position``: the entry gap to the previous tracked message when the ledger is the
      same, else ``-(ledger step << 32 | entryId) - 1`` (a ledger switch and the first
      entry id). ``prev`` starts at ``(start_ledger, -1)``. O(n)."""
    keep = chunk.delay_ms > tick_ms
    ledger, entry = chunk.ledger[keep], chunk.entry[keep]
    bucket = (chunk.deliver_at[keep] >> bits) - (chunk.publish_ms[keep] >> bits)
    if len(ledger) == 0:
        return bucket, np.zeros(0, dtype=np.int64), prev
    pl = np.r_[prev[0], ledger[:-1]]
    pe = np.r_[prev[1], entry[:-1]]
    step = ledger - pl
    position = np.where(step == 0, entry - pe, -((step << 32) | entry) - 1)
    return bucket, position, (int(ledger[-1]), int(entry[-1]))


def entropy_estimate(workload: Workload, tick_ms: int) -> dict[str, float]:
    """An entropy estimate of the tracked (bucket, position) set, bits per tracked entry.

    Estimator: ``H(bucket) + H(position)``, the plug-in entropies of the two streams of
    :func:`stream_symbols` (empirical histograms over the whole stream, in the workload's
    chunks). Why the sum: the workload draws delays and the selection from independent random
    streams (:mod:`trackerlab.workloads.stream`), so the bucket stream and the position stream
    are independent and the source's entropy is the sum of theirs.

    When it is a lower bound: the tracked set is a sequence sorted by position (positions are
    distinct), so encoding the set is encoding these streams; the decoder is given the
    workload's parameters and each entry's publish time (side information a tracker does not
    have, which can only lower the bound). For i.i.d. delays and ``all``/``fraction``
    patterns both streams are i.i.d. and Shannon's source coding theorem makes their entropy
    a lower bound on the *expected* bits of any lossless encoding; the plug-in estimate is
    biased low (Jensen: ``E[H_hat] <= H``, by about ``(K - 1) / (2 n ln 2)`` bits for ``K``
    symbols), so it stays below in expectation: a lower bound in expectation, not for every
    draw. It is *not* a lower bound for deterministic structure it cannot see (fixed delays'
    bucket phase, ``burst`` patterns' periodic gaps: there the true entropy is about 0 and the
    estimate is above it). Unlike the counting floor ``log2 C(u, n)``, which counts every
    n-subset of (position, bucket) pairs, it knows each position is in one bucket, so it is
    below the floor by about ``log2 e`` = 1.44 bits per entry for a dense uniform delay.
    O(messages) numpy."""
    bits = precision_bits_for_tick(tick_ms)
    buckets: Counter[int] = Counter()
    positions: Counter[int] = Counter()
    prev = (workload.start_ledger, -1)
    n = 0
    for chunk in workload.chunks():
        bucket, position, prev = stream_symbols(chunk, bits, tick_ms, prev)
        n += len(bucket)
        for hist, values in ((buckets, bucket), (positions, position)):
            keys, counts = np.unique(values, return_counts=True)
            hist.update(dict(zip(keys.tolist(), counts.tolist(), strict=True)))
    h_bucket = plugin_entropy_bits(buckets.values())
    h_position = plugin_entropy_bits(positions.values())
    total = h_bucket + h_position
    return {
        "tracked": n,
        "bucket_bits": h_bucket,
        "position_bits": h_position,
        "entropy_bytes_per_entry": total / 8 if n else float("nan"),
    }


# --------------------------------------------------------------------------- paused sizes


def step_cost(since: tuple[float, float, int] | None = None) -> tuple[float, float, int]:
    """``(wall s, CPU s of this process, peak RSS bytes so far)``; with ``since``, the wall and
    CPU seconds elapsed since that reading (the peak stays the process's: ``ru_maxrss``).
    O(1)."""
    import resource

    now = (time.perf_counter(), time.process_time(),
           resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)  # fmt: skip
    if since is None:
        return now
    return now[0] - since[0], now[1] - since[1], now[2]


def size_cell(
    cell: dict[str, Any],
    designs: Sequence[str] = DESIGNS,
    entropy: bool = True,
    timings: dict[str, tuple[float, float, int]] | None = None,
) -> list[dict[str, Any]]:
    """One row per design for one realistic cell: paused JVM bytes from the reducer's counts
    (as :func:`~trackerlab.experiments.design_lab.size_cell`, with the cell's ledger size),
    the counting floor and the entropy estimate. A design that cannot hold the workload gets
    ``refused`` and no bytes. ``sorted-chunks`` is sized by its own build, streamed above
    :data:`STREAMED_ABOVE_MESSAGES`. ``timings``, when given, receives for the reducer pass
    (key ``reducer``) and each design ``(wall seconds, CPU seconds, peak RSS bytes so far)``
    (:func:`step_cost`). O(messages) numpy."""
    workload = dl.cell_workload(cell)
    tick = int(cell["tick_ms"])
    bits = precision_bits_for_tick(tick)
    clock = step_cost()
    totals, agg = bc.reduce_workload(workload, bits, tick)
    if timings is not None:
        timings["reducer"] = step_cost(clock)
    counts = PointCounts(totals, agg, workload.rate_per_ms, bits, tick)
    held = int(totals["entries"])
    floor = dl.cell_floor(cell, held)
    est = entropy_estimate(workload, tick) if entropy else {"entropy_bytes_per_entry": np.nan}
    refusal = packed_refusal(workload)
    rows = []
    for name in designs:
        clock = step_cost()
        row = {**cell, "design": name, "index_entries": held, "floor_per_entry": floor,
               "entropy_per_entry": est["entropy_bytes_per_entry"], "refused": "",
               "entries": 0, "jvm_bytes": np.nan}  # fmt: skip
        if name in dl.PROPOSALS and refusal:
            row["refused"] = refusal
        elif name == SORTED_CHUNKS:
            if workload.messages > STREAMED_ABOVE_MESSAGES:
                built, _ = streamed_sorted_build(workload, tick, COMPRESSED)
            else:
                built = workload_sorted_build(workload, tick, COMPRESSED)
            row["entries"], row["jvm_bytes"] = built.entries, built.jvm_bytes
        else:
            try:
                size = CATALOG[name].size_from_counts(counts, None, COMPRESSED)
            except UsageError as exc:
                row["refused"] = str(exc)
            else:
                row["entries"] = size.entries
                row["jvm_bytes"] = (size.jvm_bytes or 0) + (size.jvm_direct_bytes or 0)
        if timings is not None:
            timings[name] = step_cost(clock)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- dispatching


class _HeapDrainable(InMemoryDelayedDeliveryTracker):
    """The heap tracker with what ``_Drain`` reads: ``cost``, ``next_key`` and total JVM bytes
    (heap + the ByteBuf queue's direct memory)."""

    cost = None

    def next_key(self) -> int:
        return self.queue.peek_n1()

    def jvm_bytes(self, layout=COMPRESSED) -> int:
        return super().jvm_bytes(layout) + self.jvm_direct_bytes()


class _SampledDrain(dl._Drain):
    """``_Drain`` (adds as published, a due scan per tick) that records live bytes every
    ``sample_ms`` of simulated time (at the first due scan at or after each sample time; once
    publishing ended, every ``sample_ms`` or an eighth of the time since, whichever is longer),
    while publishing and while draining until the tracker holds less than half its peak."""

    def __init__(self, tracker, tick_ms: int, batch: int, sample_ms: int) -> None:
        super().__init__(tracker, tick_ms, batch)
        self.sample_ms = sample_ms
        self.samples: list[tuple[int, int, int]] = []
        self.next_sample: int | None = None
        self.peak = 0
        self.last_publish_ms = 0

    def scan(self, now: int) -> None:
        super().scan(now)
        if self.next_sample is None:
            self.next_sample = now
        if now < self.next_sample:
            return
        # draining, the interval grows with the time since publishing ended (a 30-day drain
        # takes ~60 samples, not 43,200)
        self.next_sample = now + max(self.sample_ms, (now - self.last_publish_ms) // 8)
        held = self.tracker.number_of_delayed_messages()
        # draining, a tracker below half its sampled peak never holds half of it again
        if now <= self.last_publish_ms or 2 * held >= self.peak:
            self.samples.append((now, held, self.tracker.jvm_bytes() if held else 0))
            self.peak = max(self.peak, held)

    def run(self, stream: list[tuple[int, int, int, int]]) -> dict[str, float]:
        """``_Drain.run``, with the end of publishing marked (sampling stops once draining
        leaves less than half the peak)."""
        self.last_publish_ms = stream[-1][3] if stream else 0
        return super().run(stream)


def _drain_tracker(name: str, tick_ms: int, spec: DelaySpec):
    if name == "triple-heap":
        return _HeapDrainable(tick_ms)
    if name == SORTED_CHUNKS:
        return SortedChunksTracker(tick_ms)
    return dl._tracker(name, tick_ms, spec)


def dispatch_memory(
    cell: dict[str, Any],
    designs: Sequence[str] = DISPATCH_DESIGNS,
    sample_ms: int = 60_000,
    batch_per_scan: int = 1000,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Live memory of each design under a dispatcher that scans every tick while the cell's
    stream is published, then until empty: ``(summary, samples)``.

    ``samples``: one row per ``sample_ms`` of simulated time (time, held entries, JVM bytes,
    bytes per held entry). ``summary`` per design: ``live_at_publish_end`` (bytes per held
    entry when the last message is added), ``live_worst`` (the largest of that and of bytes
    per held entry over the samples holding at least half of the peak: a near-empty
    tracker's fixed cost is not a per-entry figure), the peak held (largest of the samples and
    of the count when publishing ends) and ``refused`` when positions do not pack.
    O(messages) Python per design: at most :data:`MAX_DISPATCH_MESSAGES`."""
    messages = int(cell["messages"])
    check_int("dispatch messages", messages, 1, MAX_DISPATCH_MESSAGES)
    check_int("sample interval (ms)", sample_ms, 1)
    tick = int(cell["tick_ms"])
    workload = dl.cell_workload(cell)
    spec = DelaySpec.parse(str(cell["delay"]))
    columns = [(c.ledger, c.entry, c.deliver_at, c.publish_ms) for c in workload.chunks()]
    stream = list(
        zip(*(np.concatenate(c).tolist() for c in zip(*columns, strict=True)), strict=True)
    )
    refusal = packed_refusal(workload)
    rows: list[dict[str, object]] = []
    series: list[pd.DataFrame] = []
    for name in designs:
        if name in dl.PROPOSALS and refusal:
            rows.append({"design": name, "refused": refusal})
            continue
        drain = _SampledDrain(_drain_tracker(name, tick, spec), tick, batch_per_scan, sample_ms)
        out = drain.run(stream)
        s = pd.DataFrame(drain.samples, columns=["t_ms", "held", "jvm_bytes"])
        s["bytes_per_entry"] = s.jvm_bytes / s.held.where(s.held > 0)
        s.insert(0, "design", name)
        series.append(s)
        peak = max(int(s.held.max()) if len(s) else 0, int(out["held_when_published"]))
        plateau = s[s.held >= max(1, peak / 2)]
        worst = [float(plateau.bytes_per_entry.max())] if len(plateau) else []
        if out["held_when_published"]:
            worst.append(float(out["live_bytes_per_entry"]))
        rows.append(
            {
                "design": name,
                "refused": "",
                "peak_held": peak,
                "live_at_publish_end": out["live_bytes_per_entry"],
                "live_worst": max(worst) if worst else np.nan,
                "samples": len(s),
            }
        )
    samples = pd.concat(series, ignore_index=True) if series else pd.DataFrame()
    return pd.DataFrame(rows), samples


# --------------------------------------------------------------------------- the matrix


def run_realistic(
    matrix: RealisticMatrix,
    designs: Sequence[str] = DESIGNS,
    dispatch_upto: int = 10**4,
    sample_ms: int = 60_000,
    entropy: bool = True,
) -> pd.DataFrame:
    """Every cell of ``matrix``, paused for every design and, for cells of at most
    ``dispatch_upto`` messages, dispatching for :data:`DISPATCH_DESIGNS`: one row per (cell,
    design) with ``bytes_per_entry`` (paused), ``live_bytes_per_entry`` (dispatching, worst
    sample; NaN where not run), the floor and the entropy estimate."""
    check_int("dispatch_upto (messages)", dispatch_upto, 0, MAX_DISPATCH_MESSAGES)
    rows = []
    for cell in matrix.cells():
        sized = size_cell(cell, designs, entropy)
        live: dict[str, float] = {}
        if int(cell["messages"]) <= dispatch_upto:
            summary, _ = dispatch_memory(
                cell, [d for d in DISPATCH_DESIGNS if d in designs], sample_ms
            )
            if "live_worst" not in summary:
                summary["live_worst"] = np.nan
            live = dict(zip(summary.design, summary.live_worst, strict=True))
        for row in sized:
            row["live_bytes_per_entry"] = live.get(str(row["design"]), np.nan)
        rows += sized
    frame = pd.DataFrame(rows)
    frame["bytes_per_entry"] = frame.jvm_bytes / frame.entries.where(frame.entries > 0)
    frame["proposal"] = frame.design.isin(PROPOSALS)
    if matrix.note:
        frame["note"] = matrix.note
    return frame


#: The old cells (design lab's ``design-lab`` sweep block, spark/profiles.yaml), kept only as
#: an ablation: batches of 100, 50,000-entry ledgers at every rate.
ABLATION = RealisticMatrix(
    delays=("fixed:1d", "uniform:0:1h", "uniform:0:2d", DELAYS[1]),
    patterns=("all", "fraction:0.3", "fraction:0.05"),
    rates_per_ms=(0.5, 5.0, 50.0),
    ticks_ms=(64, 1000, 60_000),
    sizes=(10**7,),
    batch_sizes=(100,),
    rollover=None,
    scope=ABLATION_SCOPE,
    note=ABLATION_NOTE,
)
REALISTIC = RealisticMatrix()


# --------------------------------------------------------------------------- tables


def cell_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The per-cell table: design, bytes per entry paused and dispatching, the floor, the
    entropy estimate and both ratios to the heap's 24 B, with ``refused`` where a design
    cannot hold the workload."""
    keep = [*dl.CELL_COLUMNS, "entries_per_ledger", "scope", "design", "index_entries",
            "bytes_per_entry", "live_bytes_per_entry", "floor_per_entry", "entropy_per_entry",
            "refused"]  # fmt: skip
    out = frame[keep].rename(
        columns={
            "bytes_per_entry": "paused_B_per_entry",
            "live_bytes_per_entry": "dispatching_B_per_entry",
            "floor_per_entry": "floor_B_per_entry",
            "entropy_per_entry": "entropy_B_per_entry",
        }
    )
    heap = float(dl.HEAP_BYTES_PER_ENTRY)
    out["paused_over_24B"] = out.paused_B_per_entry / heap
    out["dispatching_over_24B"] = out.dispatching_B_per_entry / heap
    return out.reset_index(drop=True)


def _label(row: pd.Series) -> str:
    return f"{int(row.messages):.0e} msgs, {row.delay}, {row.pattern}, {row.rate_per_ms * 1000:g}/s, tick {int(row.tick_ms)} ms"


def worst_per_design(frame: pd.DataFrame) -> pd.DataFrame:
    """Per design: the worst paused and dispatching bytes per entry and their cells, how many
    cells go above 24 B either way, and how many it refuses."""
    rows = []
    for design, g in frame.groupby("design", sort=False):
        out: dict[str, object] = {"design": design, "proposal": design in PROPOSALS}
        for col, tag in (("bytes_per_entry", "paused"), ("live_bytes_per_entry", "dispatching")):
            v = g[col]
            if v.notna().any():
                worst = cast(pd.Series, g.loc[v.idxmax()])  # idxmax: one label, one row
                out[f"worst_{tag}_B"], out[f"worst_{tag}_cell"] = float(v.max()), _label(worst)
            else:
                out[f"worst_{tag}_B"], out[f"worst_{tag}_cell"] = np.nan, ""
            out[f"cells_{tag}_above_24B"] = int((v > dl.HEAP_BYTES_PER_ENTRY).sum())
        out["cells"] = len(g)
        out["cells_refused"] = int((g.refused != "").sum())
        rows.append(out)
    return pd.DataFrame(rows)


def worst_by_size(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`worst_per_design` per tracker size, the size being the decade of the entries
    the paused tracker holds (``index_entries``: a ``fraction:0.05`` cell of 10^4 messages is
    a tracker of 10^2 entries)."""
    held = np.floor(np.log10(frame.index_entries.clip(lower=1))).astype(int)
    parts = []
    for _, g in frame.assign(held_decade=held).groupby("held_decade"):
        decade = int(g.held_decade.iloc[0])
        w = worst_per_design(g)
        w.insert(0, "held_entries", f"1e{decade}..1e{decade + 1}")
        parts.append(w)
    return pd.concat(parts, ignore_index=True)


def above_heap(frame: pd.DataFrame, designs: Sequence[str] = PROPOSALS) -> pd.DataFrame:
    """Where each of ``designs`` goes above the heap's 24 B/entry, paused or dispatching, or
    refuses the workload: the cells the acceptance must state."""
    g = frame[frame.design.isin(designs)]
    over = (
        (g.bytes_per_entry > dl.HEAP_BYTES_PER_ENTRY)
        | (g.live_bytes_per_entry > dl.HEAP_BYTES_PER_ENTRY)
        | (g.refused != "")
    )
    keep = [*dl.CELL_COLUMNS, "design", "bytes_per_entry", "live_bytes_per_entry", "refused"]
    return g.loc[over, keep].reset_index(drop=True)


def acceptance(frame: pd.DataFrame, design: str = "time-buckets-hier") -> dict[str, object]:
    """The issue's acceptance on the realistic matrix for ``design``: never above 24 B/entry
    in live memory (paused or dispatching) at any size, with the cells that break it."""
    g = frame[frame.design == design]
    bad = above_heap(frame, [design])
    both = pd.concat([g.bytes_per_entry, g.live_bytes_per_entry]).dropna()
    worst = float(both.max()) if len(both) else float("nan")
    return {
        "design": design,
        "passed": bool(len(bad) == 0),
        "worst_B_per_entry": worst,
        "cells_above_24B": int(((g.bytes_per_entry > 24) | (g.live_bytes_per_entry > 24)).sum()),
        "cells_refused": int((g.refused != "").sum()),
        "cells": len(g),
    }


def measure_cell(
    cell: dict[str, Any], designs: Sequence[str] = DESIGNS, entropy: bool = False
) -> list[dict[str, Any]]:
    """:func:`size_cell` with its cost (:func:`step_cost`): ``size_cell_s`` and
    ``size_cell_cpu_s`` (the whole call), ``reducer_s`` and ``reducer_peak_rss_bytes`` (the
    shared reducer pass), ``design_s``, ``design_cpu_s`` and ``design_peak_rss_bytes`` (the
    row's design alone; the peak is the process's so far, so a design below the reducer's
    peak shows that), ``peak_rss_bytes`` (the process's, ``ru_maxrss``: run one cell per
    process) and ``sorted_chunks_build`` (``streamed`` or ``in-memory``). O(messages)."""
    spent: dict[str, tuple[float, float, int]] = {}
    clock = step_cost()
    rows = size_cell(cell, designs, entropy, timings=spent)
    total = step_cost(clock)
    streamed = int(cell["messages"]) > STREAMED_ABOVE_MESSAGES
    nan3 = (np.nan, np.nan, np.nan)
    for row in rows:
        design = str(row["design"])
        row["size_cell_s"], row["size_cell_cpu_s"], row["peak_rss_bytes"] = total
        row["reducer_s"], _, row["reducer_peak_rss_bytes"] = spent.get("reducer", nan3)
        row["design_s"], row["design_cpu_s"], row["design_peak_rss_bytes"] = spent.get(design, nan3)
        row["sorted_chunks_build"] = (
            ("streamed" if streamed else "in-memory") if design == SORTED_CHUNKS else ""
        )
        row["bytes_per_entry"] = row["jvm_bytes"] / row["entries"] if row["entries"] else np.nan
    return rows


def write_parquet(frame: pd.DataFrame, path: Path, meta: dict[str, object]) -> str:
    """``frame`` as Parquet at ``path``, written atomically, with ``meta`` as JSON under the
    schema metadata key ``trackerlab`` (as ``real_broker.results.write_frames``); returns its
    SHA-256. O(rows)."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), b"trackerlab": json.dumps(meta).encode()}
    )
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_bytes(Path(path), sink.getvalue().to_pybytes())


def write_frame(frame: pd.DataFrame, path: Path) -> str:
    """``frame`` as CSV at ``path``, written atomically; returns its SHA-256."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_bytes(path, frame.to_csv(index=False).encode())
