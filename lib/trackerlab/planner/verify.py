"""``plan --verify``: the planned steady state built in Pulsar's own tracker classes.

For the release the plan assumes, the resolved build of its line
(:data:`~trackerlab.jvmcheck.pulsar.lines.BUILDS`) runs the real-class harness of
``trackerlab jvm-check --pulsar``: the entries the message-level snapshot holds
(:func:`snapshot_entries`, the same rules as ``plan --exact``) are added through the class's
own method (``InMemoryDelayedDeliveryTracker.addMessage`` with the clock at the snapshot
time, ``NegativeAcksTracker.add``, ``PendingAcksMap.addPendingAckIfAllowed``) and measured
with JOL. Each tracker of one unit (subscription and partition, or consumer) prints its real
bytes beside the planned ones, fast and exact. Up to :data:`MAX_ENTRIES` entries per tracker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from trackerlab.catalog import CATALOG
from trackerlab.core.errors import UsageError
from trackerlab.models import pulsar_releases
from trackerlab.models.pending_acks.layouts import Dataset
from trackerlab.models.time_buckets.time_bucket_index import trim_lower_bits
from trackerlab.planner.memory_plan import (
    Plan,
    counts_at,
    delayed_stream,
    nack_ids_bytes,
    nack_stream,
    release_layout,
    release_shape,
    size_bytes,
    unacked_entries,
    values_views,
)
from trackerlab.planner.snapshot import exact_counts
from trackerlab.planner.streams import TrackedStream
from trackerlab.planner.workload import PlanWorkload
from trackerlab.workloads.stream import DEFAULT_START_MS

if TYPE_CHECKING:
    from trackerlab.jvmcheck.pulsar.harness_runner import HarnessCase, Measured
    from trackerlab.sizing.jvm import JvmLayout

#: Entries one tracker may hold for ``--verify`` (the harness adds them one call at a time).
MAX_ENTRIES = 2_000_000


@dataclass(frozen=True)
class Verified:
    """One tracker of one unit: real bytes of Pulsar's class against the plan's."""

    tracker: str
    design: str
    entries: int
    real_bytes: int
    planned_bytes: int  # the plan's row (fast, or exact with --exact)
    exact_bytes: int  # the message-level snapshot sized by the model

    @property
    def diff(self) -> float:
        return (self.planned_bytes - self.real_bytes) / self.real_bytes if self.real_bytes else 0.0


def build_for(w: PlanWorkload):
    """The resolved build of the plan's release line; UsageError naming the known ones."""
    from trackerlab.jvmcheck.pulsar.lines import BUILDS

    line = pulsar_releases.resolve(w.defaults.version.split(" ")[0]).line
    for build in reversed(BUILDS):
        if pulsar_releases.resolve(build.version).line == line:
            return build
    known = ", ".join(sorted({pulsar_releases.resolve(b.version).line for b in BUILDS}))
    raise UsageError(
        f"--verify: no release of line {line} resolves from Maven Central here "
        f"(lines with a build: {known}); pick one with --pulsar-version"
    )


def snapshot_entries(
    stream: TrackedStream, seed: int, heap: bool, t_ms: float | None = None
) -> tuple[np.ndarray, int]:
    """``(deliverAt, ledgerId, entryId)`` rows the tracker holds at the snapshot ``t_ms``
    (default: the steady one), in publish order, and the snapshot time (epoch ms): admitted
    entries published by then, not handed out (a heap: ``deliverAt > now + tick``; buckets: key
    past the due one) and, for nacks, already received. The rules of ``plan --exact``.
    O(entries)."""
    t = stream.steady_time_ms() if t_ms is None else t_ms
    workload, _ = stream.workload(t, seed)
    now = DEFAULT_START_MS + t
    due_key = int(trim_lower_bits(np.int64(math.floor(now + stream.due_after_ms)), stream.bits))
    parts = []
    held = 0
    for chunk in workload.chunks():
        keep = (chunk.delay_ms > stream.admit_after_ms) & (chunk.publish_ms <= now)
        if stream.visible_ms is not None:
            keep &= chunk.deliver_at <= now + stream.visible_ms
        if heap:
            keep &= chunk.deliver_at > now + stream.admit_after_ms
        else:
            keep &= trim_lower_bits(chunk.deliver_at, stream.bits) > due_key
        held += int(keep.sum())
        if held > MAX_ENTRIES:
            raise UsageError(
                f"--verify: the tracker holds more than {MAX_ENTRIES:,} entries at steady state; "
                "verify a smaller workload (fewer topics do not change a unit: a lower rate does)"
            )
        parts.append(
            np.column_stack([chunk.deliver_at[keep], chunk.ledger[keep], chunk.entry[keep]])
        )
    rows = np.concatenate(parts) if parts else np.zeros((0, 3), dtype=np.int64)
    return rows, math.floor(now)


