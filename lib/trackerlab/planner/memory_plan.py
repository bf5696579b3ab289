"""``trackerlab plan``: memory per tracker, design and precision for a user's workload.

For each tracker the workload exercises, every catalog design that can be sized from counts
is sized at steady state (:mod:`trackerlab.planner.snapshot`), the release's own design
marked; totals multiply the unit by what Pulsar creates per subscription, topic and broker:

=================== ======== =============================== ================================
tracker             side     one per                         totals
=================== ======== =============================== ================================
delayed index       broker   subscription and partition      x partitions, x subscriptions,
                                                             x topics (per broker)
negative acks       client   consumer and partition          x partitions x consumers, x subs
pending acks        broker   consumer and partition          x partitions x consumers, x subs,
                                                             x topics
receiver queue      client   consumer and partition          as negative acks
=================== ======== =============================== ================================

Steady and peak memory: the trackers are stationary at a constant rate, so steady state is
also the peak for the indexes, except the maps of nack versions A/B (their timer scans every
``delay / 3``, so entries wait up to a third longer before it removes them), the pending acks
and the receiver queue (peak: a consumer whose receiver queue is full).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

import trackerlab.planner.pip195 as pip195
import trackerlab.planner.precision as precision
from trackerlab.catalog import CATALOG
from trackerlab.catalog.versioned import values_views_bytes
from trackerlab.core.errors import UsageError
from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.design import DELAYED, NACK, PENDING_ACKS, RECEIVER_QUEUE, PointCounts
from trackerlab.models.pending_acks.layouts import Dataset
from trackerlab.models.receiver_queue.overshoot import SHARED, SOURCE, queue_peak
from trackerlab.planner.snapshot import exact_counts, fast_counts
from trackerlab.planner.streams import TrackedStream
from trackerlab.planner.workload import PlanWorkload
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.workloads import delay_forms
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.units import about_duration_ms, format_bytes, format_duration_ms

if TYPE_CHECKING:
    from trackerlab.sizing.request import SizeResult

GIB = 1024**3
#: Nack redelivery delays below this are raised to it (``NegativeAcksTracker.MIN_NACK_DELAY``).
MIN_NACK_DELAY_MS = 100.0
#: Ticks the recommendation compares (ms): a time-bucket index's memory changes only where
#: ``floor(log2 tick)`` does, so each bucket width ``2^k`` (1 ms to 70 min) is tried at its
#: smallest tick ``2^k`` (least early delivery) and its largest ``2^(k+1) - 1`` (fewest timer
#: wake-ups); the release's default and the workload's tick are added (:func:`candidate_ticks`).
TICKS_MS = tuple(sorted({1 << k for k in range(23)} | {(2 << k) - 1 for k in range(1, 22)}))
#: negativeAckPrecisionBitCnt values the recommendation compares: every one from 0 to 20
#: (buckets of 1 ms to 17 min).
NACK_BITS = tuple(range(21))
#: Memory within this share of the least counts as the same when choosing (ties go to the
#: release's default, then to fewer timer wake-ups).
MEMORY_TIE = 0.01


@dataclass
class PlanRow:
    """One design of one tracker: the unit's memory and its totals, bytes."""

    tracker: str
    design: str
    default: bool
    side: str
    memory: str
    per: str
    entries: float
    steady_bytes: int
    peak_bytes: int
    early_ms: float | None
    late_ms: float
    per_subscription: int
    per_topic: int
    per_broker: int | None
    note: str = ""
    #: the fast path's 95% bound on the sampled bytes, a fraction (0: exact or not sampled)
    error_bound: float = 0.0
    #: the direct-memory part of ``peak_bytes`` (None: all of it where ``memory`` is
    #: "direct", none where it is "heap")
    direct_bytes: int | None = None
    #: bytes the design keeps outside memory per unit (PIP-195's snapshots in BookKeeper)
    persisted_bytes: int = 0

    @property
    def direct_share(self) -> float:
        """The share of the unit's peak bytes in direct memory (``MaxDirectMemorySize``)."""
        if self.direct_bytes is None:
            return 1.0 if self.memory.split(" (")[0] == "direct" else 0.0
        return self.direct_bytes / self.peak_bytes if self.peak_bytes else 0.0

    def split(self, total: float) -> tuple[int, int]:
        """``total`` (one of the row's totals) as (heap, direct) bytes. O(1)."""
        direct = round(total * self.direct_share)
        return round(total) - direct, direct

    @property
    def bytes_per_entry(self) -> float:
        return self.steady_bytes / self.entries if self.entries else math.nan

    @property
    def entries_per_gib(self) -> float:
        return GIB / self.bytes_per_entry if self.entries and self.steady_bytes else math.inf

    def as_dict(self) -> dict[str, object]:
        row = asdict(self)
        row["bytes_per_entry"] = self.bytes_per_entry
        row["entries_per_gib"] = self.entries_per_gib
        return row


@dataclass
class Choice:
    """A recommendation: the setting, its memory, its precision, and the neighbours."""

    tracker: str
    design: str
    setting: str  # "tick" or "nack_precision_bits"
    value: int | None
    reason: str
    table: list[dict[str, object]] = field(default_factory=list)


@dataclass
class Plan:
    workload: PlanWorkload
    rows: list[PlanRow]
    choices: list[Choice]
    exact: bool
    snapshot_ms: dict[str, float]
    #: what the broker or client does that changes the answer (a blocked consumer...)
    warnings: list[str] = field(default_factory=list)

    def own(self, tracker: str) -> PlanRow | None:
        """The row of the design the release runs for ``tracker`` (None: not sized). O(rows)."""
        return next((r for r in self.rows if r.tracker == tracker and r.default), None)

    def assumed(self) -> list[tuple[str, str]]:
        """The defaults the plan assumed, in the user's units."""
        return [(name, self.workload.describe(name)) for name in self.workload.assumed]


# --------------------------------------------------------------------------- streams


