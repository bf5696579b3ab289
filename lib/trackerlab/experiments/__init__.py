"""Notebook back-ends, and the reproduction of every published number.

Each module returns tables (pandas, explicit units in column names) that one notebook plots:

- :mod:`~trackerlab.experiments.bucket_sweeps`: negative_acks and delayed_delivery;
- :mod:`~trackerlab.experiments.massive_delayed` (+ :mod:`~trackerlab.experiments.massive_reference`):
  massive_delayed, and ``trackerlab simulate delayed`` (the report's frames and figures:
  :mod:`~trackerlab.experiments.massive_report`);
- :mod:`~trackerlab.experiments.pending_acks_sizes`, :mod:`~trackerlab.experiments.pending_acks_op_cost`:
  pending_acks;
- :mod:`~trackerlab.experiments.pulsar_versions`: pulsar_versions, and ``trackerlab simulate
  delayed --pulsar-version`` (its tables, figures and conclusions:
  :mod:`~trackerlab.experiments.pulsar_versions_report`);
- :mod:`~trackerlab.experiments.receiver_queue_sweeps`: receiver_queue (its tables and
  sentences: :mod:`~trackerlab.experiments.receiver_queue_report`);
- :mod:`~trackerlab.experiments.sweep_report`: spark_sweeps;
- :mod:`~trackerlab.experiments.steady_state`: the one definition of steady-state bytes per
  entry (delayed_delivery, massive_delayed, spark_sweeps);
- :mod:`~trackerlab.experiments.design_lab`: design_lab (the proposals over a workload matrix;
  its tables and sentences: :mod:`~trackerlab.experiments.design_lab_conclusions`);
- :mod:`~trackerlab.experiments.design_lab_realistic` (the matrix on Pulsar's own workload;
  its large sorted-chunks cells: :mod:`~trackerlab.experiments.design_lab_large`),
  :mod:`~trackerlab.experiments.design_lab_comparisons` (six other designs, with sources) and
  :mod:`~trackerlab.experiments.design_lab_verdict` (latency, broker table, comparisons and the
  one-sentence answer): design_lab's part II;
- :mod:`~trackerlab.experiments.real_broker.stored`: real_broker (stored ``trackerlab broker
  run`` results, read without a broker);
- :mod:`~trackerlab.experiments.reproduce`: ``trackerlab reproduce`` and every notebook's
  reproduction table.

The reports whose tables and sentences need :mod:`trackerlab.reporting`'s formatters keep them
one layer up, in ``reporting/<report>_report.py`` (delayed_delivery, negative_acks,
pending_acks, overview).
"""

from trackerlab.experiments import (
    bucket_sweeps,
    design_lab,
    design_lab_comparisons,
    design_lab_conclusions,
    design_lab_realistic,
    design_lab_verdict,
    massive_delayed,
    massive_reference,
    massive_report,
    pending_acks_op_cost,
    pending_acks_sizes,
    pulsar_versions,
    pulsar_versions_report,
    receiver_queue_report,
    receiver_queue_sweeps,
    reproduce,
    steady_state,
    sweep_report,
)

__all__ = [
    "bucket_sweeps",
    "design_lab",
    "design_lab_comparisons",
    "design_lab_conclusions",
    "design_lab_realistic",
    "design_lab_verdict",
    "massive_delayed",
    "massive_reference",
    "massive_report",
    "pending_acks_op_cost",
    "pending_acks_sizes",
    "pulsar_versions",
    "pulsar_versions_report",
    "receiver_queue_report",
    "receiver_queue_sweeps",
    "reproduce",
    "steady_state",
    "sweep_report",
]
