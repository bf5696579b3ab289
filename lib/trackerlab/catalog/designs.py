"""The catalog: every design trackerlab models, under the one name every command uses.

One line per design. Each :class:`~trackerlab.models.design.Design` lives in its model
package (``models/<component>/designs.py``, or the proposal's own module) with the Java it
follows and the functions that size it; adding a design is a model module, a line here and
its tests (README, "Adding a design"). ``trackerlab designs`` prints this table.
"""

from __future__ import annotations

from trackerlab.catalog.registry import Catalog
from trackerlab.models.delayed import delayed_designs as delayed
from trackerlab.models.delayed import long_bitmap_buckets, topic_index
from trackerlab.models.nack import nack_designs as nack
from trackerlab.models.pending_acks import pending_acks_designs as pending_acks
from trackerlab.models.proposals import (
    adaptive_leaf,
    flat_buckets,
    hier_buckets,
    sealed_buckets,
    sorted_chunks,
)
from trackerlab.models.receiver_queue import receiver_queue_designs as receiver_queue

CATALOG = Catalog()

# negative-ack tracker (client, per consumer)
CATALOG.register("nack-hash-map", nack.HASH_MAP)
CATALOG.register("nack-pair-map", nack.PAIR_MAP)
CATALOG.register("nack-pair-map-16", nack.PAIR_MAP_16)
CATALOG.register("nack-time-buckets", nack.TIME_BUCKETS)
CATALOG.register("nack-time-buckets-runs", nack.TIME_BUCKETS_RUNS)
# delayed-delivery index (broker, per subscription)
CATALOG.register("triple-heap", delayed.TRIPLE_HEAP)
CATALOG.register("time-buckets", delayed.TIME_BUCKETS)
CATALOG.register("time-buckets-runs", delayed.TIME_BUCKETS_RUNS)
CATALOG.register("pip195-buckets", delayed.PIP195_BUCKETS)
CATALOG.register("delay-level-topics", delayed.DELAY_LEVEL_TOPICS)
CATALOG.register("time-buckets-flat", flat_buckets.DESIGN)
CATALOG.register("time-buckets-long-bitmap", long_bitmap_buckets.DESIGN)
CATALOG.register("long-bitmap", long_bitmap_buckets.LEAF_DESIGN)
CATALOG.register("pip448-topic-index", topic_index.DESIGN)
CATALOG.register("time-buckets-sealed", sealed_buckets.DESIGN)
CATALOG.register("time-buckets-adaptive", adaptive_leaf.DESIGN)
CATALOG.register("time-buckets-hier", hier_buckets.DESIGN)
CATALOG.register("sorted-chunks", sorted_chunks.DESIGN)
# pending acks (broker, per consumer)
CATALOG.register("pending-acks-treemap", pending_acks.TREEMAP)
CATALOG.register("pending-acks-packed-rb", pending_acks.PACKED_RB)
CATALOG.register("pending-acks-packed-avl", pending_acks.PACKED_AVL)
CATALOG.register("pending-acks-open-hash", pending_acks.OPEN_HASH)
CATALOG.register("pending-acks-open-hash-bitset", pending_acks.OPEN_HASH_BITSET)
CATALOG.register("pending-acks-pair-hash", pending_acks.PAIR_HASH)
CATALOG.register("pending-acks-rb-pairs", pending_acks.RB_PAIRS)
# receiver queue (client, per consumer)
CATALOG.register("receiver-queue-go", receiver_queue.GO)
CATALOG.register("receiver-queue-java", receiver_queue.JAVA)

# names earlier versions used, for "did you mean" hints only
for _old, _new in {
    "heap": "triple-heap",
    "delayed-heap": "triple-heap",
    "delayed-buckets": "time-buckets",
    "pip195": "pip195-buckets",
    "levels": "delay-level-topics",
    "nack-buckets": "nack-time-buckets",
    "nack-hashmap": "nack-hash-map",
    "pair-map-16": "nack-pair-map-16",
    "pair-hash-map": "nack-pair-map",
    "treemap": "pending-acks-treemap",
    "packed-rb": "pending-acks-packed-rb",
    "packed-avl": "pending-acks-packed-avl",
    "open-hash": "pending-acks-open-hash",
    "open-hash-bitset": "pending-acks-open-hash-bitset",
    "pair-hash": "pending-acks-pair-hash",
}.items():
    CATALOG.renamed(_old, _new)
