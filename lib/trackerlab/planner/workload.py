"""A workload in a Pulsar user's terms: the planner's input, from flags or a YAML file.

One vocabulary (:data:`FIELDS`), shared by the flags of ``trackerlab plan`` and the keys of a
``--workload`` file: every quantity carries its unit (``20k/s``, ``500ms``, ``512MiB``,
``2%``), and a value left out takes Pulsar's own default for the chosen version
(:mod:`trackerlab.planner.defaults`). :meth:`PlanWorkload.resolved` fills the defaults in and
records which ones it assumed.

What the planner derives from it, per topic partition (each partition is a topic of its own
on the broker, with its own ledgers and per-subscription trackers):

- messages with a deliver-at time are **never batched** by the Java client (``ProducerImpl``:
  "If a message has a delayed delivery time, we'll always send it individually"), so they
  are one entry each; the other messages form entries of ``batch`` messages;
- the ledger rollover rule (entries per ledger, size, min/max age;
  :class:`~trackerlab.workloads.ledger_rollover.LedgerRollover`) fixes the entries per ledger;
- a Shared subscription spreads entries over its consumers; a nack of any message of a batch
  puts the whole entry in the nack tracker.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from trackerlab.core.errors import UsageError
from trackerlab.planner.defaults import PulsarDefaults, defaults_for
from trackerlab.workloads import delay_forms
from trackerlab.workloads.delay_spec import DelaySpec
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


def _int_in(lo: int, hi: int) -> Callable[[object, str], int]:
    return lambda v, name: parse_count(v, name, lo, hi)


def _delay(v: object, name: str) -> DelaySpec:
    text = str(v).strip()
    if text and text[0].isdigit():  # a bare duration means a fixed delay
        text = f"fixed:{text}"
    spec = DelaySpec.parse(text)
    if delay_forms.support_min(spec) < 0:
        raise UsageError(f"{name}: delays must be >= 0")
    return spec


def _tick(v: object, name: str) -> int:
    ms = parse_duration_ms(v, name)
    if not (1 <= ms <= 86_400_000 and float(ms).is_integer()):
        raise UsageError(f"{name} must be a whole number of ms in 1ms..1d, got {v!r}")
    return int(ms)


def _duration(lo_ms: float, hi_ms: float) -> Callable[[object, str], float]:
    def parse(v: object, name: str) -> float:
        ms = parse_duration_ms(v, name)
        if not lo_ms <= ms <= hi_ms:
            raise UsageError(
                f"{name} must be in {format_duration_ms(lo_ms)}..{format_duration_ms(hi_ms)}, "
                f"got {v!r}"
            )
        return ms

    return parse


def _bytes_in(lo: int, hi: int) -> Callable[[object, str], int]:
    def parse(v: object, name: str) -> int:
        n = parse_bytes(v, name)
        if not lo <= n <= hi:
            raise UsageError(f"{name} must be in {format_bytes(lo)}..{format_bytes(hi)}, got {v!r}")
        return n

    return parse


def _rate(v: object, name: str) -> float:
    rate = parse_rate_per_ms(v, name)
    if rate > 1e6:
        raise UsageError(f"{name} must be at most 1G/s, got {v!r}")
    if rate < 1e-9:
        raise UsageError(f"{name} must be at least 1/h (2.8e-7/ms), got {v!r}")
    return rate


def _version(v: object, name: str) -> str:
    """A known version (validated against the release lines), as the user wrote it."""
    defaults_for(str(v))
    return str(v).strip()


@dataclass(frozen=True)
class Field:
    """One workload setting: its name, how to parse it, what it means, an example, and its
    default: a fixed value in user units (``default``) or a Pulsar setting of the release
    (``pulsar``: an attribute of :class:`~trackerlab.planner.defaults.PulsarDefaults`)."""

    name: str
    parse: Callable[[object, str], object]
    help: str
    example: str
    default: str | None = None
    pulsar: str | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def key(self) -> str:
        return self.name.replace("_", "-")

    def default_text(self, d: PulsarDefaults) -> str:
        """The default in the user's units (for ``--help`` and the assumptions list)."""
        if self.pulsar is None:
            return self.default if self.default is not None else "none"
        value = getattr(d, self.pulsar)
        if self.name == "pulsar_version":
            return f"{value}, the newest release"
        if self.name == "nack_precision_bits" and not d.has_nack_precision:
            return f"{value} (PIP-393's; Pulsar {d.version} has no such setting)"
        if self.name.endswith(("rollover", "latency", "delay")) or self.name == "tick":
            value = format_duration_ms(value)
        elif self.name == "memory_limit":
            value = format_bytes(value).replace(" ", "")
        return f"{value} (Pulsar {d.version})"

    def default_value(self, d: PulsarDefaults) -> object:
        """The parsed default (None: none)."""
        if self.pulsar is not None:
            value = getattr(d, self.pulsar)
            if self.name == "nack_delay":
                return DelaySpec.parse(f"fixed:{format_duration_ms(value)}")
            return value
        return None if self.default is None else self.parse(self.default, self.flag)


