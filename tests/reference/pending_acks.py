"""A naive PendingAcksMap: one dict from (ledgerId, entryId) to (remaining, stickyKeyHash).

Semantics from apache/pulsar ``PendingAcksMap.java`` (see trackerlab.models.pending_acks.common);
two layout quirks are switches: the packed versions refuse a negative remaining count in
``updateRemainingUnacked`` (#26030), and the #26024 bucket removes nothing from the mark-delete
ledger when ``markDeleteEntryId < 0`` (``hasEntryUpTo`` returns false).
"""

from __future__ import annotations

from trackerlab.models.pending_acks.common import to_int32


class NaivePendingAcksMap:
    """``PendingAcksMap``: every method O(1) but ``remove_all_up_to`` and ``rows``, O(n log n)."""

    def __init__(self, refuses_negative_update: bool, skips_negative_boundary: bool) -> None:
        self.acks: dict[tuple[int, int], tuple[int, int]] = {}
        self.closed = False
        self.refuses_negative_update = refuses_negative_update
        self.skips_negative_boundary = skips_negative_boundary

    def add(self, ledger: int, entry: int, remaining: int, hash_: int, allowed: bool) -> bool:
        if self.closed or not allowed:
            return False
        self.acks[ledger, entry] = (remaining, hash_)
        return True

    def remove(self, ledger: int, entry: int, expected=None) -> tuple[int, int] | None:
        pair = self.acks.get((ledger, entry))
        if pair is None or (expected is not None and pair != expected):
            return None
        return self.acks.pop((ledger, entry))

    def update(self, ledger: int, entry: int, delta: int) -> bool:
        pair = self.acks.get((ledger, entry))
        if pair is None:
            return False
        remaining = to_int32(pair[0] - delta)
        if remaining < 0 and self.refuses_negative_update:
            return False
        self.acks[ledger, entry] = (remaining, pair[1])
        return True

    def remove_all_up_to(self, ledger: int, entry: int) -> list[tuple[int, int, int, int]]:
        """Removed ``(led, e, remaining, hash)``, sorted by position."""

        def goes(pos: tuple[int, int]) -> bool:
            if pos[0] < ledger:
                return True
            if pos[0] > ledger or (self.skips_negative_boundary and entry < 0):
                return False
            return pos[1] <= entry

        gone = sorted(pos for pos in self.acks if goes(pos))
        return [(led, e, *self.acks.pop((led, e))) for led, e in gone]

    def rows(self) -> list[tuple[int, int, int, int]]:
        return [(led, e, r, h) for (led, e), (r, h) in sorted(self.acks.items())]
