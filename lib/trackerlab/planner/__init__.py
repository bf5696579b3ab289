"""Capacity planning: a workload in a Pulsar user's terms in, memory per tracker out.

- :mod:`~trackerlab.planner.workload`: the vocabulary (``20k/s``, ``1h``, ``2%``) and
  Pulsar's defaults (:mod:`~trackerlab.planner.defaults`);
- :mod:`~trackerlab.planner.streams`: the entries each tracker sees;
- :mod:`~trackerlab.planner.snapshot`: a tracker's steady-state counts, fast (closed forms,
  sampled buckets) or exact (message level);
- :mod:`~trackerlab.planner.memory_plan`: every design of every tracker, totals, recommendations;
- :mod:`~trackerlab.planner.plan_report`: the answer, as a table, JSON or CSV;
- :mod:`~trackerlab.planner.inputs`: the text a user types (workload keys, ``--budget``,
  ``--max-early``) parsed as ``trackerlab plan`` parses it;
- :mod:`~trackerlab.planner.frames` and :mod:`~trackerlab.planner.form`: the plan as tables
  and figures for the ``capacity_planner`` notebook, and its JupyterLab form.
"""

from trackerlab.planner import form, frames, inputs
from trackerlab.planner.form import PlannerForm
from trackerlab.planner.inputs import PlanInputs, parse_inputs
from trackerlab.planner.memory_plan import Choice, Plan, PlanRow, delayed_rows, nack_rows, plan
from trackerlab.planner.plan_report import answer, as_csv, as_json, table
from trackerlab.planner.workload import FIELDS, PlanWorkload

__all__ = [
    "FIELDS",
    "Choice",
    "Plan",
    "PlanInputs",
    "PlanRow",
    "PlanWorkload",
    "PlannerForm",
    "answer",
    "as_csv",
    "as_json",
    "delayed_rows",
    "form",
    "frames",
    "inputs",
    "nack_rows",
    "parse_inputs",
    "plan",
    "table",
]
