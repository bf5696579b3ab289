"""The entry stream a tracker sees, in the terms the planner's sizing needs.

A tracker indexes *entries* (``(ledgerId, entryId)``), not messages. :class:`TrackedStream`
describes one tracker's input at steady state: the topic partition's entries arrive at
``entry_rate_per_ms`` and fill ledgers of ``entries_per_ledger`` entries (the rollover rule
of :mod:`trackerlab.workloads.ledger_rollover`); each entry is tracked independently with
probability ``share``, keyed by ``publish + delay`` with the delay drawn from ``delay``; the
key is floored to ``2^bits`` ms. ``admit_after_ms``: an entry is tracked only when its delay
exceeds it (the delayed tracker's ``addMessage`` refuses ``deliverAt <= now + tick``; 0 for
negative acks, which are always tracked). ``due_after_ms``: at time ``T`` a bucket whose key
is at most ``T + due_after_ms`` has been handed out (``now + tick`` for the delayed tracker,
variant a; ``now`` for PIP-393's timer). :meth:`TrackedStream.phase_times_ms` gives the
snapshot times whose mean is the tracker's time average (the nack rows' steady value).

:func:`workload` turns a stream into the :class:`~trackerlab.workloads.stream.Workload` of its
entries (one message per entry, a ``fraction`` pattern), which the message-level ``--exact``
path generates; the fast path never generates it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from trackerlab.workloads import delay_forms
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.stream import DEFAULT_START_MS, PatternSpec, Workload

#: First ledger id of every planned stream (ids only matter for Python int sizes).
START_LEDGER = 10_000
#: Snapshot times a time-averaged steady value is taken at (:meth:`TrackedStream.phase_times_ms`).
PHASES = 16


@dataclass(frozen=True)
class TrackedStream:
    """One tracker's entries (see the module docstring). Times in ms, rates per ms."""

    entry_rate_per_ms: float
    share: float
    delay: DelaySpec
    entries_per_ledger: int
    bits: int
    admit_after_ms: float = 0.0
    due_after_ms: float = 0.0
    #: keys later than ``t + visible_ms`` are not tracked yet at ``t`` (None: no bound). A
    #: nack is tracked from its receipt: with a nack delay N, only keys up to ``t + N`` exist
    #: (a delayed message is received, and nacked, when it comes due)
    visible_ms: float | None = None

    @property
    def ledger_ms(self) -> float:
        """Publication time one ledger covers."""
        return self.entries_per_ledger / self.entry_rate_per_ms

    @property
    def tracked_rate_per_ms(self) -> float:
        """Entries tracked per ms (before the admission rule)."""
        return self.entry_rate_per_ms * self.share

    @property
    def max_delay_ms(self) -> float:
        """The longest delay (an exponential's ``1 - 1e-9`` quantile)."""
        return delay_forms.support_max(self.delay)

    def steady_time_ms(self) -> float:
        """A snapshot time at steady state: every bucket that can still be pending has
        received all its entries, and at least two whole ledgers lie behind (aligned to a
        ledger start, so the message-level path's ledgers line up with the fast path's)."""
        need = self.max_delay_ms + self.due_after_ms + 2 * self.ledger_ms + (1 << self.bits)
        return math.ceil(need / self.ledger_ms) * self.ledger_ms

    def phase_times_ms(self, phases: int = PHASES) -> list[float]:
        """``phases`` snapshot times at steady state whose mean is the tracker's time average.

        What a tracker holds at ``t`` depends on where ``t`` falls in three grids: the bucket
        grid (``2^bits`` ms: how many keys lie ahead of the clock and how full the newest is),
        and, in publication time, the ledger grid (``ledger_ms``) and each ledger's grid of
        2^16-entry Roaring chunks (which bitmaps and containers a bucket's entries split into).
        A live tracker sampled over time sees every phase of each; one snapshot sees one phase
        only. The times are :meth:`steady_time_ms` plus offsets stratified over one ledger
        (``(j + 1/2) / phases`` of it, which also spreads the chunk phase) and, within a bucket
        width, over the bucket phase (``(j + 1/2) / phases`` of ``2^bits`` ms past a whole
        number of widths). O(phases)."""
        width = 1 << self.bits
        base = self.steady_time_ms()
        out = []
        for j in range(phases):
            frac = (j + 0.5) / phases
            out.append(base + math.floor(frac * self.ledger_ms / width) * width + frac * width)
        return out

    def pending(self, t_ms: float, after_ms: float) -> float:
        """Expected tracked entries published by ``t_ms`` whose deliverAt is later than
        ``t_ms + after_ms``, admitted, and visible (``visible_ms``) (closed form, O(1))."""
        dist = delay_forms.SpecDelay(self.delay)
        rate = self.tracked_rate_per_ms
        cutoff = max(after_ms, self.admit_after_ms)
        count = float(delay_forms.pending(dist, rate, 0.0, t_ms, t_ms + cutoff))
        if self.visible_ms is not None and self.visible_ms > cutoff:
            count -= float(delay_forms.pending(dist, rate, 0.0, t_ms, t_ms + self.visible_ms))
        return max(count, 0.0)

    def workload(self, t_ms: float, seed: int = 0) -> tuple[Workload, int]:
        """The entries a snapshot at ``t_ms`` depends on, as a workload starting at a ledger
        boundary (one message per entry, each selected with probability ``share``), and the
        index of its first entry in the whole stream."""
        window = self.max_delay_ms + self.due_after_ms + (1 << self.bits) + self.ledger_ms
        first_ledger = max(0, math.floor((t_ms - window) / self.ledger_ms))
        first_entry = first_ledger * self.entries_per_ledger
        last_entry = math.floor(t_ms * self.entry_rate_per_ms)  # published by t (p = i / r)
        pattern = "all" if self.share >= 1 else f"fraction:{self.share!r}"
        workload = Workload(
            messages=max(last_entry - first_entry + 1, 0),
            rate_per_ms=self.entry_rate_per_ms,
            entries_per_ledger=self.entries_per_ledger,
            start_ledger=START_LEDGER + first_ledger,
            delay=self.delay,
            pattern=PatternSpec.parse(pattern),
            start_ms=DEFAULT_START_MS + round(first_entry / self.entry_rate_per_ms),
            seed=seed,
        )
        return workload, first_entry