def delayed_stream(
    w: PlanWorkload,
    tick_ms: int | None = None,
    design: str | None = None,
    read_lag_ms: float | None = None,
) -> TrackedStream:
    """The delayed index's entries at one partition at steady state. ``addMessage`` admits a
    message whose ``deliverAt > now + tick``; a bucket is handed out when its key is
    ``<= now + tick``, or, where the release's own index waits for the whole bucket
    (:func:`whole_bucket_due`), when its last ms is: ``key <= now + tick - 2^bits + 1``. The
    fixed-delay lookahead does not change it (:func:`lookahead_delay`: its pause ends when the
    first message comes due), for any ``design``.

    A dispatcher that reads each entry ``--read-lag`` L after it is written (its backlog
    unread: on two cores at 2,000/s with a fixed 20 s delay, 2.4 s on 4.2.4 and 4.7 s on 4.0.8)
    tracks at ``t`` what a dispatcher without lag tracked at ``t - L`` with both thresholds
    raised by L: the entries published by ``t - L`` whose ``deliverAt > t + tick``, admitted
    only when ``deliverAt > read time + tick`` (``InMemoryDelayedDeliveryTracker.addMessage``
    returns false at or below its cutoff: the check of :func:`lookahead_delay`, ``:120-121`` at
    v4.2.4, ``:73-74`` at v4.0.8; the dispatcher then hands the entry out at once). At steady state the shift in time does not
    matter, so L (``read_lag_ms``, else the workload's) adds to ``admit_after_ms`` and
    ``due_after_ms``. O(1)."""
    tick = int(tick_ms if tick_ms is not None else w.values["tick"])
    bits = precision_bits_for_tick(tick)
    delay: DelaySpec = w.values["delay"]
    due = tick - (1 << bits) + 1 if whole_bucket_due(w, design) else tick
    lag = float(w.values["read_lag"] if read_lag_ms is None else read_lag_ms)
    return TrackedStream(
        entry_rate_per_ms=w.entry_rate,
        share=w.delayed_entry_rate / w.entry_rate,
        delay=delay,
        entries_per_ledger=w.entries_per_ledger,
        bits=bits,
        admit_after_ms=tick + lag,
        due_after_ms=due + lag,
    )


def whole_bucket_due(w: PlanWorkload, design: str | None) -> bool:
    """Whether ``design`` is the release's own time-bucket index and that index hands a bucket
    out only once its last ms is due: ``InMemoryDelayedDeliveryTracker.getBucketCutoffTime``
    (``getCutoffTime() - precisionMillis + 1``, pulsar-broker-4.2.4-sources.jar
    ``InMemoryDelayedDeliveryTracker.java:172-174``; ``Choice.due``). Measured on 4.2.4's broker:
    a fixed 20 s delay at 1,000/s held 19,306 entries, the key rule gives 18,790 and this one
    about 19,300 (``data/broker/delayed-fixed-20s-4.2.4.parquet``). O(1)."""
    return (
        design is not None
        and design == w.defaults.delayed_design
        and w.defaults.delayed_due == "whole-bucket"
    )


def lookahead_delay(w: PlanWorkload, tick_ms: int, bucket_ms: int = 0) -> DelaySpec | None:
    """The delay that leaves the in-memory tracker holding what the fixed-delay lookahead lets
    it hold while it first fills, or None when the pause does not apply even then.

    The pause holds only until the first message comes due, so the steady state never has it
    (:func:`delayed_stream`): ``InMemoryDelayedDeliveryTracker.addMessage`` clears
    ``messagesHaveFixedDelay`` for any ``deliverAt <= cutoff`` or without a deliverAt
    (``InMemoryDelayedDeliveryTracker.java:120-121`` at v4.2.4, ``:73-74`` at v4.0.8), and the
    dispatcher passes every entry it sends through it, replays included
    (``AbstractBaseDispatcher.filterEntriesForConsumer`` -> ``trackDelayedDelivery``,
    ``AbstractBaseDispatcher.java:230`` at v4.2.4, ``:228`` at v4.0.8; ``isReplayRead`` is not
    looked at): the replay of the first due message, or the first message without a delay,
    clears it, and only an empty tracker sets it again (``:258`` at v4.2.4, ``:145`` at
    v4.0.8). Measured: 1,500/s with a fixed 40 s delay on 4.2.4 (``broker run delayed``,
    ``fixed-40s-lookahead-50k``) held 50,013 messages until the first came due at 40 s, then
    every message in flight (58,566 at 50 s), as with the lookahead at 0. So a mix of delayed
    and undelayed messages never pauses (the first undelayed one clears the flag).

    ``InMemoryDelayedDeliveryTracker.shouldPauseAllDeliveries()`` (pulsar-broker 4.2.4,
    ``InMemoryDelayedDeliveryTracker.java:300``) is true when ``lookahead > 0``, every added
    deliverAt was at least the highest one tracked minus a tick (``checkAndUpdateHighest``),
    the tracker holds ``lookahead`` messages and none is due; then
    ``PersistentDispatcherMultipleConsumers.readMoreEntries`` (``:345``) reads nothing, and the
    backlog waits in the ledger. A delay whose support is at most a tick wide keeps deliverAt
    monotone within a tick, so the pause applies; the tracker then holds the ``lookahead``
    entries due first, as a fixed delay of ``lookahead / rate + tick`` would leave it (within
    one read of 100 entries, ``dispatcherMaxReadBatchSize``); a bucketed index hands out a
    whole bucket at once, so it holds ``lookahead`` entries beyond the due bucket
    (``+ bucket_ms``). O(1)."""
    lookahead = int(w.values["fixed_delay_lookahead"])
    delay: DelaySpec | None = w.values["delay"]
    rate = w.delayed_entry_rate
    if not lookahead or delay is None or rate <= 0 or rate < w.entry_rate:
        return None
    if delay_forms.support_max(delay) - delay_forms.support_min(delay) > tick_ms:
        return None
    capped_ms = lookahead / rate + tick_ms + bucket_ms
    if delay_forms.support_min(delay) <= capped_ms:
        return None  # the tracker never fills up to the lookahead
    return DelaySpec.parse(f"fixed:{capped_ms:.6f}ms")


def lookahead_note(w: PlanWorkload) -> str:
    """One line when the lookahead pause caps the in-memory index while it first fills."""
    tick = int(w.values["tick"])
    if lookahead_delay(w, tick, 1 << precision_bits_for_tick(tick)) is None:
        return ""
    lookahead = int(w.values["fixed_delay_lookahead"])
    return (
        f"one fixed delay: reads pause once the tracker holds {lookahead:,} messages "
        "(delayedDeliveryFixedDelayDetectionLookahead) only until the first comes due; "
        "the steady state holds every message in flight"
    )


def nack_delay(w: PlanWorkload) -> DelaySpec:
    """The nack delay, raised to ``MIN_NACK_DELAY`` (100 ms) where shorter."""
    spec: DelaySpec = w.values["nack_delay"]
    if delay_forms.support_min(spec) >= MIN_NACK_DELAY_MS:
        return spec
    if delay_forms.is_deterministic(spec):
        return DelaySpec.parse(f"fixed:{MIN_NACK_DELAY_MS:g}ms")
    raise UsageError(
        f"--nack-delay {spec.text!r}: delays below {MIN_NACK_DELAY_MS:g}ms are raised to it by "
        "the client; give a distribution that starts at 100ms or later"
    )


