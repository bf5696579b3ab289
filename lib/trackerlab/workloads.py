"""Message streams as numpy chunks: publish time, ledger, entry, batch index, delay.

A :class:`Workload` describes a producer (rate, ledger rollover, batching) and which
messages a consumer nacks or delays, with what delay. :meth:`Workload.chunks` yields
:class:`MessageChunk` objects of at most ``chunk_size`` messages, so memory stays bounded
for 1e8+ messages. Every random value comes from :mod:`trackerlab.rng`, keyed by the
message index, so the stream is identical for any chunk size or Spark partitioning.

Conventions (PIP-393's and the TimeBucket blog's test loops):

- message ``i`` is published at ``start_time_ms + floor(i / rate_per_ms)``;
- it belongs to entry ``e = i // batch_size`` (batch index ``i % batch_size``); entry ``e``
  is ``entryId = e % entries_per_ledger`` of ledger ``start_ledger + e // entries_per_ledger``
  (``managedLedgerMaxEntriesPerLedger`` rollover; the time-based rollover minimum is ignored);
- the tracked time is ``deliver_at = publish + delay`` (the nack time plus the redelivery
  delay for negative acks; ``deliverAt`` for delayed delivery).

Delay specs (``--delay``): ``fixed:D``, ``uniform:LO:HI``, ``exponential:MEAN``,
``empirical:V1@P1,V2@P2,...`` or ``empirical:FILE`` (a one-column CSV/text of delays),
and mixtures ``mix:0.8*uniform:0:60s+0.2*uniform:1d:30d``. Durations take ``ms`` (default),
``s``, ``m``, ``h`` or ``d``. Pattern specs (``--pattern``): ``all``, ``fraction:F`` (each
message independently), ``burst:ON:OFF`` (ON messages selected, OFF skipped, repeating).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from trackerlab import rng
from trackerlab.errors import UsageError
from trackerlab.params import check_float, check_int, check_positive

DELAY_KINDS = ("fixed", "uniform", "exponential", "empirical", "mix")
PATTERN_KINDS = ("all", "fraction", "burst")
_STREAM_DELAY, _STREAM_SELECT, _STREAM_MIX = 1, 2, 3
_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
#: 2023-11-14T22:13:20Z rounded down to a multiple of 2^20 ms, so buckets of up to 2^20 ms
#: start aligned (PIP-393's test used System.currentTimeMillis(), i.e. any alignment).
DEFAULT_START_MS = 1_700_000_000_000 & ~((1 << 20) - 1)


def parse_duration_ms(text: str, name: str = "--delay") -> float:
    """``'90'`` → 90 ms, ``'1.5s'`` → 1500, ``'1d'`` → 86400000; UsageError otherwise."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*(ms|s|m|h|d)?\s*", text)
    if not match:
        raise UsageError(f"{name}: cannot read duration {text!r} (use e.g. 500, 1.5s, 10m, 1d)")
    return float(match.group(1)) * _UNITS_MS[match.group(2) or "ms"]


