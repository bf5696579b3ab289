"""A gap-coded run-length stream of packed positions in one ``byte[]``: the leaf of
``time-buckets-hier``.

Java shape: one ``byte[]`` per bucket, a 24-byte header then tokens::

    int used, count, lastValue, lastTokenAt, valueStart; char lastOffset, flags;

Elements are (ledger slot, entry id, tick offset) appended in ascending ``slot << 16 | entryId``
order (elements of one position in arrival order; a repeated (position, offset) is dropped).
A **token** covers a run of elements with consecutive entry ids of one ledger at one offset:

- a LEB128 head ``(payload << 2) | switch << 1 | run``, ``payload = (gap << w) | offset``, ``w``
  the bucket's offset bits (8 or 16) and ``gap`` the entry id minus the previous element's;
- ``switch`` marks the first element of a ledger in the bucket: its ``gap`` is the entry id
  itself and the 2-byte slot follows the head;
- ``run`` marks a run: the LEB128 count of further elements follows.

Appending extends the last token when it can (set the run bit in place: the head keeps its
length; rewrite the tail count, which may grow by one byte). Each bucket's consecutive entry
ids cost one token; a random entry id costs ``ceil((log2 gap + w + 2) / 7)`` bytes.
Growth: ``length += max(length >> 3, 16)`` from 32 bytes, so a stream's length is
:func:`stream_length` of its used bytes. :func:`~trackerlab.models.time_buckets.lab_stats.stream_token_bytes`
computes the same byte counts from arrays (the reducer's count-only path); tests hold them equal.
"""

from __future__ import annotations

from collections.abc import Iterator

from trackerlab.models.proposals.base import GrowthRule

HEADER_BYTES = 24
INITIAL_LENGTH = 32


GROWTH = GrowthRule(INITIAL_LENGTH, 16)


def stream_length(used: int) -> int:
    """``byte[]`` length of a stream that grew to ``used`` bytes (header included). O(log)."""
    return GROWTH.length(used)


def varint(x: int) -> bytes:
    """LEB128 of a non-negative int."""
    out = bytearray()
    while True:
        byte = x & 0x7F
        x >>= 7
        if x:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_varint(buf: bytes | bytearray, pos: int) -> tuple[int, int]:
    """The LEB128 value at ``pos`` and the position after it."""
    x = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        x |= (byte & 0x7F) << shift
        if byte < 0x80:
            return x, pos
        shift += 7


class GapStream:
    """One bucket's stream (Python model): the token bytes are real, the header is kept as
    attributes. ``append`` is O(1) plus the growth copy; ``elements`` decodes, O(bytes)."""

    __slots__ = (
        "count",
        "last_entry",
        "last_offset",
        "last_slot",
        "last_token_at",
        "length",
        "offset_bits",
        "run_extra",
        "tokens",
        "value_offsets",
    )

    def __init__(self, offset_bits: int) -> None:
        self.offset_bits = offset_bits
        self.tokens = bytearray()
        self.count = 0
        self.last_slot = self.last_entry = self.last_offset = -1
        self.last_token_at = 0
        self.run_extra = 0  # further elements in the last token's run
        self.value_offsets: set[int] = set()  # offsets of the last position (the Java scan)
        self.length = INITIAL_LENGTH

    @property
    def used(self) -> int:
        """Bytes in use: the header and the tokens (the ``byte[]`` is longer). O(1)."""
        return HEADER_BYTES + len(self.tokens)

    def accepts(self, slot_order: int, entry: int, last_order: int) -> bool:
        """True when (slot, entry) is not before the last element (appendable). O(1)."""
        return self.count == 0 or (slot_order, entry) >= (last_order, self.last_entry)

    def append(self, slot: int, entry: int, offset: int) -> bool:
        """Append one element at or after the last position; False if already there. O(1)
        amortized (the ``byte[]`` grows by 1/8, a copy of O(length))."""
        same_slot = self.count > 0 and slot == self.last_slot
        if same_slot and entry == self.last_entry:
            if offset in self.value_offsets:
                return False
            self._token(0, offset, switch=False)
            self.value_offsets.add(offset)
        elif same_slot and entry == self.last_entry + 1 and offset == self.last_offset:
            self._extend_run()
            self.value_offsets = {offset}
        else:
            if same_slot:
                self._token(entry - self.last_entry, offset, switch=False)
            else:
                self._token(entry, offset, switch=True, slot=slot)
            self.value_offsets = {offset}
        self.count += 1
        self.last_slot, self.last_entry, self.last_offset = slot, entry, offset
        self._grow()
        return True

    def _token(self, gap: int, offset: int, switch: bool, slot: int = 0) -> None:
        self.last_token_at = len(self.tokens)
        head = (((gap << self.offset_bits) | offset) << 2) | (int(switch) << 1)
        self.tokens += varint(head)
        if switch:
            self.tokens += slot.to_bytes(2, "big")
        self.run_extra = 0

    def _extend_run(self) -> None:
        if self.run_extra == 0:
            self.tokens[self.last_token_at] |= 1  # the run bit: the head's lowest bit
        else:
            del self.tokens[len(self.tokens) - len(varint(self.run_extra)) :]
        self.run_extra += 1
        self.tokens += varint(self.run_extra)

    def _grow(self) -> None:
        if self.used > self.length:
            self.length = GROWTH.length(self.used)

    def elements(self) -> Iterator[tuple[int, int, int]]:
        """Every element ``(slot, entry, offset)`` in stream order (decodes the tokens).
        O(tokens)."""
        buf, pos, end = self.tokens, 0, len(self.tokens)
        slot = entry = 0
        mask = (1 << self.offset_bits) - 1
        while pos < end:
            head, pos = read_varint(buf, pos)
            run, switch, payload = head & 1, (head >> 1) & 1, head >> 2
            offset, gap = payload & mask, payload >> self.offset_bits
            if switch:
                slot = int.from_bytes(buf[pos : pos + 2], "big")
                pos += 2
                entry = gap
            else:
                entry += gap
            extra = 0
            if run:
                extra, pos = read_varint(buf, pos)
            for k in range(extra + 1):
                yield slot, entry + k, offset
            entry += extra