def nack_stream(w: PlanWorkload, bits: int | None = None) -> TrackedStream:
    """One consumer's nacked entries at one partition (PIP-393 keys: nack time + delay).

    A message is nacked when the consumer receives it: at once for most, but a delayed
    message only when it comes due, with the id of the ledger it was written to a delay
    earlier. Its key is ``publish + delay + nack delay``, so the tracker sees the delayed
    share of its entries through :func:`nack_delay_of_entries`. O(1)."""
    return TrackedStream(
        entry_rate_per_ms=w.entry_rate,
        share=w.entry_nack_share / w.values["consumers"],
        delay=nack_delay_of_entries(w),
        entries_per_ledger=w.entries_per_ledger,
        bits=int(bits if bits is not None else w.values["nack_precision_bits"]),
        visible_ms=delay_forms.support_max(nack_delay(w)),
    )


def nack_delay_of_entries(w: PlanWorkload) -> DelaySpec:
    """Publish-to-key time of a nacked entry: the nack delay for entries received at once;
    for the nacked delayed messages (a share ``q`` of the nacked entries) their delay plus the
    nack delay (its mean when the nack delay is a distribution). O(parts)."""
    nack = nack_delay(w)
    v = w.values
    s = v["nacked"]
    delayed = w.delayed_entry_rate * s
    normal = w.normal_entry_rate * (1 - (1 - s) ** v["batch"])
    if not delayed or v["delay"] is None:
        return nack
    q = delayed / (delayed + normal)
    late = delay_forms.shifted(v["delay"], delay_forms.mean(nack))
    if q >= 1:
        return late
    # one flat mixture (a part of a mixture is never a mixture itself)
    parts = [(q * wi, pi) for wi, pi in _components(late)]
    parts += [((1 - q) * wi, pi) for wi, pi in _components(nack)]
    return DelaySpec("mix", weights=tuple(w for w, _ in parts), parts=tuple(p for _, p in parts),
                     text=f"mix:{q:.6g}*({late.text})+{1 - q:.6g}*({nack.text})")  # fmt: skip


def _components(spec: DelaySpec) -> list[tuple[float, DelaySpec]]:
    """A spec as weighted non-mixture parts. O(parts)."""
    if spec.kind != "mix":
        return [(1.0, spec)]
    return [(w, p) for w, p in zip(spec.weights, spec.parts, strict=True)]


#: ``--exact`` folds the snapshot's entries on Spark above this many (single process below).
SPARK_ABOVE_ENTRIES = 50_000_000


def release_layout(w: PlanWorkload) -> JvmLayout:
    """Compressed oops with the RoaringBitmap ART of the plan's release (lines before 4.2 pin
    RoaringBitmap 1.2.0, whose leaves are heavier; measured by ``jvm-check --pulsar``)."""
    return replace(COMPRESSED, roaring_art=w.defaults.roaring_art)


def release_shape(w: PlanWorkload, name: str) -> str | None:
    """The Java shape the release runs ``name`` in (its table choice), else None (the
    design's first shape): 4.0.4+ holds red-black inner maps, 4.0.1-4.0.2 open-hash ones."""
    if name == w.defaults.delayed_design:
        return w.defaults.delayed_shape
    if name == w.defaults.nack_design:
        return w.defaults.nack_shape
    return None


def _sampled_bound(name: str, counts: PointCounts) -> float:
    """The fast path's 95% bound for a design sized from the sampled buckets (a heap or map
    holds the closed-form count: no sampling error). O(1)."""
    if "time-buckets" not in name:
        return 0.0
    return counts.totals.get("error_bound_ppm", 0) / 1e6


def values_views(w: PlanWorkload, name: str, size, layout: JvmLayout) -> int:
    """4.0.1-4.0.5's time buckets (variant a) stream ``values()`` on every add: each map keeps
    its view (:func:`~trackerlab.catalog.versioned.values_views_bytes`). O(1)."""
    if name != w.defaults.delayed_design or w.defaults.delayed_variant != "a":
        return 0
    return values_views_bytes(int(size.details.get("buckets", 0)), layout)


#: Entry ids from 2^24 on reach a second key byte in a bitmap's ART.
BIG_LEDGER_ENTRIES = 1 << 24


def big_ledger_note(stream: TrackedStream) -> str:
    """A note for ledgers past 2^24 entries: their bitmaps' ART is sized from chunk counts as
    if the keys were consecutive, up to 6% low on sparse keys (the bound measured in
    ``tests/models/time_buckets/test_big_ledgers.py``)."""
    if stream.entries_per_ledger <= BIG_LEDGER_ENTRIES:
        return ""
    return (
        f"ledgers of {stream.entries_per_ledger:,} entries pass 2^24 ids: bitmap ART nodes "
        "estimated from chunk counts (up to 6% low)"
    )


def counts_at(
    stream: TrackedStream,
    exact: bool,
    seed: int,
    master: str | None = None,
    layout: JvmLayout = COMPRESSED,
    t_ms: float | None = None,
) -> tuple[PointCounts, float]:
    """The stream's counts at ``t_ms`` (default: its steady snapshot time): fast, exact in this
    process, or exact on Spark (a ``master`` given, or more than :data:`SPARK_ABOVE_ENTRIES`
    entries to generate)."""
    t = stream.steady_time_ms() if t_ms is None else t_ms
    if not exact:
        return fast_counts(stream, seed, layout, t_ms=t)
    workload, _ = stream.workload(t, seed)
    if master is None and workload.messages <= SPARK_ABOVE_ENTRIES:
        return exact_counts(stream, seed, layout=layout, t_ms=t)
    from trackerlab.spark.session import get_session

    return exact_counts(stream, seed, layout=layout, spark=get_session(master), t_ms=t)


def phase_counts(
    stream: TrackedStream,
    exact: bool,
    seed: int,
    master: str | None = None,
    layout: JvmLayout = COMPRESSED,
) -> list[tuple[PointCounts, float]]:
    """The stream's counts at each of its :meth:`~TrackedStream.phase_times_ms` (the snapshot
    times whose mean is its time average), fast or exact as :func:`counts_at`, each with a
    whole snapshot's sample budget. O(phases x one snapshot)."""
    return [counts_at(stream, exact, seed, master, layout, t) for t in stream.phase_times_ms()]


