"""What to size and the three columns it is sized in.

A :class:`SizeRequest` is a message stream (:class:`~trackerlab.workloads.stream.Workload`)
plus the options a design reads (its precision, the JVM layout...). A :class:`SizeResult`
holds the three columns, never mixed: ``python_bytes`` (measured, :mod:`trackerlab.sizing.python`),
``jvm_bytes`` (the heap layout model; off-heap buffers in ``jvm_direct_bytes``) and
``theory_bytes`` (the seed's formula as published; the corrected formula in
``theory_corrected_bytes``). Every design of the catalog takes the one and returns the other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from trackerlab.core.params import check_choice, check_int
from trackerlab.sizing.jvm import LAYOUTS, ROARING_ARTS, JvmLayout
from trackerlab.workloads.stream import Workload

#: Design options a request carries, with what they mean (``trackerlab size --help``).
OPTIONS = {
    "trim_bits": "negativeAckPrecisionBitCnt: timestamp bits trimmed per nack bucket",
    "tick_ms": "delayedDeliveryTickTimeMillis: the delayed tracker's tick",
    "ledgers": "ledgers the pending acks spread over",
    "layout": "JVM layout: compressed, uncompressed-oops or uncompressed",
    "run_optimize": "run-optimize the bitmaps (an improvement, not Pulsar's behaviour)",
    "shape": "the Java declaration to size, one of the design's shapes (default: its first)",
    "roaring": "RoaringBitmap ART generation: 1.6 (1.5.3 and later) or 1.2 (before 1.5.3)",
}


@dataclass(frozen=True)
class SizeRequest:
    """A workload and the design options; each design reads the options it declares."""

    workload: Workload
    trim_bits: int = 8
    tick_ms: int = 1000
    ledgers: int = 1
    layout: str = "compressed"
    run_optimize: bool = False
    shape: str | None = None
    roaring: str = "1.6"

    def __post_init__(self) -> None:
        check_int("--nack-precision-bits", self.trim_bits, 0, 62)
        check_int("--tick (ms)", self.tick_ms, 1)
        check_int("--ledgers", self.ledgers, 1)
        check_choice("--layout", self.layout, LAYOUTS)
        check_choice("RoaringBitmap ART generation", self.roaring, ROARING_ARTS)

    @property
    def jvm_layout(self) -> JvmLayout:
        return replace(LAYOUTS[self.layout], roaring_art=self.roaring)


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
    #: model-specific figures (counts, bytes, labels) by name
    details: dict[str, Any] = field(default_factory=dict)

    def per_entry(self, value: float | None) -> float | None:
        if value is None or self.entries == 0:
            return None
        return value / self.entries

    def as_dict(self) -> dict[str, object]:
        row = asdict(self)
        for column in SIZE_COLUMNS:
            row[column.replace("_bytes", "_bytes_per_entry")] = self.per_entry(row[column])
        return row
