"""Serialized sizes of Roaring bitmaps: what Java's ``serializedSizeInBytes()`` and
``Roaring64Bitmap.getLongSizeInBytes()`` return (RoaringBitmap 1.6.10), the figures Pulsar's
``getBufferMemoryUsage`` is built from.

- **Portable format** (``RoaringBitmap``/``MutableRoaringBitmap.serializedSizeInBytes``,
  ``RoaringArray.serializedSizeInBytes``): without run containers a 4-B cookie, a 4-B container
  count, 4 B of key and cardinality and a 4-B offset per container, then the payloads (array
  2 B per value, bitmap 8,192 B, run ``2 + 4 runs``). With run containers the header is the
  cookie with the count, the run-flag bitset, 4 B per container and offsets only from 4
  containers on. An empty bitmap is 8 B.
- **Roaring64Bitmap** (``getLongSizeInBytes() = serializedSizeInBytes()`` =
  ``HighLowContainer.serializedSizeInBytes``): 1 B, then, if not empty, the ART
  (``Art.serializeSizeInBytes``: 8 B plus per node a 4-B header, a branch's prefix bytes, and
  a body: leaf 14 B, Node4 4 B, Node16 16 B, Node48 256 B, Node256 32 B) and the containers
  (``Containers.serializedSizeInBytes``: 4 + 16 B, 5 B per second-level array, per slot 6 B +
  payload, or 1 B for an empty slot). An empty bitmap is 1 B; one value 60 B.

Neither is a heap size: ``trackerlab.models.delayed.buffer_metric`` sets them beside the JVM
layout model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import trackerlab.sizing.jvm_roaring as jr

#: ``Node.serializeNodeBodySizeInBytes`` by node: leaf (6-B key + 8-B container index), Node4,
#: Node16, Node48 (``LONGS_USED * 8`` = 256), Node256 (4 longs).
ART_BODY = {"leaf": 14, 4: 4, 16: 16, 48: 256, 256: 32}
ART_HEADER = 4  # node type, count (short), prefix length


def portable_bytes(containers: int, data_bytes: int, has_run: bool = False) -> int:
    """``serializedSizeInBytes`` of a 32-bit bitmap with ``containers`` containers whose
    payloads total ``data_bytes``."""
    if has_run:
        offsets = 4 * containers if containers >= 4 else 0
        return 4 + (containers + 7) // 8 + 4 * containers + offsets + data_bytes
    return 8 + 8 * containers + data_bytes


def payload_bytes(cardinality: np.ndarray) -> np.ndarray:
    """Payload of array (2 B per value, up to 4096) or bitmap (8,192 B) containers."""
    card = np.asarray(cardinality, dtype=np.int64)
    return np.where(card <= jr.ARRAY_MAX_CARDINALITY, 2 * card, 8192)


def _art_nodes(node) -> tuple[int, int]:
    """(branch bytes, leaves) of an ART replayed by :func:`jvm_roaring._art_insert`."""
    if isinstance(node, bytes):
        return 0, 1
    kind = jr._node_kind(len(node.children))
    total = ART_HEADER + len(node.prefix) + ART_BODY[kind]
    leaves = 0
    for child in node.children.values():
        b, n = _art_nodes(child)
        total += b
        leaves += n
    return total, leaves


def roaring64_serialized_bytes(
    keys: Sequence[int], cardinalities: Sequence[int], slots: int | None = None
) -> int:
    """``Roaring64Bitmap.getLongSizeInBytes()`` for high keys inserted in this order with these
    container cardinalities (array/bitmap containers). ``slots``: the ``Container[]`` length
    (default :func:`jvm_roaring.art_container_array_capacity`, an add-only bitmap). O(keys * 6).
    """
    n = len(keys)
    if n == 0:
        return 1
    root = None
    for k in keys:
        root = jr._art_insert(root, int(k).to_bytes(6, "big"), 0)
    branches, leaves = _art_nodes(root)
    art = 8 + branches + leaves * (ART_HEADER + ART_BODY["leaf"])
    cap = jr.art_container_array_capacity(n) if slots is None else slots
    containers = (
        4 + 16 + 5 + n * 6 + (cap - n) + int(payload_bytes(np.asarray(cardinalities)).sum())
    )
    return 1 + art + containers


def roaring64_serialized_fixed(n_keys: int) -> int:
    """``getLongSizeInBytes()`` minus the payloads, for ``n_keys`` high keys below 256 (entry ids
    below 2^24: one branch node with a 5-B prefix over the leaves, or a lone leaf)."""
    if not 1 <= n_keys <= 256:
        raise ValueError(f"n_keys must be in 1..256, got {n_keys}")
    return roaring64_serialized_bytes(list(range(n_keys)), [0] * n_keys)
