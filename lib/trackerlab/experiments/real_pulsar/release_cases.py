"""Pulsar's own structures against trackerlab's models, release by release.

For each release build (:data:`~trackerlab.jvmcheck.pulsar.lines.BUILDS`) and each tracker,
the release table (:mod:`trackerlab.models.pulsar_releases`) names the catalog design the release runs;
:func:`~trackerlab.catalog.versioned.size_for_version` sizes it for a workload, and the
harness JVM builds the release's own class from the same messages through its own method:

========================  =================================================================
tracker (table key)       real class and method (harness kind)
========================  =================================================================
``delayed``               ``InMemoryDelayedDeliveryTracker.addMessage`` (``delayed-tracker``),
                          rooted at ``priorityQueue`` or ``delayedMessageMap``
``nack``                  ``NegativeAcksTracker.add(MessageId)`` (``nack-tracker``), rooted
                          at ``nackedMessages`` (4.2+: and ``nackedMessageIds``)
``delayed_bucket``        ``BucketDelayedDeliveryTracker.addMessage`` (PIP-195, 3.0+,
                          ``bucket-tracker``), rooted at the mutable bucket's queue and
                          bitmaps and the shared queue
``pending_acks``          ``PendingAcksMap.addPendingAckIfAllowed`` (4.0+,
                          ``pending-acks-map``), rooted at ``pendingAcks``; before 4.0
                          ``Consumer.pendingAcks`` as Consumer builds it
                          (``consumer-pending-acks``)
``triple_queue``          ``TripleLongPriorityQueue.add`` (pulsar-common, every release; the
                          queue of the heap tracker and of PIP-195)
========================  =================================================================

A case compares JOL's deep size (with Instrumentation) with the model's ``jvm_bytes``, the
direct bytes with ``jvm_direct_bytes``, and the broker's metric ``getBufferMemoryUsage()``
with the modelled metric (:mod:`trackerlab.models.delayed.buffer_metric`). Byte-exact is the
verdict ``exact``; anything else is ``differs`` and fails ``trackerlab jvm-check --pulsar``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from trackerlab.catalog.designs import CATALOG
from trackerlab.catalog.versioned import size_for_version
from trackerlab.jvmcheck.probe_cases import chunks_in_insertion_order, select_cases
from trackerlab.jvmcheck.pulsar.harness_runner import HarnessCase, Measured
from trackerlab.jvmcheck.pulsar.lines import PulsarBuild
from trackerlab.models import pulsar_releases
from trackerlab.models.delayed import buffer_metric as bm
from trackerlab.models.delayed.time_bucket_runs import BucketRun, build_index
from trackerlab.models.pending_acks.layouts import Dataset
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.request import SizeRequest, SizeResult
from trackerlab.sizing.roaring_serialized import roaring64_serialized_bytes
from trackerlab.workloads.stream import Workload, last_message_per_entry

__all__ = ["CASES", "Comparison", "RealCase", "compare", "harness_cases", "select"]


@dataclass(frozen=True)
class RealCase:
    """One workload for one tracker: its size request and the rows the harness adds."""

    name: str
    tracker: str  # releases table key, "triple_queue" or "roaring64"
    description: str
    request: SizeRequest
    #: the values a ``roaring64`` case adds, in order
    values: Callable[[], np.ndarray] | None = None

    def applies_to(self, build: PulsarBuild) -> bool:
        """Whether this release build has the case's class (broker classes need the broker)."""
        broker = ("delayed", "delayed_bucket", "pending_acks")
        return not (build.client_only and self.tracker in broker)


def _delayed(name: str, description: str, messages: int, rate: float, delay: str,
             per_ledger: int = 50_000) -> RealCase:  # fmt: skip
    w = Workload.from_options(messages, rate, delay=delay, entries_per_ledger=per_ledger)
    return RealCase(name, "delayed", description, SizeRequest(w, tick_ms=1000))


def _bucket(case: RealCase) -> RealCase:
    """The same messages in PIP-195's tracker (the opt-in factory)."""
    description = case.description + " (PIP-195 tracker)"
    name = case.name.replace("delayed-", "pip195-")
    return RealCase(name, "delayed_bucket", description, case.request)