# --------------------------------------------------------------------------- trackers


def planned_designs(tracker) -> tuple[str, ...]:
    """The designs of ``tracker`` a plan sizes: every count-sized one except the design lab's
    proposals, whose counts need per-bucket statistics (``models/time_buckets/lab_stats``) that
    closed forms do not give; the ``design_lab`` report sizes those."""
    return tuple(n for n in CATALOG.names("from_counts", tracker) if not CATALOG[n].proposal)


def _multipliers(w: PlanWorkload, per_consumer: bool) -> tuple[int, int, int]:
    """Units per subscription, per topic and per broker."""
    v = w.values
    per_sub = v["partitions"] * (v["consumers"] if per_consumer else 1)
    per_topic = per_sub * v["subscriptions"]
    return per_sub, per_topic, per_topic * v["topics"]


def size_bytes(result) -> int:
    """A sized design's JVM bytes, heap and direct. O(1)."""
    return int((result.jvm_bytes or 0) + (result.jvm_direct_bytes or 0))


def _delayed_stream_held(w: PlanWorkload, name: str) -> tuple[TrackedStream, float | None]:
    """Design ``name``'s delayed stream and, for a heap that keeps its capacity under a read
    lag, the entries it holds (the lagged stream's closed form; None: from the snapshots)."""
    stream = delayed_stream(w, design=name)  # the due rule differs by design only
    held = None
    if CATALOG[name].keeps_capacity and float(w.values["read_lag"]):
        # a read lag starts only once messages come due (replays compete with reads):
        # the first fill is read as written, and a heap keeps what it grew to then; the
        # entries it holds are the lagged stream's closed form (no snapshot is built for
        # a count alone, so --exact builds one snapshot, not two)
        held = stream.pending(stream.steady_time_ms(), stream.admit_after_ms)
        stream = delayed_stream(w, design=name, read_lag_ms=0.0)
    return stream, held


def _delayed_note(w: PlanWorkload, name: str, stream: TrackedStream) -> str:
    """The delayed row's notes: the heap tracker's lookahead, big ledgers under buckets."""
    return "; ".join(
        n
        for n in (
            lookahead_note(w)
            if CATALOG[name].source.endswith("InMemoryDelayedDeliveryTracker.java")
            else "",
            big_ledger_note(stream) if name.startswith("time-buckets") else "",
        )
        if n
    )


def _delayed_row(
    w: PlanWorkload,
    name: str,
    stream: TrackedStream,
    held: float | None,
    phases: list[tuple[PointCounts, float]],
    layout: JvmLayout,
) -> PlanRow:
    """One delayed design's row: steady bytes the mean over its phase snapshots, the peak the
    largest, scaled per subscription, topic and broker."""
    design = CATALOG[name]
    per_sub, per_topic, per_broker = _multipliers(w, per_consumer=False)
    sizes = [design.size_from_counts(c, release_shape(w, name), layout) for c, _ in phases]
    totals = [size_bytes(s) + values_views(w, name, s, layout) for s in sizes]
    steady, total = round(sum(totals) / len(totals)), max(totals)
    direct = max(int(s.jvm_direct_bytes or 0) for s in sizes)
    return PlanRow(
        tracker=DELAYED.name,
        design=name,
        default=name == w.defaults.delayed_design,
        side="broker",
        memory=design.memory,
        per="subscription, partition",
        entries=sum(float(s.entries) for s in sizes) / len(sizes) if held is None else float(held),
        steady_bytes=steady,
        peak_bytes=total,
        early_ms=within_delay(
            precision.early_ms(
                name,
                int(w.values["tick"]),
                stream.bits,
                whole_bucket_due(w, name),
            ),
            w.values["delay"],
        ),
        # a dispatcher reading L late hands a message due by then out at once
        late_ms=float(w.values["read_lag"]),
        per_subscription=total * per_sub,
        per_topic=total * per_topic,
        per_broker=total * per_broker,
        error_bound=phases_bound(name, [c for c, _ in phases], totals),
        direct_bytes=direct,
        note=_delayed_note(w, name, stream),
    )


def delayed_rows(
    w: PlanWorkload, exact: bool = False, seed: int = 0, master: str | None = None
) -> tuple[list[PlanRow], float]:
    """Every count-sized delayed-index design at steady state.

    A heap holds the closed-form count: one snapshot. A time-bucket index's content depends on
    where the clock falls in the bucket, ledger and chunk grids (a ledger boundary inside the
    pending window splits buckets into more bitmaps), so its steady bytes are the mean over
    the stream's phase snapshots (:func:`phase_counts`, each with a whole snapshot's sample
    budget: shared, 1 ms buckets left each phase 16 keys and a 10% error) and its peak the
    largest; measured on 4.2.4's broker with ledgers rolling every minute and
    uniform 0-20 s delays, one snapshot at a ledger boundary was 9.7% low."""
    layout = release_layout(w)
    rows = []
    streams: dict[tuple[TrackedStream, bool], list[tuple[PointCounts, float]]] = {}
    t = 0.0
    for name in planned_designs(DELAYED):
        stream, held = _delayed_stream_held(w, name)
        bucketed = "time-buckets" in name
        if (stream, bucketed) not in streams:
            streams[stream, bucketed] = (
                phase_counts(stream, exact, seed, master, layout)
                if bucketed
                else [counts_at(stream, exact, seed, master, layout)]
            )
        phases = streams[stream, bucketed]
        t = max(t, phases[0][1])
        rows.append(_delayed_row(w, name, stream, held, phases, layout))
    if w.defaults.bucket_design is not None:
        rows.append(pip195_row(w))
    return rows, t


def pip195_row(w: PlanWorkload) -> PlanRow:
    """PIP-195's opt-in bucket tracker (3.0+): its time-stepped model's steady cycle
    (:mod:`trackerlab.planner.pip195`), the same in the fast and the exact path."""
    name = "pip195-buckets"
    size = pip195.size(w)
    per_sub, per_topic, per_broker = _multipliers(w, per_consumer=False)
    tick = int(w.values["tick"])
    return PlanRow(
        tracker=DELAYED.name,
        design=name,
        default=False,
        side="broker",
        memory=CATALOG[name].memory,
        per="subscription, partition",
        entries=size.entries,
        steady_bytes=size.steady_bytes,
        peak_bytes=size.peak_bytes,
        early_ms=within_delay(
            precision.early_ms(name, tick, precision_bits_for_tick(tick)), w.values["delay"]
        ),
        late_ms=0.0,
        per_subscription=size.peak_bytes * per_sub,
        per_topic=size.peak_bytes * per_topic,
        per_broker=size.peak_bytes * per_broker,
        direct_bytes=size.peak_direct_bytes,
        persisted_bytes=size.persisted_bytes,
        note=(
            f"opt-in factory; {format_bytes(size.persisted_bytes)} of snapshots in BookKeeper "
            f"per unit; steady = mean over seal cycles ({pip195.describe_cycle(w)}), "
            "peak = the cycle's largest (simulate delayed's model)"
        ),
    )


