"""Benchmarks behind ``trackerlab bench``: rates and ratios measured in one run, never timed
tests. One module per target (``build``, ``heaps``, ``receiver_queue``, ``sweep``); the
pending-acks cycles live with their notebook (:mod:`trackerlab.experiments.pending_acks_op_cost`).
"""
