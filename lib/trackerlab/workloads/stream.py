"""Message streams as numpy chunks: publish time, ledger, entry, batch index, delay.

A :class:`Workload` describes a producer (rate, ledger rollover, batching) and which
messages a consumer nacks or delays, with what delay. :meth:`Workload.chunks` yields
:class:`MessageChunk` objects of at most ``chunk_size`` messages, so memory stays bounded
for 1e8+ messages. Every random value comes from :mod:`trackerlab.core.rng`, keyed by the
message index, so the stream is identical for any chunk size or Spark partitioning.

Conventions (PIP-393's and the TimeBucket blog's test loops):

- message ``i`` is published at ``start_time_ms + floor(i / rate_per_ms)``;
- it belongs to entry ``e = i // batch_size`` (batch index ``i % batch_size``); entry ``e``
  is ``entryId = e % entries_per_ledger`` of ledger ``start_ledger + e // entries_per_ledger``
  (``managedLedgerMaxEntriesPerLedger`` rollover; the time-based rollover minimum is ignored);
- the tracked time is ``deliver_at = publish + delay`` (the nack time plus the redelivery
  delay for negative acks; ``deliverAt`` for delayed delivery).

Delays are :class:`~trackerlab.workloads.delay_spec.DelaySpec` strings. Pattern specs
(``--pattern``): ``all``, ``fraction:F`` (each message independently), ``burst:ON:OFF`` (ON
messages selected, OFF skipped, repeating).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

import numpy as np

from trackerlab.core import rng
from trackerlab.core.errors import UsageError
from trackerlab.core.params import MAX_LONG, check_float, check_int, check_seed
from trackerlab.workloads.delay_spec import DelaySpec

PATTERN_KINDS = ("all", "fraction", "burst")
#: Counter-based random streams of a workload seed (:mod:`trackerlab.core.rng`): the delay of
#: message i, whether a ``fraction`` pattern selects it, and which mixture part it takes.
DELAY_STREAM, SELECT_STREAM, MIX_STREAM = 1, 2, 3
#: 2023-11-14T22:13:20Z rounded down to a multiple of 2^20 ms, so buckets of up to 2^20 ms
#: start aligned (PIP-393's test used System.currentTimeMillis(), i.e. any alignment).
DEFAULT_START_MS = 1_700_000_000_000 & ~((1 << 20) - 1)
#: Rates in messages per ms: from one message per 11.6 days to a billion per second.
MIN_RATE_PER_MS = 1e-9
MAX_RATE_PER_MS = 1e6
#: Messages of one workload (a sweep's cost guard bounds what is practical).
MAX_MESSAGES = 10**12
#: Every time of a stream (publish, deliverAt) stays below 2^53 ms: exact as a double, far
#: from int64 overflow in sums.
MAX_TIME_MS = 1 << 53
#: ``num * den`` of the rate fraction stays below this, so ``(i % num) * den`` fits int64.
_FRACTION_PRODUCT = 1 << 62


@dataclass(frozen=True)
class PatternSpec:
    """Which messages are nacked or delayed: all, a random fraction, or periodic bursts."""

    kind: str = "all"
    fraction: float = 1.0
    on: int = 1
    off: int = 0
    #: the spec string it was parsed from (not part of equality)
    text: str = field(default="all", compare=False)

    @classmethod
    def parse(cls, text: str) -> PatternSpec:
        """Parse a pattern spec; UsageError naming it and the valid kinds. O(len(text))."""
        return replace(cls._parse(text), text=text.strip())

    @classmethod
    def _parse(cls, text: str) -> PatternSpec:
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

    @cached_property
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
    delay: DelaySpec = field(default_factory=lambda: DelaySpec.parse("fixed:0"))
    pattern: PatternSpec = field(default_factory=PatternSpec)
    start_ms: int = DEFAULT_START_MS
    seed: int = 0
    chunk_size: int = 1 << 20

    def __post_init__(self) -> None:
        check_int("messages", self.messages, 0, MAX_MESSAGES)
        check_float("rate (messages per ms)", self.rate_per_ms, MIN_RATE_PER_MS, MAX_RATE_PER_MS)
        check_int("entries per ledger", self.entries_per_ledger, 1, (1 << 31) - 1)
        check_int("batch size", self.batch_size, 1, 1 << 20)
        entries = -(-self.messages // self.batch_size)
        last = max(entries - 1, 0) // self.entries_per_ledger
        check_int("start ledger", self.start_ledger, 0, MAX_LONG - last)
        check_int("start time (ms)", self.start_ms, 0, MAX_TIME_MS)
        check_seed("seed", self.seed)
        check_int("chunk size", self.chunk_size, 1, 1 << 26)
        # an exponential's max is inf, but its samples stay below 40 means (< 2^51 ms)
        longest = self.delay.max_ms if math.isfinite(self.delay.max_ms) else 0.0
        if not self.start_ms + self.duration_ms + longest < MAX_TIME_MS:
            raise UsageError(
                f"{self.messages:,} messages at {self.rate_per_ms:g} per ms with delays up "
                f"to {self.delay.max_ms:g} ms end past 2^53 ms; use fewer messages, a "
                "higher rate or shorter delays"
            )

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
        per = 1000.0 if rate_unit == "s" else 1.0
        rate_per_ms = (
            check_float(
                f"rate (messages per {rate_unit})",
                rate,
                MIN_RATE_PER_MS * per,
                MAX_RATE_PER_MS * per,
            )
            / per
        )
        return cls(
            messages=messages,
            rate_per_ms=rate_per_ms,
            delay=DelaySpec.parse(delay),
            pattern=PatternSpec.parse(pattern),
            **kwargs,  # type: ignore[arg-type]  # kwargs is dict[str, object] of the stream's keyword options
        )

    def chunk(self, start: int, stop: int) -> MessageChunk:
        """Messages ``start .. stop - 1`` (selected only). Identical for any chunking.

        Random values are drawn only at the selected messages' counters, so a sparse pattern
        costs in proportion to what it selects. O(n)."""
        n = stop - start
        if self.pattern.kind == "all":
            index = np.arange(start, stop, dtype=np.int64)
        else:
            full = np.arange(start, stop, dtype=np.int64)
            if self.pattern.kind == "fraction":
                u = rng.uniforms(self.seed, SELECT_STREAM, start, n)
                index = full[self.pattern.select(full, u)]
            else:
                index = full[self.pattern.select(full, np.empty(0))]
        publish = self.start_ms + publish_offsets(index, *self.rate_fraction)
        if self.batch_size == 1:
            entry_seq = index
            batch_index = np.zeros(len(index), dtype=np.int32)
        else:
            entry_seq, batch_index = np.divmod(index, self.batch_size)
            batch_index = batch_index.astype(np.int32)
        ledger, entry = np.divmod(entry_seq, self.entries_per_ledger)
        ledger += self.start_ledger
        if self.delay.kind == "fixed":
            delay = np.full(len(index), int(self.delay.params[0]), dtype=np.int64)
        else:
            u = rng.uniforms_at(self.seed, DELAY_STREAM, index)
            v = rng.uniforms_at(self.seed, MIX_STREAM, index) if self.delay.kind == "mix" else None
            delay = self.delay.sample(u, v)
        return MessageChunk(
            index=index,
            publish_ms=publish,
            ledger=ledger,
            entry=entry,
            batch_index=batch_index,
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
        """The rate as a fraction num/den of messages per ms, so that ``floor(i / rate)``
        is computed in integers (float division drifts by 1 ms): :func:`rate_fraction`."""
        return rate_fraction(self.rate_per_ms)

    @property
    def duration_ms(self) -> float:
        """Publishing time of the whole stream."""
        return self.messages / self.rate_per_ms


def rate_fraction(rate_per_ms: float) -> tuple[int, int]:
    """``(num, den)`` with ``num / den`` the rate, ``num >= 1`` and ``num * den < 2^62``.

    The shortest decimal that reads back as the float (what the user typed: ``4.9e-7`` is
    49/10^8) when it is that small, else the closest continued-fraction convergent of the
    float within the bound. Never rounds a positive rate to 0 (the old
    ``limit_denominator(10^6)`` turned rates below 5e-7 msg/ms into 0).
    """
    exact = Fraction(repr(float(rate_per_ms)))
    if exact.numerator * exact.denominator < _FRACTION_PRODUCT:
        return exact.numerator, exact.denominator
    x = Fraction(float(rate_per_ms))
    best = (max(1, round(float(x))), 1)
    h0, h1, k0, k1 = 0, 1, 1, 0  # convergents h/k of x's continued fraction
    while True:
        a = math.floor(x)
        h0, h1, k0, k1 = h1, a * h1 + h0, k1, a * k1 + k0
        if h1 * k1 >= _FRACTION_PRODUCT:
            break
        if h1 >= 1:
            best = (h1, k1)
        if x == a:
            break
        x = 1 / (x - a)
    return best


def publish_offsets(index: np.ndarray, num: int, den: int) -> np.ndarray:
    """``floor(i * den / num)`` for int64 message indices, without overflow: ``(i // num) *
    den + (i % num) * den // num`` (the second product is below ``num * den < 2^62``)."""
    if den == 1:
        return index // num
    if num == 1:
        return index * den
    return (index // num) * den + (index % num) * den // num


def last_message_per_entry(
    workload: Workload,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(ledgerId, entryId, publish_ms, deliver_at_ms)`` per entry holding a selected message.

    Messages of one entry are consecutive, and the entry keeps its last selected message: a
    second nack overwrites a map's value, and a batch has one deliverAt. The trackers that
    hold one key per entry (the nack maps, the heap) see exactly these. O(messages), in the
    workload's chunks.
    """
    parts = [(c.ledger, c.entry, c.publish_ms, c.deliver_at) for c in workload.chunks()]
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty, empty
    ledger, entry, publish, deliver_at = (np.concatenate(col) for col in zip(*parts, strict=True))
    last = np.ones(len(ledger), dtype=bool)
    last[:-1] = (ledger[1:] != ledger[:-1]) | (entry[1:] != entry[:-1])
    return ledger[last], entry[last], publish[last], deliver_at[last]