def _nack_phase_sizes(
    name: str,
    shape: str | None,
    layout: JvmLayout,
    phases: list[tuple[PointCounts, float]],
    stream: TrackedStream,
    delay_ms: float,
    late: float,
) -> tuple[list[SizeResult], list[SizeResult]]:
    """Design ``name`` sized at each phase snapshot: steady and peak, which differ when a
    timer scan makes entries wait (versions A/B: half a scan on average, a whole at peak)."""
    design = CATALOG[name]
    steadies, peaks = [], []
    for counts, _ in phases:
        steady_counts, peak_counts = counts, counts
        if late:  # versions A/B: entries wait for the next scan (uniform: half on average)
            rate = stream.tracked_rate_per_ms
            steady_counts = _with_entries(counts, rate * (delay_ms + late / 2))
            peak_counts = _with_entries(counts, rate * (delay_ms + late))
        steadies.append(design.size_from_counts(steady_counts, shape, layout))
        peaks.append(design.size_from_counts(peak_counts, shape, layout))
    return steadies, peaks


def _nack_note(name: str, stream: TrackedStream, ids: int) -> str:
    """The nack row's notes: big ledgers under buckets, the release's empty id map."""
    return "; ".join(
        n
        for n in (
            big_ledger_note(stream) if "time-buckets" in name else "",
            f"with the release's empty nackedMessageIds map ({ids} B)" if ids else "",
        )
        if n
    )


def nack_rows(
    w: PlanWorkload, exact: bool = False, seed: int = 0, master: str | None = None
) -> tuple[list[PlanRow], float]:
    """Every count-sized negative-ack tracker design at steady state, per consumer.

    A client's tracker holds a few buckets when the nack delay spans few ``2^bits`` ms widths
    (a 1 s delay at 8 bits: 3.9 widths, so 3 or 4 buckets by the clock's phase, the newest
    partly filled), and a bucket's entries split into more bitmaps and containers when a
    ledger or 2^16-entry chunk boundary falls in their publication times (which delayed
    messages, nacked when they come due, widen). Steady is therefore the mean over the
    stream's phase snapshots (:func:`phase_counts`: the time average a sampled live tracker
    shows), peak the largest of them; the first snapshot's time is returned."""
    stream = nack_stream(w)
    layout = release_layout(w)
    phases = phase_counts(stream, exact, seed, master, layout)
    per_sub, per_topic, _ = _multipliers(w, per_consumer=True)
    delay_ms = delay_forms.mean(nack_delay(w))  # from receipt to redelivery
    rows = []
    for name in planned_designs(NACK):
        design = CATALOG[name]
        late = precision.late_ms(name, delay_ms)
        shape = release_shape(w, name)
        steadies, peaks = _nack_phase_sizes(name, shape, layout, phases, stream, delay_ms, late)
        ids = nack_ids_bytes(w, name, layout)
        steady_bytes = round(sum(size_bytes(s) for s in steadies) / len(steadies)) + ids
        peak_bytes = max(size_bytes(p) for p in peaks) + ids
        rows.append(
            PlanRow(
                tracker=NACK.name,
                design=name,
                default=name == w.defaults.nack_design,
                side="client",
                memory=design.memory,
                per="consumer, partition",
                entries=sum(float(s.entries) for s in steadies) / len(steadies),
                steady_bytes=steady_bytes,
                peak_bytes=peak_bytes,
                early_ms=within_delay(precision.early_ms(name, 0, stream.bits), nack_delay(w)),
                late_ms=late,
                per_subscription=peak_bytes * per_sub,
                per_topic=peak_bytes * per_topic,
                per_broker=None,
                note=_nack_note(name, stream, ids),
                error_bound=math.hypot(
                    max(_sampled_bound(name, c) for c, _ in phases),
                    phase_bound([size_bytes(s) for s in steadies]),
                ),
                direct_bytes=max(int(p.jvm_direct_bytes or 0) for p in peaks),
            )
        )
    return rows, phases[0][1]


def phases_bound(name: str, counts: list[PointCounts], totals: list[int]) -> float:
    """The 95% bound of a mean over phase snapshots: the sampling bound of the mean of
    ``len(counts)`` snapshots sampled apart (their root mean square over ``sqrt(n)``) beside
    the phase bound (:func:`phase_bound`). One snapshot: its sampling bound. O(n)."""
    n = len(counts)
    sampled = math.sqrt(sum(_sampled_bound(name, c) ** 2 for c in counts) / n)
    if n == 1:
        return sampled
    return math.hypot(sampled / math.sqrt(n), phase_bound(totals))


def phase_bound(values: list[int]) -> float:
    """The 95% bound (1.96 standard errors, relative to the mean) of the mean of a stratified
    (systematic) sample of a periodic quantity, from its successive differences
    (``var = sum(diff^2) / (2 (n - 1))``, as the fast path's key sample); 0 for a constant.
    O(n)."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 2 or mean <= 0:
        return 0.0
    var = sum((b - a) ** 2 for a, b in itertools.pairwise(values)) / (2 * (n - 1))
    return 1.96 * math.sqrt(var / n) / mean


def nack_ids_bytes(w: PlanWorkload, name: str, layout: JvmLayout) -> int:
    """The release's second nack-tracker field for its own design: 4.2's ``nackedMessageIds``
    (variant ``ids-map``, :func:`trackerlab.models.nack.pip393_tracker.ids_map_bytes`), empty
    unless messages are traced or chunked (neither is modelled); else 0. O(1)."""
    from trackerlab.models.nack.pip393_tracker import ids_map_bytes

    if name != w.defaults.nack_design:
        return 0
    return ids_map_bytes(w.defaults.nack_variant, layout)


def _with_entries(counts: PointCounts, entries: float) -> PointCounts:
    totals = dict(counts.totals)
    totals["heap_entries"] = round(entries)
    return PointCounts(totals, counts.aggregates, counts.rate_per_ms, counts.trim_bits, None)


def unacked_entries(w: PlanWorkload) -> tuple[float, float]:
    """One consumer's unacknowledged entries at steady state, uncapped: those dispatched
    within the ack latency, plus the nacked ones, which stay in the broker's pending acks until
    their redelivery (``Consumer.redeliverUnacknowledgedMessages`` removes them when the client's
    ``NegativeAcksTracker`` fires, after the nack delay); and the peak, plus a full receiver
    queue with batching's overshoot (:func:`batched_queue_peak`). O(1)."""
    v = w.values
    rate = w.entry_rate / v["consumers"]
    nacked = rate * w.entry_nack_share * delay_forms.mean(nack_delay(w)) if v["nacked"] else 0.0
    steady = rate * v["ack_latency"] + nacked
    backlog = batched_queue_peak(v["receiver_queue"], v["batch"]) / w.messages_per_entry
    if v["horizon"] is not None:  # a backlog is no older than the run: --horizon bounds it
        backlog = min(backlog, rate * v["horizon"])
    return steady, steady + backlog


