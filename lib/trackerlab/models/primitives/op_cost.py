"""Machine-independent operation cost: what a Java structure touches and allocates.

A model with an :class:`OpCost` attached in its ``cost`` attribute counts, per call, under
these stated rules (no cache simulation, no JIT):

- **random** accesses, one cache line each: every tree node on a root-to-leaf search (a
  ``java.util.TreeMap`` node is two objects, the entry and its boxed ``Long`` key; a fastutil
  node is one), every per-ledger bucket object reached, the node fix-up after an unlink, a
  BitSet word set or cleared, and the first slot of a hash lookup in each parallel array it
  reads (``used`` + ``keys``, + ``values`` when the value is read). A lookup of the key the same
  map looked up last is a cache hit and costs no random access;
- **streamed** bytes, read in address order: further probe slots and backward-shift scans
  (17 B per slot of pulsar-common's map: ``long`` key + ``long`` value + ``boolean`` used),
  whole-table scans, BitSet words scanned by ``nextSetBit``, and in-order tree walks, whose
  nodes sit in key order because dispatch appends entries in key order and the JVM
  bump-allocates them next to each other (a TreeMap entry with its ``Long`` and ``IntIntPair``
  is 88 B, a fastutil entry 40 B);
- ``nodes`` / ``lookups`` / ``probes``: tree nodes visited, hash lookups and slots examined
  (work counters, whatever their locality);
- ``allocs`` / ``alloc_bytes``: objects allocated and their JVM bytes (HotSpot layout model,
  compressed oops, no escape analysis: every ``Long`` box outside ``Long.valueOf``'s cache
  counts).

:attr:`OpCost.touches` = ``random + streamed_bytes / 64`` is the estimated number of cache
lines touched: a unit that ranks layouts, not a timing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: Bytes per cache line.
LINE_BYTES = 64


@dataclass
class OpCost:
    """Counters, all ints; add them up over a run and divide by the operations."""

    random: int = 0
    streamed_bytes: int = 0
    nodes: int = 0
    lookups: int = 0
    probes: int = 0
    allocs: int = 0
    alloc_bytes: int = 0

    def visit(self, n: int = 1) -> None:
        """Count ``n`` objects read at unrelated addresses. O(1)."""
        self.random += n

    def search(self, depth: int, objects_per_node: int = 1) -> None:
        """Count a root-to-leaf tree search through ``depth`` nodes. O(1)."""
        self.nodes += depth
        self.random += depth * objects_per_node

    def walk(self, n_nodes: int, node_bytes: int) -> None:
        """Count an in-order walk over ``n_nodes`` nodes laid out in key order. O(1)."""
        self.nodes += n_nodes
        self.streamed_bytes += n_nodes * node_bytes

    def lookup(self, probes: int, arrays: int, slot_bytes: int, repeat: bool = False) -> None:
        """Count a hash lookup examining ``probes`` slots of ``arrays`` parallel arrays. O(1)."""
        self.lookups += 1
        self.probes += probes
        if not repeat:
            self.random += arrays
        self.streamed_bytes += (probes - 1) * slot_bytes

    def stream(self, n_bytes: int) -> None:
        """Count ``n_bytes`` read in address order. O(1)."""
        self.streamed_bytes += n_bytes

    def allocate(self, n_objects: int, n_bytes: int) -> None:
        """Count ``n_objects`` allocated, ``n_bytes`` JVM bytes in all. O(1)."""
        self.allocs += n_objects
        self.alloc_bytes += n_bytes

    @property
    def touches(self) -> float:
        """``random + streamed_bytes / 64``: estimated cache lines touched. O(1)."""
        return self.random + self.streamed_bytes / LINE_BYTES

    def per_op(self, operations: int) -> dict[str, float]:
        """Every counter (and ``touches``) divided by ``operations``. O(1)."""
        row = asdict(self) | {"touches": self.touches}
        return {k: v / operations for k, v in row.items()}
