"""Workloads: message streams as numpy chunks, delay distributions, ledger rollover, units.

- :mod:`~trackerlab.workloads.stream`: :class:`Workload` (a producer and which messages a
  consumer nacks or delays) and the :class:`MessageChunk` stream it generates;
- :mod:`~trackerlab.workloads.delay_spec`: :class:`DelaySpec`, the delay distributions users
  type; :mod:`~trackerlab.workloads.delay_forms`: their closed forms (CDF, integrals) for
  aggregated simulations;
- :mod:`~trackerlab.workloads.ledger_rollover`: when a managed ledger rolls over;
- :mod:`~trackerlab.workloads.units`: durations with units.
"""

from trackerlab.workloads.delay_spec import DELAY_KINDS, DelaySpec
from trackerlab.workloads.ledger_rollover import LedgerRollover
from trackerlab.workloads.stream import (
    DEFAULT_START_MS,
    PATTERN_KINDS,
    MessageChunk,
    PatternSpec,
    Workload,
)
from trackerlab.workloads.units import (
    format_bytes,
    format_duration_ms,
    format_rate,
    parse_bytes,
    parse_count,
    parse_duration_ms,
    parse_rate_per_ms,
    parse_share,
)

__all__ = [
    "DEFAULT_START_MS",
    "DELAY_KINDS",
    "PATTERN_KINDS",
    "DelaySpec",
    "LedgerRollover",
    "MessageChunk",
    "PatternSpec",
    "Workload",
    "format_bytes",
    "format_duration_ms",
    "format_rate",
    "parse_bytes",
    "parse_count",
    "parse_duration_ms",
    "parse_rate_per_ms",
    "parse_share",
]
