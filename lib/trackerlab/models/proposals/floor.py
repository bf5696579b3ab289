"""The entropy floor of a workload's (bucket, ledger, entry) set: ``log2 C(u, n) / n`` bits.

Any structure that can answer "which positions are due in which bucket" stores one set of
``n`` triples out of a universe ``u``; the counting bound ``log2 C(u, n)`` bits
(:func:`~trackerlab.sizing.theory.entropy_bits`) is the least any encoding needs for the
worst such set. The universe is what the workload leaves open:

- the **positions**: every entry the producer published, selected or not
  (``ceil(messages / batch_size)``: a subset pattern is part of the information);
- for each, the **buckets** its messages can reach: the delay distribution's support
  (messages due within the tick are not tracked), shifted by the entry's publish time (a
  batch's messages span ``(batch_size - 1) / rate`` ms), cut into ``2^bits``-ms buckets: an
  interval of ``w`` ms meets at most ``(w - 1) // 2^bits + 2`` buckets (1 when ``w = 0``).

So a fixed delay's dense stream has a floor of 0 (the buckets follow from the publish times),
a random 5% subset ``H(0.05) / 0.05`` = 5.7 bits, a uniform delay over ``k`` buckets about
``log2 k + 1.44`` bits. Mixture parts add their buckets (an upper bound of ``k`` when two
parts come within one bucket of each other). Exponential delays have no finite support: NaN.
"""

from __future__ import annotations

import math

from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.sizing import theory
from trackerlab.workloads.delay_spec import DelaySpec


def delay_support(spec: DelaySpec) -> list[tuple[int, int]] | None:
    """The delays ``spec`` can produce, as merged ``[lo, hi]`` ms intervals (None: unbounded).

    ``uniform:LO:HI`` samples ``floor(LO + u (HI - LO))`` with ``u`` in [0, 1): ``[LO, HI - 1]``."""
    if spec.kind == "fixed":
        parts = [(int(spec.params[0]),) * 2]
    elif spec.kind == "uniform":
        lo, hi = (math.floor(p) for p in spec.params)
        parts = [(lo, max(lo, hi - 1))]
    elif spec.kind == "empirical":
        parts = [(int(v), int(v)) for v, w in zip(spec.params, spec.weights, strict=True) if w > 0]
    elif spec.kind == "mix":
        parts = []
        for weight, part in zip(spec.weights, spec.parts, strict=True):
            sub = delay_support(part)
            if sub is None:
                return None
            if weight > 0:
                parts += sub
    else:
        return None
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(parts):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def reachable_buckets(spec: DelaySpec, tick_ms: int, spread_ms: int = 0) -> int | None:
    """Buckets one entry's messages can land in: delays above the tick, publish times spread
    over ``spread_ms``, ``2^floor(log2 tick)``-ms buckets. None for an unbounded delay."""
    support = delay_support(spec)
    if support is None:
        return None
    width = 1 << precision_bits_for_tick(tick_ms)
    k = 0
    for lo, hi in support:
        lo = max(lo, tick_ms + 1)
        if hi < lo:
            continue
        w = hi - lo + spread_ms
        k += 1 if w == 0 else (w - 1) // width + 2
    return k


def entropy_floor_bytes(
    messages: int,
    batch_size: int,
    rate_per_ms: float,
    delay: DelaySpec,
    tick_ms: int,
    entries: int,
) -> float:
    """``log2 C(u, n) / 8`` bytes for ``n = entries`` tracked triples of the workload (NaN for an
    unbounded delay, 0 when nothing is tracked). O(1)."""
    if entries <= 0:
        return 0.0
    spread = math.ceil((batch_size - 1) / rate_per_ms) if batch_size > 1 else 0
    k = reachable_buckets(delay, tick_ms, spread)
    if k is None:
        return float("nan")
    positions = -(-messages // batch_size)
    universe = positions * max(k, 1)
    return theory.entropy_bits(universe, min(entries, universe)) / 8
