"""What a catalog design is: the Java it follows and the capabilities its model offers.

A model module that implements a tracker design describes it with a :class:`Design`: the
Pulsar class, file, PRs and release range it follows, where its memory lives, and the
functions that size it. :mod:`trackerlab.catalog` registers each one under a single stable
name. The capabilities:

- ``build``: an exact build from messages (:class:`~trackerlab.sizing.request.SizeRequest` in,
  :class:`~trackerlab.sizing.request.SizeResult` out): ``trackerlab size``, ``--exact``;
- ``from_counts``: a count-only size from the aggregates a reducer pass collects
  (:class:`PointCounts`): Spark sweeps, at any scale;
- ``simulate``: a time-stepped aggregated run over days
  (:mod:`trackerlab.models.delayed.aggregated`): ``trackerlab simulate delayed``;
- ``discrete_events``: a message-level event simulation of a client
  (:mod:`trackerlab.models.receiver_queue.simulator`): ``trackerlab simulate receiver-queue``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trackerlab.models.time_buckets.aggregates import IndexAggregates
    from trackerlab.sizing.jvm import JvmLayout
    from trackerlab.sizing.request import SizeRequest, SizeResult


@dataclass(frozen=True)
class Tracker:
    """A Pulsar component that tracks messages: where it runs and what one instance serves."""

    name: str
    side: str  # "broker" or "client"
    per: str  # what one instance serves


NACK = Tracker("negative-ack tracker", "client", "consumer (one per partition)")
DELAYED = Tracker("delayed-delivery index", "broker", "subscription (Shared or Key_Shared)")
PENDING_ACKS = Tracker("pending acks", "broker", "consumer")
RECEIVER_QUEUE = Tracker("receiver queue", "client", "consumer (one per partition)")
TRACKERS = (NACK, DELAYED, PENDING_ACKS, RECEIVER_QUEUE)


@dataclass(frozen=True)
class PointCounts:
    """A workload reduced to counts (:mod:`trackerlab.models.time_buckets.reducer`).

    ``totals`` holds the reducer's sums: ``selected`` messages, ``index_messages`` (those an
    index tracks), ``heap_entries`` (distinct tracked entries: one heap triple or pair-map key
    each), ``entries`` (bucket memberships), ``bitmaps``, ``chunks``, ``runs`` and the container
    counts per variant. ``aggregates`` sizes the time-bucket maps. ``tick_ms`` is the delayed
    tracker's tick (None on a nack point, whose precision is ``trim_bits``).
    """

    totals: Mapping[str, int]
    aggregates: IndexAggregates
    rate_per_ms: float
    trim_bits: int
    tick_ms: int | None


Build = Callable[["SizeRequest"], "SizeResult"]
FromCounts = Callable[[PointCounts, "str | None", "JvmLayout"], "SizeResult"]
#: ``(Topic, Retention, Settings) -> DesignRun`` of :mod:`trackerlab.models.delayed.aggregated`
Simulate = Callable[..., Any]


@dataclass(frozen=True)
class Design:
    """One tracker design: the Java it follows and how trackerlab sizes it."""

    tracker: Tracker
    summary: str
    java: str  # the Java declaration
    source: str  # file in apache/pulsar (or the proposal's own module)
    prs: tuple[str, ...]
    releases: str  # release lines that run it, or "proposal" / "not merged"
    memory: str  # "heap", "direct" or "heap + direct"
    options: tuple[str, ...] = ()  # SizeRequest options the design reads
    build: Build | None = None
    from_counts: FromCounts | None = None
    simulate: Simulate | None = None
    discrete_events: Callable[..., object] | None = None
    #: JVM declarations the design can be sized as (the first is the default)
    shapes: tuple[str, ...] = ()
    columns: tuple[str, ...] = ("python", "jvm", "theory")
    #: a trackerlab proposal, not something Pulsar ships
    proposal: bool = False
    #: its memory follows the most entries it has held: removals give no capacity back
    keeps_capacity: bool = False

    @property
    def capabilities(self) -> tuple[str, ...]:
        """What the model can do, in words (``trackerlab designs``)."""
        found = [
            ("exact build from messages", self.build),
            ("count-only from aggregates", self.from_counts),
            ("time-stepped simulation", self.simulate),
            ("discrete-event simulation", self.discrete_events),
        ]
        return tuple(text for text, fn in found if fn is not None)

    def build_size(self, request: SizeRequest) -> SizeResult:
        """Call ``build``; a design without one raises TypeError, as calling None did."""
        if self.build is None:
            raise TypeError(f"{self.summary!r} has no exact build (Design.build is None)")
        return self.build(request)

    def size_from_counts(
        self, counts: PointCounts, shape: str | None, layout: JvmLayout
    ) -> SizeResult:
        """Call ``from_counts``; a design without one raises TypeError, as calling None did."""
        if self.from_counts is None:
            raise TypeError(f"{self.summary!r} has no count-only size (Design.from_counts is None)")
        return self.from_counts(counts, shape, layout)
