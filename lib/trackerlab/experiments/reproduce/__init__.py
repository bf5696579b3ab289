"""Every published number against the toolkit: one small function per id, and its verdict.

The reproducer modules below register their functions with
:func:`~trackerlab.experiments.reproduce.number_registry.reproduces` when imported; importing this
package (which any import of its modules does first) imports them all, explicitly.
``trackerlab reproduce`` and the notebooks call :func:`reproduce`, so a table in a report and
on the terminal can never disagree.
"""

from trackerlab.experiments.reproduce import heaps, pending_acks, receiver_queue, time_buckets
from trackerlab.experiments.reproduce.number_registry import (
    BY_CONSTRUCTION,
    CATEGORIES,
    DEVIATES,
    EXPLAINED,
    PENDING,
    REPRODUCED,
    SEED_WRONG,
    TOLERANCES,
    Reproduction,
    Verdict,
    as_rows,
    describe_counts,
    format_results,
    load_verdicts,
    reproduce,
    summary,
)
from trackerlab.experiments.reproduce.published import PublishedNumber, load_published
from trackerlab.experiments.reproduce.time_buckets import BLOG, PIP_X50, PIP_X500

#: The reproducer modules, in the order their ids appear.
REPRODUCERS = (time_buckets, heaps, pending_acks, receiver_queue)

__all__ = [
    "BLOG",
    "BY_CONSTRUCTION",
    "CATEGORIES",
    "DEVIATES",
    "EXPLAINED",
    "PENDING",
    "PIP_X50",
    "PIP_X500",
    "REPRODUCED",
    "REPRODUCERS",
    "SEED_WRONG",
    "TOLERANCES",
    "PublishedNumber",
    "Reproduction",
    "Verdict",
    "as_rows",
    "describe_counts",
    "format_results",
    "heaps",
    "load_published",
    "load_verdicts",
    "pending_acks",
    "receiver_queue",
    "reproduce",
    "summary",
    "time_buckets",
]