def _field(name, parse, help, example, default=None):
    return Field(name, parse, help, example, default=default)


def _pulsar(name, parse, help, example, pulsar):
    return Field(name, parse, help, example, pulsar=pulsar)


#: The vocabulary, in the order ``--help`` and the printed assumptions list them.
FIELDS: tuple[Field, ...] = (
    _field("rate", _rate, "publish rate of the topic, all partitions", "20k/s"),
    _field("partitions", _int_in(1, 10_000), "partitions of the topic", "4", "1"),
    _field(
        "batch",
        _int_in(1, 100_000),
        "messages per entry (batching); messages with a deliver-at time are never batched",
        "100",
        "1",
    ),
    _field("message_size", _bytes_in(1, 5 * 1024**2), "payload per message", "1KiB", "1KiB"),
    _field("delayed", parse_share, "share of messages with a deliver-at time", "30%", "0%"),
    _field(
        "delay",
        _delay,
        "their delay: fixed:D, uniform:LO:HI, exponential:MEAN, empirical:FILE, mix:W*SPEC+W*SPEC (units required)",
        "uniform:0:1h",
    ),
    _field("nacked", parse_share, "share of messages consumers negatively acknowledge", "2%", "0%"),
    _pulsar(
        "nack_delay",
        _delay,
        "redelivery delay of a nack (the first backoff step), a delay spec",
        "1m",
        "nack_delay_ms",
    ),
    _field("subscriptions", _int_in(1, 100_000), "Shared subscriptions of the topic", "4", "1"),
    _field("consumers", _int_in(1, 100_000), "consumers per subscription", "2", "1"),
    _field(
        "topics",
        _int_in(1, 10_000_000),
        "topics like this one per broker; or a fleet file (CSV or YAML, one row of these keys "
        "per topic, plus name and class): see --brokers",
        "1000",
        "1",
    ),
    _pulsar(
        "receiver_queue",
        _int_in(1, 1_000_000),
        "receiverQueueSize (messages)",
        "1000",
        "receiver_queue",
    ),
    _pulsar(
        "memory_limit", _bytes_in(0, 2**40), "client memoryLimit", "64MiB", "memory_limit_bytes"
    ),
    _pulsar(
        "entries_per_ledger",
        _int_in(1, 1 << 30),
        "managedLedgerMaxEntriesPerLedger",
        "50000",
        "entries_per_ledger",
    ),
    _pulsar(
        "ledger_min_rollover",
        _duration(0, 30 * 86_400_000),
        "managedLedgerMinLedgerRolloverTimeMinutes",
        "10m",
        "ledger_min_rollover_ms",
    ),
    _pulsar(
        "ledger_max_rollover",
        _duration(0, 365 * 86_400_000),
        "managedLedgerMaxLedgerRolloverTimeMinutes (0: none)",
        "4h",
        "ledger_max_rollover_ms",
    ),
    _pulsar("tick", _tick, "delayedDeliveryTickTimeMillis", "1s", "tick_ms"),
    _pulsar(
        "fixed_delay_lookahead",
        _int_in(0, 1_000_000_000),
        "delayedDeliveryFixedDelayDetectionLookahead: with one fixed delay the dispatcher "
        "stops reading once the tracker holds this many messages (0: never), only until the "
        "first comes due (no effect at steady state)",
        "50000",
        "fixed_delay_lookahead",
    ),
    _field(
        "read_lag",
        _duration(0, 30 * 86_400_000),
        "how long after it is written the dispatcher reads an entry (a subscription's unread "
        "backlog over its publish rate; 0: read as written): an entry read at or after its "
        "deliver-at is never tracked, one read late is held for the rest of its delay "
        "(in-memory delayed index)",
        "2s",
        "0ms",
    ),
    _pulsar(
        "nack_precision_bits",
        _int_in(0, 40),
        "negativeAckPrecisionBitCnt",
        "8",
        "nack_precision_bits",
    ),
    _pulsar(
        "ack_latency",
        _duration(0, 3_600_000),
        "time from dispatch until the broker has the ack (acknowledgementsGroupTime)",
        "100ms",
        "ack_group_ms",
    ),
    _pulsar(
        "max_unacked",
        _int_in(0, (1 << 31) - 1),
        "maxUnackedMessagesPerConsumer: the broker stops dispatching to a consumer holding "
        "this many unacked messages (0: no limit)",
        "5000",
        "max_unacked_per_consumer",
    ),
    _field(
        "horizon",
        _duration(1, 365 * 86_400_000),
        "how long the workload runs before the snapshot (none: until steady state)",
        "2d",
    ),
    _pulsar(
        "pulsar_version",
        _version,
        "the Pulsar release whose structures and defaults apply (trackerlab designs; "
        "data/pulsar_releases.yaml); a comma-separated list (4.0.5,4.0.7,4.1) prints one "
        "comparison table",
        "4.0.7",
        "version",
    ),
)
FIELD_BY_NAME = {f.name: f for f in FIELDS}
#: Settings a plan always needs from the user.
REQUIRED = ("rate",)


