"""Structures ``trackerlab size`` can build and size, registered by the model modules.

A model module decorates a builder with :func:`structure`; the builder takes a
:class:`SizeRequest` (the workload options shared by every structure) and returns a
:class:`SizeResult` holding the three columns, never mixed: ``python_bytes`` (measured,
:mod:`trackerlab.sizing.python`), ``jvm_bytes`` (+ ``jvm_direct_bytes`` for off-heap
buffers; the layout model) and ``theory_bytes`` (the seed's formula as published; the
corrected formula in ``theory_corrected_bytes``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from trackerlab.errors import UsageError
from trackerlab.params import check_choice, check_int, check_positive
from trackerlab.sizing.jvm import LAYOUTS, JvmLayout
from trackerlab.workloads import DelaySpec, PatternSpec, Workload

#: Modules whose import registers structures (added by the model issues).
STRUCTURE_MODULES: tuple[str, ...] = (
    "trackerlab.experiments.time_bucket_runs",
    "trackerlab.sizing.heap_structures",
    "trackerlab.models.pending_acks",
)


@dataclass(frozen=True)
class SizeRequest:
    """Workload options shared by every structure; each builder reads the ones it needs."""

    messages: int = 100_000
    rate_per_ms: float = 1.0
    trim_bits: int = 10
    tick_ms: int = 1000
    entries_per_ledger: int = 50_000
    start_ledger: int = 10_000
    ledgers: int = 1
    batch_size: int = 1
    delay: str = "fixed:60000"
    pattern: str = "all"
    seed: int = 0
    layout: str = "compressed"
    run_optimize: bool = False

    def __post_init__(self) -> None:
        check_int("--messages", self.messages, 0)
        check_positive("--rate-per-ms", self.rate_per_ms)
        check_int("--trim-bits", self.trim_bits, 0, 62)
        check_int("--tick-ms", self.tick_ms, 1)
        check_int("--entries-per-ledger", self.entries_per_ledger, 1)
        check_int("--start-ledger", self.start_ledger, 0)
        check_int("--ledgers", self.ledgers, 1)
        check_int("--batch-size", self.batch_size, 1)
        check_int("--seed", self.seed, 0)
        check_choice("--layout", self.layout, LAYOUTS)

    @property
    def jvm_layout(self) -> JvmLayout:
        return LAYOUTS[self.layout]

    def workload(self) -> Workload:
        """The message stream these options describe (delay and pattern specs parsed)."""
        return Workload(
            messages=self.messages,
            rate_per_ms=self.rate_per_ms,
            entries_per_ledger=self.entries_per_ledger,
            start_ledger=self.start_ledger,
            batch_size=self.batch_size,
            delay=DelaySpec.parse(self.delay),
            pattern=PatternSpec.parse(self.pattern),
            seed=self.seed,
        )


#: The byte columns of a SizeResult, in display order.
SIZE_COLUMNS = (
    "python_bytes",
    "jvm_bytes",
    "jvm_direct_bytes",
    "theory_bytes",
    "theory_corrected_bytes",
)


@dataclass
class SizeResult:
    """The three columns for one structure; ``entries`` is what bytes-per-entry divides by."""

    structure: str
    entries: int
    python_bytes: int | None = None
    jvm_bytes: int | None = None
    jvm_direct_bytes: int | None = None
    theory_bytes: float | None = None
    theory_corrected_bytes: float | None = None
    details: dict[str, object] = field(default_factory=dict)

    def per_entry(self, value: float | None) -> float | None:
        if value is None or self.entries == 0:
            return None
        return value / self.entries

    def as_dict(self) -> dict[str, object]:
        row = asdict(self)
        for column in SIZE_COLUMNS:
            row[column.replace("_bytes", "_bytes_per_entry")] = self.per_entry(row[column])
        return row


Builder = Callable[[SizeRequest], SizeResult]


@dataclass(frozen=True)
class Structure:
    name: str
    help: str
    build: Builder
    uses: tuple[str, ...]


_STRUCTURES: dict[str, Structure] = {}


def structure(name: str, help: str, uses: tuple[str, ...] = ()) -> Callable[[Builder], Builder]:
    """Register ``builder`` as ``trackerlab size NAME``; ``uses`` lists the options it reads."""

    def decorate(builder: Builder) -> Builder:
        if name in _STRUCTURES:
            raise RuntimeError(f"structure {name!r} registered twice")
        _STRUCTURES[name] = Structure(name, help, builder, uses)
        return builder

    return decorate


def structures() -> dict[str, Structure]:
    """Every registered structure, by name."""
    for module in STRUCTURE_MODULES:
        importlib.import_module(module)
    return dict(sorted(_STRUCTURES.items()))


def build(name: str, request: SizeRequest) -> SizeResult:
    """Build and size one structure; UsageError for an unknown name."""
    known = structures()
    if name not in known:
        raise UsageError(
            f"unknown structure {name!r}; choose one of: {', '.join(known) or '(none yet)'}"
        )
    return known[name].build(request)
