"""trackerlab's answers held against a running Pulsar broker (``trackerlab broker run``):
:mod:`.delayed` (Shared subscriptions with ``deliverAfter``: the live delayed-delivery tracker
measured with JOL beside the broker's metric and ``trackerlab plan``)."""