@dataclass(frozen=True)
class PlanWorkload:
    """Parsed settings (None: take Pulsar's default) and the defaults that were assumed."""

    #: field name -> parsed value: a rate, count, duration, DelaySpec or version string
    values: Mapping[str, Any]
    assumed: tuple[str, ...] = ()
    defaults: PulsarDefaults = field(default_factory=lambda: defaults_for(None))

    # ------------------------------------------------------------------ construction

    @classmethod
    def parse(cls, raw: Mapping[str, object], source: str = "") -> PlanWorkload:
        """Parse user values (flag or YAML key names, ``-`` or ``_``), fill the defaults."""
        where = f"{source}: " if source else ""
        values: dict[str, object] = {}
        for key, value in raw.items():
            name = str(key).replace("-", "_")
            if name not in FIELD_BY_NAME:
                known = ", ".join(f.key for f in FIELDS)
                raise UsageError(f"{where}unknown workload key {key!r}; known keys: {known}")
            if value is None:
                continue
            f = FIELD_BY_NAME[name]
            values[name] = f.parse(value, f"{where}{f.flag if not source else f.key}")
        for name in REQUIRED:
            if name not in values:
                raise UsageError(f"{where}{FIELD_BY_NAME[name].flag} is required (e.g. 20k/s)")
        return cls(values).resolved()

    @staticmethod
    def read_file(path: str | Path) -> dict[str, object]:
        """The user values of a ``--workload`` YAML file, keys in ``_`` form, unparsed."""
        from trackerlab.core.safe_yaml import read_user_text
        from trackerlab.spark.grid import load_yaml

        path = Path(path)
        raw = load_yaml(read_user_text(path, "--workload"), str(path))
        if not isinstance(raw, dict):
            raise UsageError(f"{path}: a workload file maps keys to values (rate: 20k/s, ...)")
        return {str(k).replace("-", "_"): v for k, v in raw.items()}

    @classmethod
    def from_file(
        cls, path: str | Path, overrides: Mapping[str, object] | tuple[()] = ()
    ) -> PlanWorkload:
        """A ``--workload`` YAML file (keys of :data:`FIELDS`), flags overriding its values."""
        merged = cls.read_file(path)
        merged |= {k: v for k, v in dict(overrides).items() if v is not None}
        return cls.parse(merged, str(path))

    def resolved(self) -> PlanWorkload:
        """Fill every unset value from :data:`FIELDS`' defaults (Pulsar's for the version);
        remember the Pulsar settings it assumed."""
        d = defaults_for(self.values.get("pulsar_version"))
        values = dict(self.values)
        assumed = list(self.assumed)
        for f in FIELDS:
            if f.name in values:
                continue
            values[f.name] = f.default_value(d)
            if f.pulsar is not None:
                assumed.append(f.name)
        if values["delayed"] > 0 and values["delay"] is None:
            raise UsageError("--delay is required when --delayed is above 0 (e.g. uniform:0:1h)")
        horizon = values["horizon"]
        for name in ("delay", "nack_delay"):
            spec = values[name]
            if horizon is not None and spec is not None and delay_forms.support_max(spec) > horizon:
                raise UsageError(
                    f"--{name.replace('_', '-')}: its longest delay "
                    f"({format_duration_ms(delay_forms.support_max(spec))}) is longer than "
                    f"--horizon {format_duration_ms(horizon)}"
                )
        return PlanWorkload(values, tuple(dict.fromkeys(assumed)), d)

    def with_values(self, **changes: object) -> PlanWorkload:
        """The same workload with some values replaced (already parsed)."""
        return replace(self, values={**self.values, **changes})

    # ------------------------------------------------------------------ derived

    def describe(self, name: str) -> str:
        """One value in the user's units."""
        value = self.values[name]
        if name == "rate":
            return format_rate(value)
        if name in ("message_size", "memory_limit"):
            return format_bytes(value)
        if name in (
            "ledger_min_rollover",
            "ledger_max_rollover",
            "tick",
            "ack_latency",
            "horizon",
            "read_lag",
        ):
            return "none" if value is None else format_duration_ms(value)
        if name in ("delayed", "nacked"):
            return f"{100 * value:g}%"
        if isinstance(value, DelaySpec):
            return value.text
        return str(value)

    @property
    def partition_rate_per_ms(self) -> float:
        return self.values["rate"] / self.values["partitions"]

    @property
    def delayed_entry_rate(self) -> float:
        """Delayed entries per ms per partition (one message each)."""
        return self.partition_rate_per_ms * self.values["delayed"]

    @property
    def normal_entry_rate(self) -> float:
        """Other entries per ms per partition (``batch`` messages each)."""
        share = 1 - self.values["delayed"]
        return self.partition_rate_per_ms * share / self.values["batch"]

    @property
    def entry_rate(self) -> float:
        return self.delayed_entry_rate + self.normal_entry_rate

    @property
    def messages_per_entry(self) -> float:
        return self.partition_rate_per_ms / self.entry_rate

    @property
    def entries_per_ledger(self) -> int:
        """The rollover rule at this entry rate and mean entry size."""
        from trackerlab.workloads.ledger_rollover import LedgerRollover

        v = self.values
        entry_bytes = math.ceil(self.messages_per_entry * v["message_size"])
        rollover = LedgerRollover(
            v["entries_per_ledger"],
            self.defaults.ledger_max_bytes,
            v["ledger_min_rollover"],
            v["ledger_max_rollover"],
        )
        return rollover.entries_per_ledger(self.entry_rate, entry_bytes)

    @property
    def entry_nack_share(self) -> float:
        """Probability that an entry holds at least one nacked message."""
        s = self.values["nacked"]
        batched = 1 - (1 - s) ** self.values["batch"]
        return (self.delayed_entry_rate * s + self.normal_entry_rate * batched) / self.entry_rate
