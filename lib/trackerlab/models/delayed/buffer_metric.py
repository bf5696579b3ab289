"""What each delayed tracker's ``getBufferMemoryUsage()`` reports, from the index it holds.

The broker publishes it as the topic stat ``delayedMessageIndexSizeInBytes`` (#15867). Each
form computes it its own way (research notes §3D; issue #23699 asks whether it can be trusted):

=================================  ===========================================================
``bytes-capacity``                 ``TripleLongPriorityQueue.bytesCapacity()`` (2.x – 4.0.0,
                                   4.0.6+): the queue's allocated longs x 8, direct memory
``roaring64-long-size``            Σ ``Roaring64Bitmap.getLongSizeInBytes()`` over every (bucket,
                                   ledger) bitmap, a full stream per call (#23611, 4.0.1 – 4.0.5,
                                   4.1.x, 4.2.x): the ART serialized size
``serialized-delta``               the ``memoryUsage`` counter of form c (master): the live
                                   leaves' ``serializedSizeInBytes()`` minus 8 B each
``topic-long-size-delta``          PIP-448's ``bufferMemoryBytes``: Σ (``getLongSizeInBytes()`` −
                                   1), reported by every subscription's view for the whole topic
``pip195-queues``                  PIP-195: the two queues' ``bytesCapacity()``; its bitmaps and
                                   buckets are not counted
=================================  ===========================================================

None of them counts a tree node, a bitmap or leaf object, a lock or capacity slack. The
functions below compute the figures from a content table (one row per (bucket, ledger, 2^16
chunk): :meth:`TimeBucketIndex.content`), vectorized.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from trackerlab.models.time_buckets.shapes import BUCKET, CARD, CHUNK, LEDGER
from trackerlab.sizing.roaring_serialized import (
    payload_bytes,
    roaring64_serialized_bytes,
    roaring64_serialized_fixed,
)

FORMS = (
    "bytes-capacity",
    "roaring64-long-size",
    "serialized-delta",
    "topic-long-size-delta",
    "pip195-queues",
)


@cache
def _fixed_table() -> np.ndarray:
    return np.array([1] + [roaring64_serialized_fixed(k) for k in range(1, 257)], dtype=np.int64)


def _bitmaps(content: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start row and chunk count of every (bucket, ledger) bitmap of a sorted content table."""
    ident = content[:, [BUCKET, LEDGER]]
    starts = np.flatnonzero(np.r_[True, np.any(ident[1:] != ident[:-1], axis=1)])
    return starts, np.diff(np.r_[starts, len(content)])


def roaring64_long_size(content: np.ndarray) -> int:
    """Σ ``getLongSizeInBytes()`` of the Roaring64Bitmaps holding ``content`` (built by
    ``addLong``, chunk keys in ascending order). O(chunks) numpy, plus one ART replay per
    bitmap with 2^24 or larger entry ids."""
    if len(content) == 0:
        return 0
    starts, counts = _bitmaps(content)
    payload = int(payload_bytes(content[:, CARD]).sum())
    max_key = np.maximum.reduceat(content[:, CHUNK], starts)
    small = max_key < 256
    total = payload + int(_fixed_table()[counts[small]].sum())
    for s, n in zip(starts[~small].tolist(), counts[~small].tolist(), strict=True):
        rows = content[s : s + n]
        total += roaring64_serialized_bytes(rows[:, CHUNK].tolist(), [0] * n)
    return total


def serialized_delta(content: np.ndarray) -> int:
    """Form c's ``memoryUsage``: Σ over leaves of ``8 + 8 * containers + payload`` − 8."""
    if len(content) == 0:
        return 0
    return int(8 * len(content) + payload_bytes(content[:, CARD]).sum())


def topic_long_size_delta(content: np.ndarray) -> int:
    """PIP-448's ``bufferMemoryBytes`` after adds only: Σ (``getLongSizeInBytes()`` − 1)."""
    if len(content) == 0:
        return 0
    return roaring64_long_size(content) - len(_bitmaps(content)[0])
