"""The stated range of every numeric notebook parameter, checked before a report runs.

Notebook parameters follow the project's naming (units in names: ``_ms``, ``_s``,
``_bytes``, ``_per_ms``; counts named for what they count), so one table of name rules
states the ranges of every notebook, present and future: :data:`RULES`, first match wins,
matched on the parameter's name; a list parameter has each item checked. A value outside
its range is refused with one line (``-p negative_acks:messages=0`` ->
``parameter negative_acks.messages must be an integer in 1..1000000000, got 0``) before any
notebook runs, instead of failing inside the notebook. ``tests/reporting/test_ranges.py``
fails when a notebook gains a numeric parameter no rule covers.

:func:`estimate_report` is the report's cost guard (:mod:`trackerlab.core.budget`): for each
notebook, its message counts times the length of its longest list parameter (the sweep
axis a count is used along), at :data:`MESSAGES_PER_S` and :data:`BYTES_PER_MESSAGE`, plus
rate x duration events at :data:`EVENTS_PER_S`. Deliberately coarse; it stops typos.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from trackerlab.core.budget import Estimate
from trackerlab.core.errors import UsageError
from trackerlab.core.params import MAX_SEED, check_choice, check_float, check_int

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
    # design_lab: tracker sizes of the realistic matrix, in messages published
    (r"^(realistic|dispatch)_sizes$", Range(int, 1, 10**9)),
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


def _numbers(value: object) -> list[float]:  # ints and floats, never bool
    items = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _workload_key(key: str) -> Callable[[object, str], object]:
    """The parser ``trackerlab plan`` uses for workload key ``key`` (20k/s, 30%, 1s...)."""
    from trackerlab.planner.workload import FIELD_BY_NAME

    return FIELD_BY_NAME[key].parse


def _budget(value: object, where: str) -> object:
    from trackerlab.planner.inputs import parse_budget

    return parse_budget(value, where)


def _client(value: object, where: str) -> object:
    from trackerlab.models.receiver_queue.harness import CLIENTS

    return check_choice(where, value, CLIENTS)


def _partition_by(value: object, where: str) -> object:
    from trackerlab.models.delayed.delay_levels import PARTITION_UNITS_MS

    return check_choice(where, str(value).strip().upper(), PARTITION_UNITS_MS)


def _published_row(value: object, where: str) -> object:
    from trackerlab.experiments.reproduce.receiver_queue import IDS

    return check_choice(where, value, IDS)


def _delay(value: object, where: str) -> object:
    """A delay spec; its parser names ``--delay`` inside a spec, here the parameter."""
    try:
        return _workload_key("delay")(value, where)
    except UsageError as exc:
        text = str(exc)
        if text.startswith(where):
            raise
        raise UsageError(f"{where}: {text.removeprefix('--delay: ')}") from None


#: Text parameters with units or a closed set: ``(name pattern, parser(value, where), may be
#: empty)``, first match wins, each item of a list checked; the parsers are the command
#: line's, so ``-p capacity_planner:rate=-5k/s`` is the line ``plan --rate -5k/s`` gives.
#: An empty value passes where the notebook reads it as "the default" or "none".
TEXT_RULES: tuple[tuple[str, Callable[[object, str], object], bool], ...] = (
    (r"^rate$", lambda v, w: _workload_key("rate")(v, w), False),
    (r"^exact_check_rate$", lambda v, w: _workload_key("rate")(v, w), True),
    (r"^(delayed|nacked)$", lambda v, w: _workload_key("delayed")(v, w), False),
    (r"(^|_)delays?$", _delay, False),
    (r"^(tick|max_early)$", lambda v, w: _workload_key("tick")(v, w), True),
    (r"^nack_precision_bits$", lambda v, w: _workload_key("nack_precision_bits")(v, w), True),
    (r"^budget$", _budget, True),
    (
        r"^(pulsar_version|headline_from|headline_to)$",
        lambda v, w: _workload_key("pulsar_version")(v, w),
        False,
    ),
    (r"^client$", _client, False),
    (r"^partition_by$", _partition_by, False),
    (r"^sensitivity_ids$", _published_row, False),
)


def check_text(notebook: str, name: str, value: object) -> None:
    """UsageError (one line, naming ``notebook.name``) for a text value of a
    :data:`TEXT_RULES` parameter its parser refuses. O(items)."""
    for pattern, parse, may_be_empty in TEXT_RULES:
        if not re.search(pattern, name):
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, (list, tuple)) and not value:
            raise UsageError(f"parameter {notebook}.{name} must list at least one value, got []")
        for i, item in enumerate(items):
            where = f"parameter {notebook}.{name}" + (
                f"[{i}]" if isinstance(value, (list, tuple)) else ""
            )
            if may_be_empty and (item is None or str(item).strip() == ""):
                continue
            if isinstance(item, (dict, list, tuple)) or item is None:
                raise UsageError(f"{where} must be a single value, got {item!r}")
            parse(item if isinstance(item, str) else str(item), where)
        return


def check_ranges(params: Mapping[str, Mapping[str, object]]) -> None:
    """UsageError (one line) for the first value outside its stated range (numbers:
    :data:`RULES`; text with units or from a closed set: :data:`TEXT_RULES`)."""
    for notebook, values in params.items():
        for name, value in values.items():
            check_text(notebook, name, value)
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
