"""A naive negative-ack tracker: the list of every nack request ``(ledgerId, entryId, due)``.

Each design of ``NegativeAcksTracker`` is a rule for which requests it keeps:

- versions A (``HashMap<MessageId, Long>``) and B (``ConcurrentLongLongPairHashMap``):
  ``put`` overwrites, so one request per position, the last one
  (:meth:`NaiveNackRequests.latest`, :meth:`NaiveNackRequests.pop_position`);
- PIP-393 (time buckets of ``2^bits`` ms): one request per position and bucket
  ``trimLowerBit(due, bits) = due & (-1L << bits)`` (:meth:`NaiveNackRequests.stored`,
  :meth:`NaiveNackRequests.pop_due_buckets`).

Times are in whatever unit the tracker uses (ns for A and B, ms for PIP-393).
"""

from __future__ import annotations

Request = tuple[int, int, int]


def trim_lower_bit(time: int, bits: int) -> int:
    """``trimLowerBit(timestamp, bits) = timestamp & (-1L << bits)``."""
    return time & (-1 << bits)


class NaiveNackRequests:
    """Every request in arrival order. ``nack`` O(1), the views O(requests)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def nack(self, ledger: int, entry: int, due: int) -> None:
        """``negativeAcknowledge``: a request to redeliver the entry at ``due``."""
        self.requests.append((ledger, entry, due))

    # ---------------------------------------------------------------- versions A and B

    def latest(self) -> dict[tuple[int, int], int]:
        """Position -> due time of its last request (``put`` overwrites)."""
        return {(led, e): due for led, e, due in self.requests}

    def pop_position(self, ledger: int, entry: int) -> int:
        """Forget every request of the position; the due time of its last one (KeyError when
        none is pending)."""
        due = self.latest()[ledger, entry]
        self.requests = [r for r in self.requests if (r[0], r[1]) != (ledger, entry)]
        return due

    # ---------------------------------------------------------------- PIP-393

    def stored(self, bits: int) -> set[Request]:
        """``(ledger, entry, bucket)``: one per position and bucket of ``2^bits``."""
        return {(led, e, trim_lower_bit(due, bits)) for led, e, due in self.requests}

    def pop_due_buckets(self, bits: int, time: int) -> list[Request]:
        """Remove and return the requests whose bucket starts at or before ``time``."""
        due = [r for r in self.requests if trim_lower_bit(r[2], bits) <= time]
        self.requests = [r for r in self.requests if trim_lower_bit(r[2], bits) > time]
        return due

    def __iter__(self):
        return iter(self.requests)
