"""Machine-independent operation cost: what a Java structure touches and allocates.

A model with an :class:`OpCost` attached in its ``cost`` attribute counts, per call:

- ``objects``: heap objects dereferenced at random addresses (tree entries, boxed keys,
  value objects, per-ledger buckets) — each a likely cache miss;
- ``lookups`` / ``slots``: hash lookups and the slots they examine (the first slot of a
  lookup is a random access, the rest of the probe is sequential);
- ``scanned``: array elements or ``long`` words read in sequence (table scans, backward
  shifts, BitSet ``nextSetBit``);
- ``allocs`` / ``alloc_bytes``: objects allocated and their JVM bytes (HotSpot layout model,
  no escape analysis: every ``Long`` box outside the ``Long.valueOf`` cache counts).

:attr:`OpCost.touches` folds them into one number, ``random + sequential / 8`` (eight
``long`` slots per 64-byte cache line). It is a stated unit, not a timing: it ranks layouts,
it does not predict nanoseconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: ``long`` slots per 64-byte cache line: the weight of a sequential slot in ``touches``.
SLOTS_PER_LINE = 8


@dataclass
class OpCost:
    """Counters, all ints; add them up over a run and divide by the operations."""

    objects: int = 0
    lookups: int = 0
    slots: int = 0
    scanned: int = 0
    allocs: int = 0
    alloc_bytes: int = 0

    def visit(self, n: int = 1) -> None:
        """``n`` objects dereferenced."""
        self.objects += n

    def lookup(self, probes: int) -> None:
        """One hash lookup that examined ``probes`` slots."""
        self.lookups += 1
        self.slots += probes

    def scan(self, n: int) -> None:
        """``n`` array elements read in sequence."""
        self.scanned += n

    def allocate(self, n_objects: int, n_bytes: int) -> None:
        self.allocs += n_objects
        self.alloc_bytes += n_bytes

    @property
    def random(self) -> int:
        """Random accesses: objects dereferenced + the first slot of every hash lookup."""
        return self.objects + self.lookups

    @property
    def sequential(self) -> int:
        """Sequential reads: further probe slots + scanned elements."""
        return self.slots - self.lookups + self.scanned

    @property
    def touches(self) -> float:
        """``random + sequential / 8``: estimated cache lines touched."""
        return self.random + self.sequential / SLOTS_PER_LINE

    def per_op(self, operations: int) -> dict[str, float]:
        """Every counter (and random, sequential, touches) divided by ``operations``."""
        row = asdict(self) | {
            "random": self.random,
            "sequential": self.sequential,
            "touches": self.touches,
        }
        return {k: v / operations for k, v in row.items()}