def backlog_note(w: PlanWorkload, peak_entries: float, ledgers: int) -> str:
    """Why a slow topic's peak pending acks are large: the full receiver queue of the peak is
    read from a backlog, and at a low rate its entries sit one or a few per ledger, since a
    ledger rolls over once ``managedLedgerMaxLedgerRolloverTimeMinutes`` passed even with
    one entry (``ManagedLedgerImpl.rollCurrentLedgerIfFull``/``currentLedgerIsFull``,
    ManagedLedgerImpl.java:2027-2030,4431-4443 at v4.2.4); each ledger costs the map a node.
    Empty when the peak fits one ledger. O(1)."""
    if ledgers <= 1:
        return ""
    rate = w.entry_rate / w.values["consumers"]
    age = about_duration_ms(peak_entries / rate) if rate > 0 else "?"
    return (
        f"peak = a full receiver queue read from a backlog {age} old: {peak_entries:,.0f} "
        f"entries over {ledgers:,} ledgers, as ledgers roll over every "
        f"{format_duration_ms(w.values['ledger_max_rollover'])} even with one entry "
        "(ManagedLedgerImpl.java:2027-2030,4431-4443 at v4.2.4); --horizon bounds the backlog"
    )


def unacked_warning(w: PlanWorkload) -> str:
    """One line when a consumer's unacked messages reach ``maxUnackedMessagesPerConsumer``:
    the broker then stops dispatching to it (``Consumer.blockedConsumerOnUnackedMsgs``) until
    acks bring it below half the limit; the plan sizes what it holds at the limit."""
    steady, _ = unacked_entries(w)
    limit = w.values["max_unacked"]
    messages = steady * w.messages_per_entry
    if not limit or messages < limit:
        return ""
    return (
        f"each consumer would hold {messages:,.0f} unacked messages, past "
        f"maxUnackedMessagesPerConsumer = {limit:,}: the broker blocks it there, so its "
        "pending acks and its share of the topic's throughput stop at the limit"
    )


def pending_ack_rows(w: PlanWorkload) -> list[PlanRow]:
    """Each PendingAcksMap layout holding one consumer's unacknowledged entries (steady and
    peak of :func:`unacked_entries`), both capped by ``maxUnackedMessagesPerConsumer``
    (``--max-unacked``, counted in messages; 0: no cap). The cap is exact for unbatched
    entries: a Shared dispatcher gives a consumer at most ``max - unacked`` more messages
    (``PersistentDispatcherMultipleConsumers.java:915`` at v4.2.4), and ``Consumer`` blocks
    it once ``unacked >= max`` (``Consumer.java:463``)."""
    per_entry = w.messages_per_entry
    limit = w.values["max_unacked"]
    cap = limit / per_entry if limit else math.inf
    steady_n, peak_n = (min(n, cap) for n in unacked_entries(w))
    per_sub, per_topic, per_broker = _multipliers(w, per_consumer=True)
    epl = w.entries_per_ledger
    rows = []
    peak_entries = max(round(peak_n), 0)
    peak_ledgers = max(1, round(1 + (peak_entries - 1) / epl)) if peak_entries else 1
    backlog = backlog_note(w, peak_entries, peak_ledgers)
    for name in CATALOG.names(tracker=PENDING_ACKS):
        design = CATALOG[name]
        sizes = []
        for n in (steady_n, peak_n):
            entries = max(round(n), 0)
            ledgers = max(1, round(1 + (entries - 1) / epl)) if entries else 1
            sizes.append(Dataset(entries, ledgers).build(name).jvm_bytes() if entries else 0)
        rows.append(
            PlanRow(
                tracker=PENDING_ACKS.name,
                design=name,
                default=name == w.defaults.pending_acks_design,
                side="broker",
                memory=design.memory,
                per="consumer, partition",
                entries=float(round(steady_n)),
                steady_bytes=sizes[0],
                peak_bytes=sizes[1],
                early_ms=None,
                late_ms=0.0,
                per_subscription=sizes[1] * per_sub,
                per_topic=sizes[1] * per_topic,
                per_broker=sizes[1] * per_broker,
                note="; ".join(
                    text
                    for text in (
                        design.releases if design.releases.startswith("not merged") else "",
                        backlog if name == w.defaults.pending_acks_design else "",
                    )
                    if text
                ),
            )
        )
    return rows


def batched_queue_peak(queue: int, batch: int) -> int:
    """Most messages a consumer's receiver queue can hold: ``queue`` plus the overshoot of
    whole entries of ``batch`` messages on a Shared subscription (the plan's). Permits count
    messages, but a Shared dispatch gives a consumer with ``p`` permits at most
    ``ceil(p / batch)`` entries (``getMaxEntriesInThisBatch``), so it ends at most
    ``batch - 1`` messages past its permits: ``queue + batch - 1``. This is the rule
    :func:`~trackerlab.models.receiver_queue.overshoot.queue_peak` gives, with Pulsar's lines
    (apache/pulsar@534a635d, v4.2.4), and ``trackerlab simulate receiver-queue
    --subscription-type shared`` runs the same rule. (The Exclusive rule, ``min(p, 100)``
    entries per read, reaches ``queue + min(queue, 100, entries in 5 MiB) * (batch - 1)``.)
    O(1)."""
    return queue_peak(queue, batch, 1, subscription_type=SHARED).messages


