"""trackerlab's answers held against a running Pulsar broker (``trackerlab broker run``):
:mod:`.delayed` (Shared subscriptions with ``deliverAfter``: the live delayed-delivery tracker
measured with JOL beside the broker's metric and ``trackerlab plan``) and :mod:`.stored` (the
stored results read back for ``notebooks/real_broker.ipynb``, no broker needed)."""

from trackerlab.experiments.real_broker import delayed, stored

__all__ = ["delayed", "stored"]
