"""The stated range of every numeric notebook parameter, checked before a report runs.

Notebook parameters follow the project's naming (units in names: ``_ms``, ``_s``,
``_bytes``, ``_per_ms``; counts named for what they count), so one table of name rules
states the ranges of every notebook, present and future: :data:`RULES`, first match wins,
matched on the parameter's name; a list parameter has each item checked. A value outside
its range is refused with one line (``-p negative_acks:messages=0`` ->
``parameter negative_acks.messages must be an integer in 1..1000000000, got 0``) before any
notebook runs, instead of failing inside the notebook. ``tests/reporting/test_ranges.py``
fails when a notebook gains a numeric parameter no rule covers.

:func:`estimate_report` is the report's cost guard (:mod:`trackerlab.budget`): for each
notebook, its message counts times the length of its longest list parameter (the sweep
axis a count is used along), at :data:`MESSAGES_PER_S` and :data:`BYTES_PER_MESSAGE`, plus
rate x duration events at :data:`EVENTS_PER_S`. Deliberately coarse; it stops typos.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from trackerlab.budget import Estimate
from trackerlab.params import MAX_SEED, check_float, check_int

_YEAR_MS = 365 * 86_400_000


@dataclass(frozen=True)
class Range:
    """``lo..hi`` for an ``int`` or ``float`` parameter (``lo_open``: ``> lo``)."""

    kind: type
    lo: float
    hi: float
    lo_open: bool = False

    def check(self, where: str, value: object) -> None:
        if self.kind is int:
            check_int(f"parameter {where}", value, int(self.lo), int(self.hi))
        else:
            check_float(f"parameter {where}", value, self.lo, self.hi, lo_open=self.lo_open)


#: ``(name pattern, range)``, first match wins.
RULES: tuple[tuple[str, Range], ...] = (
    (r"(^|_)seed$", Range(int, 0, MAX_SEED)),
    (r"messages$", Range(int, 1, 10**9)),
    (r"(_|^)(trim|precision)?_?bits$", Range(int, 0, 40)),
    (r"ticks?_ms$", Range(int, 1, 1 << 40)),
    (r"rates?_per_ms$", Range(float, 1e-9, 1e6)),
    (r"rates?_per_s$|^rates$|_rates$", Range(float, 1e-6, 1e9)),
    (r"fractions?$", Range(float, 0, 1, lo_open=True)),
    (r"entries_per_ledger$", Range(int, 1, (1 << 31) - 1)),
    (r"batch_sizes?$", Range(int, 1, 1_000_000)),
    (r"subscriptions$", Range(int, 1, 10_000)),
    (r"consumers$", Range(int, 1, 100_000)),
    (r"topics$", Range(int, 1, 10_000_000)),
    (r"^batch$", Range(int, 1, 100_000)),
    (r"_points$", Range(int, 2, 1000)),
    (r"partitions$", Range(int, 1, 1000)),
    (r"days$", Range(float, 0, 3650, lo_open=True)),
    (r"minutes$", Range(float, 0, 1e6, lo_open=True)),
    (r"step_s$", Range(float, 0, 86_400, lo_open=True)),
    (
        r"(^|_)(duration|max_delay)_s$|^seconds$",
        Range(float, 0, 1000 * _YEAR_MS / 1000, lo_open=True),
    ),
    (r"latenc(y|ies)_ms$", Range(float, 0, 3_600_000, lo_open=True)),
    (r"samples$", Range(int, 2, 100_000)),
    (r"memory_limit_bytes$", Range(int, 0, 1 << 50)),
    (r"_bytes$", Range(int, 1, 1 << 31)),
    (r"(window_sizes|_window|_peak|_keep|_entries)$", Range(int, 1, 10_000_000)),
    (r"(ledger_spreads|_ledgers)$", Range(int, 1, 1_000_000)),
    (r"_ops$", Range(int, 1, 100_000_000)),
    (r"_repeats$", Range(int, 1, 100)),
)

MESSAGES_PER_S = 1e6
BYTES_PER_MESSAGE = 150
EVENTS_PER_S = 1e6
BASE_SECONDS = 5.0
BASE_BYTES = 300 << 20


def rule_for(name: str) -> Range | None:
    """The range stated for parameter ``name``, or None."""
    for pattern, rng in RULES:
        if re.search(pattern, name):
            return rng
    return None


def _numbers(value: object) -> list[object]:
    items = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)]


def check_ranges(params: Mapping[str, Mapping[str, object]]) -> None:
    """UsageError (one line) for the first value outside its stated range."""
    for notebook, values in params.items():
        for name, value in values.items():
            rng = rule_for(name)
            if rng is None:
                continue
            items = value if isinstance(value, (list, tuple)) else [value]
            for i, item in enumerate(items):
                if isinstance(item, bool) or not isinstance(item, (int, float)):
                    continue
                where = f"{notebook}.{name}" + (
                    f"[{i}]" if isinstance(value, (list, tuple)) else ""
                )
                rng.check(where, item)


def estimate_report(params: Mapping[str, Mapping[str, object]]) -> Estimate:
    """The coarse cost of rendering ``params`` (module docstring). O(parameters)."""
    seconds, memory = BASE_SECONDS * len(params), float(BASE_BYTES)
    for values in params.values():
        longest = max((len(v) for v in values.values() if isinstance(v, (list, tuple))), default=1)
        counts = [n for name, v in values.items() if name.endswith("messages") for n in _numbers(v)]
        seconds += sum(counts) * max(longest, 1) / MESSAGES_PER_S
        memory = max(memory, BASE_BYTES + BYTES_PER_MESSAGE * max(counts, default=0))
        duration = max(
            (
                float(n)
                for name, v in values.items()
                if name.endswith("duration_s")
                for n in _numbers(v)
            ),
            default=0.0,
        )
        rates = [
            float(n)
            for name, v in values.items()
            if re.search(r"rates?$", name)
            for n in _numbers(v)
        ]
        seconds += sum(rates) * duration / EVENTS_PER_S
    names = ", ".join(params) or "no notebook"
    return Estimate(f"report ({names})", seconds, memory)