def receiver_queue_rows(w: PlanWorkload) -> list[PlanRow]:
    """Prefetched messages per consumer. Steady: the messages dispatched within the ack
    latency. Peak: a full receiver queue plus the overshoot of whole batch entries on a Shared
    subscription (:func:`~trackerlab.models.receiver_queue.overshoot.queue_peak`, the rule that
    ``trackerlab simulate receiver-queue --subscription-type shared`` runs; the note cites
    Pulsar's lines). It assumes every entry holds ``batch`` messages. A part-full batch in a
    read lowers the dispatcher's integer average and lets more through, at most
    ``queue + 20 * (batch - 1)`` (``queue_peak(..., read_avg_messages_per_entry=1)``). Payload bytes: the
    client holds them in pooled buffers, and ``memoryLimit`` counts them."""
    v = w.values
    rate = w.partition_rate_per_ms / v["consumers"]
    size = v["message_size"]
    steady_n = min(rate * v["ack_latency"], v["receiver_queue"])
    worst = queue_peak(
        v["receiver_queue"],
        v["batch"],
        int(size),
        subscription_type=SHARED,
    )
    peak_n = worst.messages
    per_sub, per_topic, _ = _multipliers(w, per_consumer=True)
    peak = worst.bytes
    limit = v["memory_limit"]
    if worst.overshoot_messages:
        note = (
            f"peak {peak_n:,} messages: a Shared dispatch sends whole entries of {v['batch']} "
            f"messages against permits counted in messages, up to {worst.overshoot_messages} "
            f"past them with every entry full ({SOURCE})"
        )
    else:
        note = f"peak = receiverQueueSize: entries of one message never pass the permits ({SOURCE})"
    if limit and peak * v["partitions"] > limit:
        note += "; " if note else ""
        note += (
            f"a consumer's partitions prefetch {peak * v['partitions'] / 2**20:,.0f} MiB, over the "
            f"{limit / 2**20:,.0f} MiB memoryLimit (it does not stop prefetching; auto-scaled "
            "queues shrink)"
        )
    return [
        PlanRow(
            tracker=RECEIVER_QUEUE.name,
            design="fixed receiver queue",
            default=True,
            side="client",
            memory="direct (client)",
            per="consumer, partition",
            entries=float(steady_n),
            steady_bytes=int(steady_n * size),
            peak_bytes=peak,
            early_ms=None,
            late_ms=0.0,
            per_subscription=peak * per_sub,
            per_topic=peak * per_topic,
            per_broker=None,
            note=note,
        )
    ]


def unsized_reason(w: PlanWorkload, tracker: str) -> str:
    """Why the release's own design of ``tracker`` has no row: not modelled, or not sized from
    counts (the planner's closed forms); what to run instead."""
    design = getattr(w.defaults, f"{tracker}_design")
    if design is None:
        return f"Pulsar {w.defaults.version} runs no modelled {tracker} design"
    return (
        f"Pulsar {w.defaults.version} runs {design}, which the planner cannot size from counts; "
        f"`trackerlab size {design}` builds it"
    )


def _count_sized(w: PlanWorkload, tracker: str) -> str:
    """The release's design of ``tracker`` when it can be sized from counts, else UsageError."""
    design = getattr(w.defaults, f"{tracker}_design")
    if design is None or CATALOG[design].from_counts is None:
        raise UsageError(f"--budget/--max-early: {unsized_reason(w, tracker)}")
    return design


# --------------------------------------------------------------------------- recommendations


def within_delay(early_ms: float | None, delay: object) -> float | None:
    """A design's early-delivery bound, at most the longest delay of ``delay`` (a
    DelaySpec): no message is handed out before it was published, whatever the tick
    (``--tick 1d`` with 1 h delays delivers up to 1 h early, not 42.6 h). O(1)."""
    if early_ms is None or delay is None:
        return early_ms
    return min(early_ms, delay_forms.support_max(delay))  # type: ignore[arg-type]  # delay is a DelaySpec when not None (typed object by its callers)


def candidate_ticks(w: PlanWorkload) -> list[int]:
    """:data:`TICKS_MS` with the release's default tick and the workload's, those that can
    deliver earlier than the longest delay left out (such a tick hands every message out as it
    arrives). O(1)."""
    ticks = {*TICKS_MS, int(w.defaults.tick_ms), int(w.values["tick"])}
    longest = delay_forms.support_max(w.values["delay"])
    name = w.defaults.delayed_design or "triple-heap"
    whole = whole_bucket_due(w, name)
    early = {t: precision.early_ms(name, t, precision_bits_for_tick(t), whole) for t in ticks}
    # a design whose early delivery the planner does not know (None) keeps every tick
    useful = [t for t, e in early.items() if e is None or e < longest]
    return sorted(useful or [min(ticks)])


def recommend_tick(
    w: PlanWorkload, budget_bytes: int | None, max_early_ms: float | None, seed: int = 0
) -> Choice:
    """The tick of the release's delayed design that fits ``budget_bytes`` per broker with the
    least early delivery, or meets ``max_early_ms`` with the least memory (:func:`_choose`);
    every candidate tick in the table."""
    name = _count_sized(w, "delayed")
    design = CATALOG[name]
    per_broker = _multipliers(w, per_consumer=False)[2]
    table = []
    layout, shape = release_layout(w), release_shape(w, name)
    for tick in candidate_ticks(w):
        stream = delayed_stream(w, tick, name)
        counts, _ = fast_counts(stream, seed, layout)
        size = design.size_from_counts(counts, shape, layout)
        total = (size_bytes(size) + values_views(w, name, size, layout)) * per_broker
        table.append(
            {
                "tick_ms": tick,
                "bucket_ms": 1 << stream.bits,
                "early_ms": precision.early_ms(name, tick, stream.bits, whole_bucket_due(w, name)),
                "per_broker_bytes": total,
                "wakeups_per_s": 1000 / tick,
            }
        )
    choice = _choose(DELAYED.name, name, "tick", "tick_ms", table, budget_bytes, max_early_ms,
                     "per broker", w.defaults.tick_ms)  # fmt: skip
    if choice.value is None and budget_bytes is not None:
        choice.reason += delayed_alternatives(w, budget_bytes, table, seed)
    return choice


def delayed_alternatives(w: PlanWorkload, budget: int, table: list[dict], seed: int) -> str:
    """What would fit a budget no tick meets: the triple heap (4.0.6+), more brokers."""
    out = []
    coarsest = min(row["per_broker_bytes"] for row in table)
    if w.defaults.delayed_design != "triple-heap":
        heap, _ = delayed_rows(w.with_values(), seed=seed)
        row = next((r for r in heap if r.design == "triple-heap"), None)
        if row is not None and row.per_broker is not None and row.per_broker <= budget:
            out.append(f"the triple heap (4.0.6+ runs it) needs {format_bytes(row.per_broker)}")
    brokers = math.ceil(coarsest / budget) if budget else 0
    if brokers > 1:
        out.append(
            f"spreading these topics' partitions over {brokers} brokers fits the coarsest tick"
        )
    return "; " + "; ".join(out) if out else ""


