"""trackerlab's answers held against a running Pulsar broker (``trackerlab broker run``):
:mod:`.delayed` (Shared subscriptions with ``deliverAfter``: the live delayed-delivery tracker
measured with JOL beside the broker's metric and ``trackerlab plan``), :mod:`.nack` (a Java
consumer nacking a share of messages: its ``NegativeAcksTracker`` measured with JOL in the
client's JVM), :mod:`.pending_acks` (consumers holding, never sending or nacking their acks:
each consumer's ``pendingAcks`` measured in the broker), :mod:`.results` (their provenance and
Parquet files) and :mod:`.stored` (the stored results read back for
``notebooks/real_broker.ipynb``, no broker needed)."""

from trackerlab.experiments.real_broker import delayed, stored

__all__ = ["delayed", "stored"]
