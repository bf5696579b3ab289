"""Models of Pulsar's message-tracking structures, one package per Pulsar component.

- :mod:`~trackerlab.models.primitives`: the Java collections the trackers are built from;
- :mod:`~trackerlab.models.time_buckets`: the time-bucket index both trackers share;
- :mod:`~trackerlab.models.nack`: the client's negative-ack tracker;
- :mod:`~trackerlab.models.delayed`: the broker's delayed-delivery index;
- :mod:`~trackerlab.models.pending_acks`: the broker's pending-acks map;
- :mod:`~trackerlab.models.receiver_queue`: the client's auto-scaled receiver queue.

Each module docstring names the Java class, its file in apache/pulsar and the version or PR
it follows. A model offers the same semantics two ways: a per-message API that mirrors
Pulsar's methods, and a bulk path over numpy chunks; tests keep them identical and check
both against a naive reference (``tests/reference``). Each design is described by a
:class:`~trackerlab.models.design.Design` (``models/<component>/designs.py``) that the
catalog registers by name.
"""

from trackerlab.models.design import TRACKERS, Design, PointCounts, Tracker

__all__ = ["TRACKERS", "Design", "PointCounts", "Tracker"]
