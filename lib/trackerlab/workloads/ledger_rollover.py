"""When a managed ledger rolls over: ``ManagedLedgerImpl.currentLedgerIsFull()``.

``apache/pulsar`` ``managed-ledger/src/main/java/org/apache/bookkeeper/mledger/impl/
ManagedLedgerImpl.java``: after an add completes, the ledger is full when
``entries >= managedLedgerMaxEntriesPerLedger`` (50,000) or its size reaches
``managedLedgerMaxSizePerLedgerMbytes`` (2,048 MiB), or when it is older than
``managedLedgerMaxLedgerRolloverTimeMinutes`` (240); with
``managedLedgerMinLedgerRolloverTimeMinutes`` (10) > 0 it switches only once it is older than
that minimum. The next entry goes to a new ledger (spec ``pulsar-structures.md`` §3.1).

At a constant entry rate every ledger then holds the same number of entries
(:meth:`LedgerRollover.entries_per_ledger`), which is all the aggregated simulation needs.
The per-message workloads (:class:`~trackerlab.workloads.stream.Workload`) use that number as their
``entries_per_ledger``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class LedgerRollover:
    max_entries: int = 50_000
    max_size_bytes: int = 2048 * MIB
    min_rollover_ms: float = 10 * 60_000
    max_rollover_ms: float = 240 * 60_000

    def entries_per_ledger(self, entries_per_ms: float, entry_bytes: int) -> int:
        """Entries of each ledger at a constant ``entries_per_ms``: the quota (entries or
        bytes), stretched to the minimum age, cut at the maximum age. O(1)."""
        if entries_per_ms <= 0:
            raise ValueError(f"entries_per_ms must be > 0, got {entries_per_ms}")
        quota = min(self.max_entries, max(1, math.ceil(self.max_size_bytes / max(entry_bytes, 1))))
        # entry k (1-based) is added (k - 1) / rate after the first one
        entries = quota
        if self.min_rollover_ms > 0 and (quota - 1) / entries_per_ms <= self.min_rollover_ms:
            entries = math.floor(self.min_rollover_ms * entries_per_ms) + 2
        # past the maximum age a ledger is full, but with a minimum set it still switches only
        # once older than that minimum: a minimum above the maximum wins
        # (ManagedLedgerImpl.java:4437-4452 at v4.2.4, managed-ledger-4.2.4-sources.jar)
        cut_ms = max(self.max_rollover_ms, self.min_rollover_ms)
        if self.max_rollover_ms > 0 and (entries - 1) / entries_per_ms > cut_ms:
            entries = max(1, math.ceil(cut_ms * entries_per_ms) + 1)
        return int(entries)

    def span_ms(self, entries_per_ms: float, entry_bytes: int) -> float:
        """Publication time covered by one ledger."""
        return self.entries_per_ledger(entries_per_ms, entry_bytes) / entries_per_ms