def recommend_nack_bits(
    w: PlanWorkload, budget_bytes: int | None, max_early_ms: float | None, seed: int = 0
) -> Choice:
    """The negativeAckPrecisionBitCnt of the release's nack design, as :func:`recommend_tick`,
    against the nack trackers of one topic (all its consumers)."""
    name = _count_sized(w, "nack")
    if not w.defaults.has_nack_precision:
        raise UsageError(
            f"--budget/--max-early tune negativeAckPrecisionBitCnt, which Pulsar "
            f"{w.defaults.version} does not have (PIP-393, from 4.0.2)"
        )
    design = CATALOG[name]
    per_topic = _multipliers(w, per_consumer=True)[1]
    table = []
    layout, shape = release_layout(w), release_shape(w, name)
    longest = delay_forms.support_max(nack_delay(w))
    for bits in [b for b in NACK_BITS if (1 << b) - 1 < longest] or [NACK_BITS[0]]:
        counts, _ = fast_counts(nack_stream(w, bits), seed, layout)
        total = size_bytes(design.size_from_counts(counts, shape, layout)) * per_topic
        table.append(
            {
                "nack_precision_bits": bits,
                "bucket_ms": 1 << bits,
                "early_ms": precision.early_ms(name, 0, bits),
                "per_topic_bytes": total,
                "wakeups_per_s": 1000 / (1 << bits),
            }
        )
    return _choose(NACK.name, name, "nack_precision_bits", "nack_precision_bits", table,
                   budget_bytes, max_early_ms, "per topic", w.defaults.nack_precision_bits)  # fmt: skip


def about_ms(ms: float) -> str:
    """A duration for prose (:func:`~trackerlab.workloads.units.about_duration_ms`)."""
    return about_duration_ms(ms)


def _choose(tracker, design, setting, key, table, budget, max_early, scope, default) -> Choice:
    """The best row of ``table``: within ``budget`` the least early delivery, or meeting
    ``max_early`` the least memory (within :data:`MEMORY_TIE`); ties go to the release's
    ``default`` setting, then to fewer timer wake-ups. The reason states the budget, the
    memory and the early delivery. O(rows)."""
    memory_key = next(k for k in table[0] if k.endswith("_bytes"))
    fits = table
    if budget is not None:
        fits = [row for row in table if row[memory_key] <= budget]
        if not fits:
            smallest = min(table, key=lambda row: row[memory_key])
            return Choice(tracker, design, setting, None,
                          f"nothing fits --budget {format_bytes(budget)}: the coarsest setting "
                          f"needs {format_bytes(smallest[memory_key])} {scope}", table)  # fmt: skip
    if max_early is not None:
        fits = [row for row in fits if row["early_ms"] is not None and row["early_ms"] <= max_early]
        if not fits:
            return Choice(tracker, design, setting, None,
                          f"no setting meets both the budget and an early delivery of at most "
                          f"{max_early:g} ms", table)  # fmt: skip
        least = min(row[memory_key] for row in fits)
        fits = [row for row in fits if row[memory_key] <= least * (1 + MEMORY_TIE)]
    else:
        least_early = min(row["early_ms"] or 0 for row in fits)
        fits = [row for row in fits if (row["early_ms"] or 0) == least_early]
    best = min(fits, key=lambda row: (row[key] != default, row["wakeups_per_s"]))
    early = about_ms(best["early_ms"] or 0)
    memory = f"{format_bytes(best[memory_key])} {scope}"
    if max_early is not None:
        reason = f"least memory delivering at most {format_duration_ms(max_early)} early: {memory}, up to {early} early"
    elif budget is not None:
        reason = (
            f"least early delivery within {format_bytes(budget)}: {memory}, up to {early} early"
        )
    else:
        reason = f"the current default: {memory}, up to {early} early"
    return Choice(tracker, design, setting, int(best[key]), reason, table)


# --------------------------------------------------------------------------- the plan


def plan(
    w: PlanWorkload,
    *,
    exact: bool = False,
    budget_bytes: int | None = None,
    max_early_ms: float | None = None,
    seed: int = 0,
    designs: tuple[str, ...] | None = None,
    master: str | None = None,
) -> Plan:
    """Size every tracker the workload exercises; recommend settings when asked; ``designs``
    (catalog names) keeps only those rows and the release's own."""
    if designs is not None:
        plannable = {
            *planned_designs(DELAYED),
            "pip195-buckets",
            *planned_designs(NACK),
            *CATALOG.names(tracker=PENDING_ACKS),
        }
        for name in designs:
            CATALOG.check(name)
            if name not in plannable:
                raise UsageError(
                    f"--designs: plan does not size {name} (it sizes "
                    f"{', '.join(sorted(plannable))}); `trackerlab size {name}` or "
                    "`trackerlab simulate delayed` do"
                )
    if designs is not None and "pip195-buckets" in designs and w.defaults.bucket_design is None:
        raise UsageError(
            f"--designs pip195-buckets: Pulsar {w.defaults.version} has no bucket tracker "
            "(PIP-195 ships from 3.0)"
        )
    rows: list[PlanRow] = []
    snapshot: dict[str, float] = {}
    v = w.values
    if v["delayed"] > 0:
        delayed, snapshot["delayed"] = delayed_rows(w, exact, seed, master)
        rows += delayed
    if v["nacked"] > 0:
        nacks, snapshot["nack"] = nack_rows(w, exact, seed, master)
        rows += nacks
    rows += pending_ack_rows(w)
    rows += receiver_queue_rows(w)
    if designs is not None:
        rows = [r for r in rows if r.default or r.design in designs]
    choices = []
    if budget_bytes is not None or max_early_ms is not None:
        if v["delayed"] > 0:
            choices.append(recommend_tick(w, budget_bytes, max_early_ms, seed))
        elif v["nacked"] > 0:
            choices.append(recommend_nack_bits(w, budget_bytes, max_early_ms, seed))
        else:
            raise UsageError(
                "--budget and --max-early tune the delayed index or the nack "
                "tracker: give --delayed or --nacked above 0"
            )
    warnings = [text for text in (unacked_warning(w), lookahead_note(w)) if text]
    return Plan(w, rows, choices, exact, snapshot, warnings)