@dataclass(frozen=True)
class DelaySpec:
    """A delay distribution in ms: ``kind`` and its parameters (see the module docstring)."""

    kind: str
    params: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()
    parts: tuple[DelaySpec, ...] = ()

    @classmethod
    def parse(cls, text: str) -> DelaySpec:
        """Parse a delay spec; UsageError naming the spec and the valid kinds."""
        kind, _, rest = text.strip().partition(":")
        args = rest.split(":") if rest else []
        bad = f"--delay {text!r}"
        if kind == "fixed" and len(args) == 1:
            d = parse_duration_ms(args[0])
            return cls("fixed", (d,))
        if kind == "uniform" and len(args) == 2:
            lo, hi = parse_duration_ms(args[0]), parse_duration_ms(args[1])
            if hi < lo:
                raise UsageError(f"{bad}: uniform needs LO <= HI")
            return cls("uniform", (lo, hi))
        if kind == "exponential" and len(args) == 1:
            mean = parse_duration_ms(args[0])
            check_positive(f"{bad}: exponential mean", mean)
            return cls("exponential", (mean,))
        if kind == "empirical" and rest:
            return cls._empirical(rest, bad)
        if kind == "mix" and rest:
            return cls._mixture(rest, bad)
        if kind not in DELAY_KINDS:
            raise UsageError(
                f"unknown delay distribution {kind!r}; choose one of: {', '.join(DELAY_KINDS)}"
            )
        raise UsageError(
            f"malformed {bad}; use fixed:D, uniform:LO:HI, exponential:MEAN, "
            "empirical:V@P,... or empirical:FILE, mix:W*SPEC+W*SPEC"
        )

    @classmethod
    def _empirical(cls, rest: str, bad: str) -> DelaySpec:
        if "@" in rest:
            values, weights = [], []
            for item in rest.split(","):
                value, sep, weight = item.partition("@")
                if not sep:
                    raise UsageError(f"malformed {bad}: each item is VALUE@PROBABILITY")
                values.append(parse_duration_ms(value))
                weights.append(check_float(f"{bad} probability", weight, 0, None))
        else:
            path = Path(rest)
            if not path.is_file():
                raise UsageError(f"{bad}: file {path} not found")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # an empty file: reported just below
                    column = np.loadtxt(path, delimiter=",", ndmin=1, dtype=np.float64)
            except ValueError as exc:
                raise UsageError(f"{bad}: {path} is not a column of numbers ({exc})") from None
            values = column.ravel().tolist()
            if any(v < 0 or not math.isfinite(v) for v in values):
                raise UsageError(f"{bad}: delays in {path} must be finite and >= 0")
            weights = [1.0] * len(values)
        if not values or sum(weights) <= 0:
            raise UsageError(f"{bad}: needs at least one value with positive probability")
        total = sum(weights)
        return cls("empirical", tuple(values), tuple(w / total for w in weights))

    @classmethod
    def _mixture(cls, rest: str, bad: str) -> DelaySpec:
        parts, weights = [], []
        for item in rest.split("+"):
            weight, sep, spec = item.partition("*")
            if not sep:
                raise UsageError(f"malformed {bad}: each part is WEIGHT*SPEC")
            weights.append(check_float(f"{bad} weight", weight, 0, None))
            parts.append(cls.parse(spec))
        total = sum(weights)
        if total <= 0:
            raise UsageError(f"{bad}: weights must sum to more than 0")
        return cls("mix", (), tuple(w / total for w in weights), tuple(parts))

    def sample(self, u: np.ndarray, v: np.ndarray | None = None) -> np.ndarray:
        """Delays in integer ms from uniforms ``u`` (inverse transform; ``v`` picks mixture parts)."""
        if self.kind == "fixed":
            return np.full(u.shape, int(self.params[0]), dtype=np.int64)
        if self.kind == "uniform":
            lo, hi = self.params
            return np.floor(lo + u * (hi - lo)).astype(np.int64)
        if self.kind == "exponential":
            return np.floor(-self.params[0] * np.log1p(-u)).astype(np.int64)
        if self.kind == "empirical":
            cdf = np.cumsum(self.weights)
            idx = np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)
            return np.asarray(self.params, dtype=np.float64)[idx].astype(np.int64)
        assert v is not None, "a mixture needs a second uniform stream"
        cdf = np.cumsum(self.weights)
        which = np.minimum(np.searchsorted(cdf, v, side="right"), len(cdf) - 1)
        out = np.empty(u.shape, dtype=np.int64)
        for k, part in enumerate(self.parts):
            mask = which == k
            out[mask] = part.sample(u[mask], None)
        return out

    @property
    def max_ms(self) -> float:
        """The largest delay the distribution can produce (inf for exponential)."""
        if self.kind == "fixed":
            return self.params[0]
        if self.kind in ("uniform", "empirical"):
            return max(self.params)
        if self.kind == "exponential":
            return math.inf
        return max(p.max_ms for p in self.parts)