def _nack(name: str, description: str, messages: int, rate: float, pattern: str) -> RealCase:
    w = Workload.from_options(messages, rate, delay="fixed:60s", pattern=pattern)
    return RealCase(name, "nack", description, SizeRequest(w, trim_bits=8))


def _pending(name: str, description: str, entries: int, ledgers: int) -> RealCase:
    w = Workload(messages=entries)
    return RealCase(name, "pending_acks", description, SizeRequest(w, ledgers=ledgers))


def _roaring64(name: str, description: str, make: Callable[[], np.ndarray]) -> RealCase:
    return RealCase(name, "roaring64", description, SizeRequest(Workload(messages=0)), make)


def _random_high_keys() -> np.ndarray:
    keys = np.random.default_rng(23).integers(0, 1 << 48, 300, dtype=np.int64)
    return keys << 16 >> 16 << 16 | 7  # 48-bit high keys (signed shifts keep them in int64)


def _dense_high_keys() -> np.ndarray:
    return np.repeat(np.arange(600, dtype=np.int64) << 16, 3) + np.tile([1, 2, 3], 600)


def _clustered_high_keys() -> np.ndarray:
    i = np.arange(2_000, dtype=np.int64)
    return ((i % 40) << 40) | ((i // 40) << 16) | (i & 0xFF)


#: Delays are longer than the 1 s tick, so every message is tracked by model and class alike.
_DELAYED = (
    _delayed("delayed-spread-1k", "1,000 messages at 1/ms, delays uniform 2 s – 1 h",
             1_000, 1.0, "uniform:2s:1h"),
    _delayed("delayed-fixed-20k", "20,000 messages at 10/ms, one fixed 10 min delay",
             20_000, 10.0, "fixed:10min"),
    _delayed("delayed-spread-20k", "20,000 messages at 2/ms over 3 ledgers of 8,000 entries, "
             "delays uniform 2 s – 1 h", 20_000, 2.0, "uniform:2s:1h", per_ledger=8_000),
)  # fmt: skip
CASES: tuple[RealCase, ...] = (
    *_DELAYED,
    *(_bucket(c) for c in _DELAYED),
    _nack("nack-1k", "1,000 nacks at 1/ms, 60 s redelivery delay", 1_000, 1.0, "all"),
    _nack("nack-sparse-20k", "20,000 messages at 5/ms, 10% nacked", 20_000, 5.0, "fraction:0.1"),
    _pending("pending-acks-1k", "1,000 pending acks in 1 ledger", 1_000, 1),
    _pending("pending-acks-20k", "20,000 pending acks over 4 ledgers", 20_000, 4),
    _roaring64("roaring64-sparse-300", "Roaring64Bitmap: 300 random 48-bit high keys (deep ART, "
               "split prefixes)", _random_high_keys),
    _roaring64("roaring64-dense-600", "Roaring64Bitmap: high keys 0..599, 3 values each (a "
               "Node256 under a 4-byte prefix)", _dense_high_keys),
    _roaring64("roaring64-clustered-2k", "Roaring64Bitmap: 40 clusters of 50 high keys (two "
               "inner levels)", _clustered_high_keys),
    RealCase("triple-queue-100k", "triple_queue", "100,000 triples (deliverAt, ledger, entry) "
             "added in publish order", SizeRequest(Workload.from_options(
                 100_000, 5.0, delay="uniform:2s:1h"))),
)  # fmt: skip


def select(patterns: Sequence[str]) -> tuple[RealCase, ...]:
    """Cases whose name matches a glob of ``patterns`` (all when empty); ValueError names
    the first pattern that matches none (:func:`~trackerlab.jvmcheck.probe_cases.select_cases`)."""
    return tuple(select_cases(patterns, CASES))


# --------------------------------------------------------------------------- rows and models


def _delayed_rows(w: Workload) -> np.ndarray:
    """``(deliverAt, ledgerId, entryId)`` per tracked entry, in publish order."""
    ledger, entry, _, deliver_at = last_message_per_entry(w)
    return np.column_stack([deliver_at, ledger, entry])


def _pending_rows(case: RealCase, non_negative: bool) -> np.ndarray:
    """``(ledgerId, entryId, remaining, stickyKeyHash)`` of the seed's dataset; the pair map
    takes no negative value (its hash is masked to 31 bits: a value's bits never change its
    size)."""
    w = case.request.workload
    ledgers, entries, remaining, hashes = Dataset(
        w.messages, case.request.ledgers, w.start_ledger
    ).arrays()
    if non_negative:
        hashes = hashes & 0x7FFF_FFFF
    return np.column_stack([ledgers, entries, remaining, hashes])


@dataclass(frozen=True)
class Planned:
    """A case at one release: what the model says and what the harness builds."""

    case: RealCase
    release: pulsar_releases.Release
    design: str
    shape: str | None
    variant: str | None
    model: SizeResult
    model_metric_bytes: int | None
    harness: HarnessCase


def plan(case: RealCase, build: PulsarBuild) -> Planned | None:
    """The model's size and the harness case for ``case`` at ``build`` (None: the release does
    not have the structure, or the table's design cannot be built from messages)."""
    release = pulsar_releases.resolve(build.version)
    if case.tracker == "roaring64":
        assert case.values is not None  # every roaring64 case carries its values
        values = case.values()
        layout = replace(case.request.jvm_layout, roaring_art=release.roaring_art)
        chunks = chunks_in_insertion_order(values)
        model: SizeResult = SizeResult(
            "roaring64",
            len(np.unique(values)),
            jvm_bytes=jr.roaring64_bitmap_bytes(chunks, layout=layout),
        )
        harness = HarnessCase(case.name, "roaring64", values.reshape(-1, 1))
        art = f"{release.default('roaringbitmap')} (ART {layout.roaring_art})"
        metric: int | None = roaring64_serialized_bytes(
            [c.key for c in chunks], [c.cardinality for c in chunks]
        )
        return Planned(case, release, "Roaring64Bitmap", None, art, model, metric, harness)
    if case.tracker == "triple_queue":
        model = CATALOG["triple-heap"].build_size(case.request)
        rows = _delayed_rows(case.request.workload)
        harness = HarnessCase(case.name, "triple-queue", rows)
        metric = int(model.details["bytes_capacity"])
        return Planned(case, release, "triple-heap", None, "v2", model, metric, harness)
    choice, versioned = size_for_version(case.tracker, release, case.request)
    if versioned is None or choice.design is None:
        return None
    model = versioned
    metric = None
    if case.tracker == "delayed_bucket":
        rows = _delayed_rows(case.request.workload)
        harness = HarnessCase(case.name, "bucket-tracker", rows,
                              {"tick_ms": case.request.tick_ms, "clock_ms": 0})  # fmt: skip
        metric = int(model.details["bytes_capacity"])
    elif case.tracker == "delayed":
        rows = _delayed_rows(case.request.workload)
        harness = HarnessCase(case.name, "delayed-tracker", rows,
                              {"tick_ms": case.request.tick_ms, "clock_ms": 0})  # fmt: skip
        metric = _delayed_metric(choice.design, case.request, model)
    elif case.tracker == "nack":
        rows = _delayed_rows(case.request.workload)
        harness = HarnessCase(case.name, "nack-tracker", rows,
                              {"precision_bits": case.request.trim_bits})  # fmt: skip
    else:
        kind = "pending-acks-map" if choice.design != "pending-acks-pair-hash" else (
            "consumer-pending-acks")  # fmt: skip
        rows = _pending_rows(case, non_negative=kind == "consumer-pending-acks")
        harness = HarnessCase(case.name, kind, rows)
    return Planned(case, release, choice.design, choice.shape, choice.variant, model, metric,
                   harness)  # fmt: skip


def _delayed_metric(design: str, request: SizeRequest, model: SizeResult) -> int | None:
    """The modelled ``getBufferMemoryUsage()`` of the delayed tracker (buffer_metric forms)."""
    if design == "triple-heap":
        return int(model.details["bytes_capacity"])
    if design == "time-buckets":
        index = build_index(BucketRun.delayed(request.workload, request.tick_ms))
        return bm.roaring64_long_size(index.content(runs=False))
    return None


def harness_cases(planned: Sequence[Planned]) -> list[HarnessCase]:
    return [p.harness for p in planned]


# --------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Comparison:
    """One case at one release: real bytes, model bytes and their difference."""

    version: str
    case: str
    tracker: str
    design: str
    root: str
    entries: int
    real_heap_bytes: int | None
    model_heap_bytes: int | None
    real_direct_bytes: int | None  # the buffers' capacity (what the queue asked for)
    model_direct_bytes: int | None
    direct_reserved_bytes: int | None  # the pool's size classes of those buffers
    direct_pool_delta_bytes: int | None  # the pool's used direct memory, before and after
    real_metric_bytes: int | None
    model_metric_bytes: int | None
    heap_after_metric_bytes: int | None  # the structure once getBufferMemoryUsage() has run
    model_after_metric_bytes: int | None
    classes: str
    error: str | None = None

    @property
    def heap_diff_bytes(self) -> int | None:
        if self.real_heap_bytes is None or self.model_heap_bytes is None:
            return None
        return self.model_heap_bytes - self.real_heap_bytes

    @property
    def exact(self) -> bool:
        """Byte-exact heap, direct and metric wherever both sides have a figure."""
        if self.error is not None:
            return False
        pairs = (
            (self.real_heap_bytes, self.model_heap_bytes),
            (self.real_direct_bytes, self.model_direct_bytes),
            (self.real_metric_bytes, self.model_metric_bytes),
            (self.heap_after_metric_bytes, self.model_after_metric_bytes),
        )
        return all(r == m for r, m in pairs if r is not None and m is not None)

    @property
    def verdict(self) -> str:
        return "error" if self.error else ("exact" if self.exact else "differs")


def compare(p: Planned, m: Measured) -> Comparison:
    design = p.design + (f" ({p.shape})" if p.shape else "") + (
        f" {p.variant}" if p.variant else "")  # fmt: skip
    entries_model = p.model.entries
    error = m.error
    if error is None and m.added != entries_model:
        error = f"the class took {m.added:,} entries, the model {entries_model:,}"
    return Comparison(
        version=p.release.version,
        case=p.case.name,
        tracker=p.case.tracker,
        design=design,
        root=m.root,
        entries=entries_model,
        real_heap_bytes=m.heap_bytes,
        model_heap_bytes=p.model.jvm_bytes,
        real_direct_bytes=m.direct_capacity_bytes,
        model_direct_bytes=p.model.jvm_direct_bytes,
        direct_reserved_bytes=m.direct_reserved_bytes,
        direct_pool_delta_bytes=m.direct_pool_delta_bytes,
        real_metric_bytes=m.buffer_memory_usage_bytes,
        model_metric_bytes=p.model_metric_bytes,
        heap_after_metric_bytes=m.heap_after_metric_bytes,
        model_after_metric_bytes=_after_metric(p.model),
        classes=m.classes,
        error=error,
    )


def _after_metric(model: SizeResult) -> int | None:
    """The model's heap once the metric has streamed the index (its views cached)."""
    if model.jvm_bytes is None:
        return None
    return model.jvm_bytes + int(model.details.get("metric_views_jvm_bytes", 0))


def planned_cases(cases: Sequence[RealCase], build: PulsarBuild) -> list[Planned]:
    out = []
    for case in cases:
        if case.applies_to(build):
            p = plan(case, build)
            if p is not None:
                out.append(p)
    return out


def run_build(
    build: PulsarBuild,
    cases: Sequence[RealCase],
    runner: Callable[[list[HarnessCase]], Sequence[Measured]],
) -> list[Comparison]:
    """Plan ``cases`` at ``build``, measure them with ``runner`` (one JVM) and compare."""
    planned = planned_cases(cases, build)
    if not planned:
        return []
    measured = {m.name: m for m in runner(harness_cases(planned))}
    return [compare(p, measured.get(p.case.name, Measured(p.case.name, error="not measured")))
            for p in planned]  # fmt: skip