#: One tracker's cases: (tracker, design, case names, entries held, exact-model bytes,
#: planned bytes per snapshot; empty: the plan's row).
_Meta = tuple[str, str, list[str], list[int], list[int], list[int]]


def _snapshot_case(
    w: PlanWorkload,
    p: Plan,
    stream: TrackedStream,
    design: str,
    delayed: bool,
    seed: int,
    layout: JvmLayout,
    t: float | None,
    name: str,
) -> tuple[HarnessCase, int, int, int | None]:
    """One snapshot of a delayed or nack stream as a harness case, with its exact-model bytes
    and (delayed only) the plan's own estimate at that time."""
    from trackerlab.jvmcheck.pulsar import harness_runner

    v = w.values
    rows, now = snapshot_entries(stream, seed, design == "triple-heap", t)
    if delayed:
        # a live tracker added each entry when it was published; the harness adds
        # them all at one clock, which must admit every held entry: under 4.2.4's
        # whole-bucket rule a held entry's deliverAt can be within 2^bits - 1 ms of
        # now + tick, which addMessage refuses at ``now`` (deliverAt <= now + tick)
        clock = now - math.ceil(stream.admit_after_ms - stream.due_after_ms)
        params = {"tick_ms": int(v["tick"]), "clock_ms": clock}
        kind = "delayed-tracker"
    else:
        params = {"precision_bits": int(v["nack_precision_bits"])}
        kind = "nack-tracker"
    counts, _ = exact_counts(stream, seed, layout=layout, t_ms=t)
    size = CATALOG[design].size_from_counts(counts, release_shape(w, design), layout)
    exact = int((size.jvm_bytes or 0) + (size.jvm_direct_bytes or 0))
    exact += values_views(w, design, size, layout)
    planned = None
    if not delayed:
        exact += nack_ids_bytes(w, design, layout)
    else:
        # the row is the mean over phase snapshots (plan.delayed_rows); the one built
        # here is checked against the plan's own estimate at its time
        fast, _ = counts_at(stream, p.exact, seed, None, layout, t)
        one = CATALOG[design].size_from_counts(fast, release_shape(w, design), layout)
        planned = size_bytes(one) + values_views(w, design, one, layout)
    return harness_runner.HarnessCase(name, kind, rows, params), len(rows), exact, planned


def _tracker_cases(
    w: PlanWorkload, p: Plan, seed: int, layout: JvmLayout, client_only: bool
) -> tuple[list[HarnessCase], list[_Meta]]:
    """Harness cases of the delayed-delivery index and the negative-ack tracker: one per
    snapshot (the nack row is the mean over its phase snapshots)."""
    cases, meta = [], []
    v = w.values
    for tracker, design, make in (
        ("delayed-delivery index", w.defaults.delayed_design, delayed_stream),
        ("negative-ack tracker", w.defaults.nack_design, nack_stream),
    ):
        share = v["delayed"] if make is delayed_stream else v["nacked"]
        if not share or design is None or CATALOG[design].from_counts is None:
            continue
        if client_only and make is delayed_stream:
            continue
        delayed = make is delayed_stream
        stream = delayed_stream(w, design=design) if delayed else nack_stream(w)
        # the plan's nack row is the mean over its phase snapshots: each one is built
        times = stream.phase_times_ms() if make is nack_stream else [None]
        names, held, exacts, planned = [], [], [], []
        for j, t in enumerate(times):
            name = tracker if t is None else f"{tracker} #{j}"
            case, n, exact, one = _snapshot_case(
                w, p, stream, design, delayed, seed, layout, t, name
            )
            cases.append(case)
            names.append(name)
            held.append(n)
            exacts.append(exact)
            if one is not None:
                planned.append(one)
        meta.append((tracker, design, names, held, exacts, planned))
    return cases, meta


def _pending_acks_case(w: PlanWorkload, pending: str) -> tuple[HarnessCase, _Meta]:
    """The pending-acks map at its steady size (capped by max_unacked) as a harness case."""
    from trackerlab.jvmcheck.pulsar import harness_runner

    steady, _ = unacked_entries(w)
    cap = w.values["max_unacked"]
    limit = cap / w.messages_per_entry if cap else math.inf
    n = max(round(min(steady, limit)), 0)
    epl = w.entries_per_ledger
    ledgers = max(1, round(1 + (n - 1) / epl)) if n else 1
    arrays = Dataset(n, ledgers).arrays()
    kind = "pending-acks-map" if pending != "pending-acks-pair-hash" else "consumer-pending-acks"
    hashes = arrays[3] & 0x7FFF_FFFF if kind == "consumer-pending-acks" else arrays[3]
    case = harness_runner.HarnessCase("pending acks", kind, np.column_stack([*arrays[:3], hashes]))
    exact = Dataset(n, ledgers).build(pending).jvm_bytes() if n else 0
    return case, ("pending acks", pending, ["pending acks"], [n], [exact], [])