@dataclass(frozen=True)
class PatternSpec:
    """Which messages are nacked or delayed: all, a random fraction, or periodic bursts."""

    kind: str = "all"
    fraction: float = 1.0
    on: int = 1
    off: int = 0

    @classmethod
    def parse(cls, text: str) -> PatternSpec:
        kind, _, rest = text.strip().partition(":")
        args = rest.split(":") if rest else []
        if kind == "all" and not args:
            return cls("all")
        if kind == "fraction" and len(args) == 1:
            return cls("fraction", fraction=check_float("--pattern fraction", args[0], 0, 1))
        if kind == "burst" and len(args) == 2:
            on = check_int("--pattern burst ON", args[0], 1)
            off = check_int("--pattern burst OFF", args[1], 0)
            return cls("burst", on=on, off=off)
        if kind not in PATTERN_KINDS:
            raise UsageError(
                f"unknown nack pattern {kind!r}; choose one of: {', '.join(PATTERN_KINDS)}"
            )
        raise UsageError(f"malformed --pattern {text!r}; use all, fraction:F or burst:ON:OFF")

    def select(self, index: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Boolean mask of the selected messages among global indices ``index``."""
        if self.kind == "all":
            return np.ones(index.shape, dtype=bool)
        if self.kind == "fraction":
            return u < self.fraction
        return (index % (self.on + self.off)) < self.on


@dataclass
class MessageChunk:
    """Selected messages of one chunk, in publish order; all arrays have the same length."""

    index: np.ndarray  # int64 global message index
    publish_ms: np.ndarray  # int64
    ledger: np.ndarray  # int64 ledgerId
    entry: np.ndarray  # int64 entryId
    batch_index: np.ndarray  # int32
    delay_ms: np.ndarray  # int64
    generated: int = 0  # messages produced in this chunk before selection

    @property
    def deliver_at(self) -> np.ndarray:
        """``publish + delay``: the time the tracker keys the message by."""
        return self.publish_ms + self.delay_ms

    def __len__(self) -> int:
        return len(self.index)


@dataclass(frozen=True)
class Workload:
    """A producer and a consumer's nacks or delays. Rates are messages per ms (x in the seeds)."""

    messages: int
    rate_per_ms: float = 1.0
    entries_per_ledger: int = 50_000
    start_ledger: int = 10_000
    batch_size: int = 1
    delay: DelaySpec = field(default_factory=lambda: DelaySpec("fixed", (0.0,)))
    pattern: PatternSpec = field(default_factory=PatternSpec)
    start_ms: int = DEFAULT_START_MS
    seed: int = 0
    chunk_size: int = 1 << 20

    def __post_init__(self) -> None:
        check_int("messages", self.messages, 0)
        check_positive("rate", self.rate_per_ms)
        check_int("entries per ledger", self.entries_per_ledger, 1)
        check_int("start ledger", self.start_ledger, 0)
        check_int("batch size", self.batch_size, 1)
        check_int("seed", self.seed, 0)
        check_int("chunk size", self.chunk_size, 1)

    @classmethod
    def from_options(
        cls,
        messages: int,
        rate: float,
        rate_unit: str = "ms",
        delay: str = "fixed:0",
        pattern: str = "all",
        **kwargs: object,
    ) -> Workload:
        """Build from CLI/notebook options: ``rate`` per ``ms`` or per ``s``, spec strings."""
        if rate_unit not in ("ms", "s"):
            raise UsageError(f"unknown rate unit {rate_unit!r}; choose one of: ms, s")
        rate_per_ms = check_positive(f"rate (messages per {rate_unit})", rate)
        if rate_unit == "s":
            rate_per_ms /= 1000.0
        return cls(
            messages=messages,
            rate_per_ms=rate_per_ms,
            delay=DelaySpec.parse(delay),
            pattern=PatternSpec.parse(pattern),
            **kwargs,  # type: ignore[arg-type]
        )

    def chunk(self, start: int, stop: int) -> MessageChunk:
        """Messages ``start .. stop - 1`` (selected only). Identical for any chunking."""
        index = np.arange(start, stop, dtype=np.int64)
        n = stop - start
        if self.pattern.kind == "fraction":
            mask = self.pattern.select(index, rng.uniforms(self.seed, _STREAM_SELECT, start, n))
        else:
            mask = self.pattern.select(index, np.empty(0))
        if not mask.all():
            index = index[mask]
        num, den = self.rate_fraction
        publish = self.start_ms + (index * den if den != 1 else index) // num
        entry_seq = index // self.batch_size
        if self.delay.kind == "fixed":
            delay = np.full(len(index), int(self.delay.params[0]), dtype=np.int64)
        else:
            u = rng.uniforms(self.seed, _STREAM_DELAY, start, n)
            v = rng.uniforms(self.seed, _STREAM_MIX, start, n) if self.delay.kind == "mix" else None
            delay = self.delay.sample(u, v)
            if len(delay) != len(index):
                delay = delay[mask]
        return MessageChunk(
            index=index,
            publish_ms=publish,
            ledger=self.start_ledger + entry_seq // self.entries_per_ledger,
            entry=entry_seq % self.entries_per_ledger,
            batch_index=(index % self.batch_size).astype(np.int32),
            delay_ms=delay,
            generated=n,
        )

    def chunks(self, start: int = 0, stop: int | None = None) -> Iterator[MessageChunk]:
        """Yield chunks of at most ``chunk_size`` messages covering ``start .. stop - 1``."""
        stop = self.messages if stop is None else min(stop, self.messages)
        for lo in range(start, stop, self.chunk_size):
            yield self.chunk(lo, min(lo + self.chunk_size, stop))

    @property
    def rate_fraction(self) -> tuple[int, int]:
        """The rate as an exact fraction num/den of messages per ms, so that
        ``floor(i / rate) = i * den // num`` in integers (float division drifts by 1 ms)."""
        rate = Fraction(self.rate_per_ms).limit_denominator(1_000_000)
        return rate.numerator, rate.denominator

    @property
    def duration_ms(self) -> float:
        """Publishing time of the whole stream."""
        return self.messages / self.rate_per_ms
