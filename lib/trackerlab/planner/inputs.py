"""The plan's inputs as a user types them, parsed once for every entry point.

``trackerlab plan``, the ``capacity_planner`` notebook and its JupyterLab form
(:mod:`trackerlab.planner.form`) take the same text: workload keys (:data:`FIELDS`: ``20k/s``,
``uniform:0:1h``, ``2%``), ``--budget`` (``512MiB``) and ``--max-early`` (``1s``). They are
parsed here, in the order the command line parses them (the workload in :data:`FIELDS` order,
then the budget, then the early delivery), so a bad value is the same one-line
:class:`~trackerlab.core.errors.UsageError` wherever it was typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trackerlab.core.errors import UsageError
from trackerlab.planner.memory_plan import Plan, plan
from trackerlab.planner.workload import FIELDS, PlanWorkload
from trackerlab.workloads.units import parse_bytes, parse_duration_ms

__all__ = ["PlanInputs", "parse_budget", "parse_inputs", "parse_max_early"]


def parse_budget(text: object | None, name: str = "--budget") -> int | None:
    """``--budget``: a size above 0 (``512MiB``), or None when not given. O(len(text))."""
    if text is None:
        return None
    budget = parse_bytes(text, name)
    if budget <= 0:
        raise UsageError(f"{name} must be above 0, got {text!r}")
    return budget


def parse_max_early(text: object | None, name: str = "--max-early") -> float | None:
    """``--max-early``: a duration (``1s``) in ms, or None when not given; an empty or blank
    text is refused (it is no duration; the form and the notebook pass None). O(len(text))."""
    return None if text is None else parse_duration_ms(text, name)


def _given(value: object) -> bool:
    """Whether a value was given: None, an empty or blank text are a flag left out."""
    return value is not None and not (isinstance(value, str) and not value.strip())


@dataclass(frozen=True)
class PlanInputs:
    """A parsed workload with the plan's budget (bytes) and largest early delivery (ms)."""

    workload: PlanWorkload
    budget_bytes: int | None = None
    max_early_ms: float | None = None

    def plan(self, **options: object) -> Plan:
        """:func:`~trackerlab.planner.memory_plan.plan` of these inputs (``options``: ``seed``,
        ``exact``, ``designs``...)."""
        return plan(
            self.workload,
            budget_bytes=self.budget_bytes,
            max_early_ms=self.max_early_ms,
            **options,  # type: ignore[arg-type]  # options is dict[str, object] of parsed keyword options
        )


def parse_inputs(
    values: Mapping[str, object], budget: object | None = None, max_early: object | None = None
) -> PlanInputs:
    """Workload keys (flag or YAML names, ``-`` or ``_``; a value left out or empty takes its
    default), ``--budget`` and ``--max-early`` as ``trackerlab plan`` parses them: the first
    bad value in the command line's order is its one-line UsageError. O(keys)."""
    rank = {f.name: i for i, f in enumerate(FIELDS)}
    given = sorted(
        ((str(k), v) for k, v in values.items() if _given(v)),
        key=lambda kv: rank.get(kv[0].replace("-", "_"), len(rank)),
    )
    workload = PlanWorkload.parse(dict(given))
    return PlanInputs(
        workload,
        parse_budget(budget if _given(budget) else None),
        parse_max_early(max_early if _given(max_early) else None),
    )
