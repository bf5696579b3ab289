"""Primitive Java collections the trackers are built from, each as its Java class behaves:
``ConcurrentLongLongPairHashMap``, ``Long2LongOpenHashMap``, ``java.util.BitSet``, fastutil's
open-hash iteration order and ``TripleLongPriorityQueue``."""

from trackerlab.models.primitives.java_bitset import JavaBitSet
from trackerlab.models.primitives.long2long_open_hash import Long2LongOpenHashMap
from trackerlab.models.primitives.pair_hash_map import ConcurrentLongLongPairHashMap
from trackerlab.models.primitives.triple_heap import TripleLongPriorityQueue

__all__ = [
    "ConcurrentLongLongPairHashMap",
    "JavaBitSet",
    "Long2LongOpenHashMap",
    "TripleLongPriorityQueue",
]