def _verified_rows(
    meta: list[_Meta], measured: dict[str, Measured], p: Plan, version: str
) -> list[Verified]:
    """One :class:`Verified` per tracker: the means over its snapshots of the real, planned
    and exact-model bytes; UsageError when the JVM failed to build one."""
    out = []
    for tracker, design, names, held, exacts, planned in meta:
        reals = []
        for name in names:
            m = measured[name]
            if m.error:
                raise UsageError(f"--verify: Pulsar {version}'s {tracker} failed: {m.error}")
            reals.append((m.heap_bytes or 0) + (m.direct_capacity_bytes or 0))
        row = next(r for r in p.rows if r.tracker == tracker and r.design == design)
        n = len(names)
        out.append(
            Verified(tracker, design, round(sum(held) / n), round(sum(reals) / n),
                     round(sum(planned) / n) if planned else row.steady_bytes,
                     round(sum(exacts) / n))
        )  # fmt: skip
    return out


def verify(w: PlanWorkload, p: Plan, seed: int = 0) -> tuple[str, list[Verified], str]:
    """Run the release's own classes on the plan's steady state; the build's version, one
    :class:`Verified` per tracker the release runs and the harness builds, and a note when
    another release's classes stand in (:func:`stand_in`)."""
    from trackerlab.jvmcheck.pulsar import harness_runner, maven

    build = build_for(w)
    classpath = maven.build(build.version, build.client_only)
    w, note = stand_in(w, build.version)
    layout = release_layout(w)
    cases, meta = _tracker_cases(w, p, seed, layout, build.client_only)
    pending = w.defaults.pending_acks_design
    if pending is not None and not build.client_only:
        case, one = _pending_acks_case(w, pending)
        cases.append(case)
        meta.append(one)
    if not cases:
        raise UsageError("--verify: the workload exercises no tracker the release's classes hold")
    measured = {m.name: m for m in harness_runner.run(classpath, cases).measured}
    return build.version, _verified_rows(meta, measured, p, build.version), note


#: Release facts that change what a tracker holds (``PulsarDefaults`` attributes).
STRUCTURE_FACTS = (
    "delayed_design", "delayed_shape", "delayed_variant", "nack_design", "nack_shape",
    "nack_variant", "pending_acks_design", "roaring_art",
)  # fmt: skip


def stand_in(w: PlanWorkload, version: str) -> tuple[PlanWorkload, str]:
    """The workload as the build ``version`` holds it, and a note, when the plan's release is
    not the build's and their structures differ (Central serves 4.0.1 alone of 4.0.1-4.0.5,
    whose inner maps changed in 4.0.4): the exact-model column then sizes the build's
    structures, so it checks the model against the classes that ran, while the planned
    column stays the plan's. O(1)."""
    from dataclasses import replace

    from trackerlab.planner.defaults import defaults_for

    built = defaults_for(version)
    differ = [f for f in STRUCTURE_FACTS if getattr(built, f) != getattr(w.defaults, f)]
    if not differ:
        return w, ""
    what = ", ".join(
        f"{f.replace('_', ' ')} {getattr(w.defaults, f)} -> {getattr(built, f)}" for f in differ
    )
    note = (
        f"  (Pulsar {w.defaults.version}'s own jars are not on Central: {version}'s classes "
        f"stand in, and they differ ({what}); the exact-model column sizes {version}'s "
        "structures, the planned column the plan's)"
    )
    return replace(w, defaults=built), note


def report(version: str, checked: list[Verified], note: str, exact: bool) -> str:
    """The terminal lines of ``--verify``."""
    planned = "planned (exact)" if exact else "planned (fast)"
    lines = [
        "",
        f"Verified in Pulsar {version}'s own classes (one unit each; JOL with Instrumentation, "
        "direct buffers at their capacity):",
        f"  {'tracker':<24} {'design':<22} {'entries':>9} {'real B':>13} {planned + ' B':>20} "
        f"{'diff':>7} {'exact model B':>14}",
    ]
    for c in checked:
        lines.append(
            f"  {c.tracker:<24} {c.design:<22} {c.entries:>9,} {c.real_bytes:>13,} "
            f"{c.planned_bytes:>20,} {100 * c.diff:>+6.2f}% {c.exact_bytes:>14,}"
        )
    if any(c.design in ("nack-hash-map", "nack-pair-map") for c in checked):
        lines.append(
            "  (the plan's nack map also holds the entries its timer scan, every third of the "
            "nack delay, has not reached yet; the snapshot holds those due by their time)"
        )
    if note:
        lines.append(note)
    return "\n".join(lines)
