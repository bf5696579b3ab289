"""The broker's pending-acks map (``PendingAcksMap``, one per consumer), as catalog entries.

One :class:`~trackerlab.models.design.Design` per layout of
:data:`~trackerlab.models.pending_acks.layouts.LAYOUTS`; the catalog registers each under the
layout's name (a test holds the two equal). ``trackerlab size pending-acks-*`` builds the seed's dataset: the request's
messages as entries appended over ``ledgers`` ledgers from the workload's first ledger.
"""

from __future__ import annotations

from trackerlab.models.design import PENDING_ACKS, Design
from trackerlab.models.pending_acks.common import PendingAcksModel
from trackerlab.models.pending_acks.layouts import LAYOUTS, Dataset
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult

FILE = "pulsar-broker/src/main/java/org/apache/pulsar/broker/service/PendingAcksMap.java"
#: Pulsar PRs and the release lines of each layout (spec pulsar-structures.md §4.1).
HISTORY: dict[str, tuple[tuple[str, ...], str]] = {
    "pending-acks-treemap": (("#25413", "#26019"), "master 2026-03 to 2026-06 (fastutil removed)"),
    "pending-acks-packed-rb": (("#26030", "#26019"), "master from 2026-07"),
    "pending-acks-packed-avl": (("#26522",), "master from 2026-09"),
    "pending-acks-open-hash": (("#26028",), "not merged (closed)"),
    "pending-acks-open-hash-bitset": (("#26024",), "not merged (open draft)"),
    "pending-acks-pair-hash": ((), "before 4.0 (Consumer.pendingAcks)"),
    # PIP-379 (its PR number was not read); PendingAcksMap.java index id 25453246362
    "pending-acks-rb-pairs": ((), "4.0.0 – 4.2.x (PIP-379)"),
}


def _sizer(name: str):
    def size(request: SizeRequest) -> SizeResult:
        """The layout holding the seed's dataset. O(entries)."""
        w = request.workload
        model = Dataset(w.messages, request.ledgers, w.start_ledger).build(name)
        return SizeResult(
            structure=name,
            entries=len(model),
            python_bytes=python_real_bytes(model),
            jvm_bytes=model.jvm_bytes(request.jvm_layout),
            details={"java": model.java, "ledger buckets": model.ledger_count()},
        )

    return size


def _design(cls: type[PendingAcksModel]) -> Design:
    prs, releases = HISTORY[cls.name]
    return Design(
        tracker=PENDING_ACKS,
        summary=f"PendingAcksMap as {cls.java}",
        java=cls.java,
        source=FILE,
        prs=prs,
        releases=releases,
        memory="heap",
        options=("ledgers", "layout"),
        build=_sizer(cls.name),
        columns=("python", "jvm"),
    )


TREEMAP = _design(LAYOUTS["pending-acks-treemap"])
PACKED_RB = _design(LAYOUTS["pending-acks-packed-rb"])
PACKED_AVL = _design(LAYOUTS["pending-acks-packed-avl"])
OPEN_HASH = _design(LAYOUTS["pending-acks-open-hash"])
OPEN_HASH_BITSET = _design(LAYOUTS["pending-acks-open-hash-bitset"])
PAIR_HASH = _design(LAYOUTS["pending-acks-pair-hash"])
RB_PAIRS = _design(LAYOUTS["pending-acks-rb-pairs"])
