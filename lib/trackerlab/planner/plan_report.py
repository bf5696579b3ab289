"""A plan as a broker engineer reads it: a terminal table with units, JSON or CSV.

Sizes print in binary units (KiB, MiB, GiB: powers of 1024), counts with thousands
separators, durations with their unit. :func:`answer` is the one-paragraph answer the
terminal output and the capacity-planner report lead with.
"""

from __future__ import annotations

import csv
import io
import math

from trackerlab.core import strict_json
from trackerlab.planner.memory_plan import Choice, Plan, PlanRow, unsized_reason
from trackerlab.planner.workload import PlanWorkload
from trackerlab.workloads.units import about_duration_ms, format_bytes, format_duration_ms


def _count(x: float) -> str:
    if not math.isfinite(x):
        return "-"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= size:
            return f"{x / size:.3g}{unit}"
    return f"{x:,.0f}"


def _ms(x: float | None) -> str:
    """An exact setting (a tick, a bucket width): its shortest exact spelling."""
    return "-" if x is None else format_duration_ms(round(x)) if x else "0"


def _about(x: float | None) -> str:
    """A bound on early or late delivery: three digits in a readable unit (``42.6h``)."""
    return "-" if x is None else about_duration_ms(x) if x else "0"


def answer(plan: Plan) -> str:
    """The plan in a broker engineer's words: the release's design of each tracker, totals."""
    w = plan.workload
    v = w.values
    subs = f"{v['subscriptions']} subscription{'s' if v['subscriptions'] != 1 else ''}"
    head = f"A topic publishing {w.describe('rate')}"
    if v["partitions"] != 1:
        head += f" over {v['partitions']} partitions"
    head += f" to {subs}"
    if v["delayed"]:
        head += f", {w.describe('delayed')} of messages delayed ({w.describe('delay')})"
    if v["nacked"]:
        head += f", {w.describe('nacked')} nacked"
    parts = []
    delayed = plan.own("delayed-delivery index")
    if delayed is not None:
        where = "off-heap" if delayed.memory == "direct" else "heap"
        parts.append(
            f"delayed index {format_bytes(delayed.per_topic)} of broker {where} "
            f"({delayed.design}, tick {w.describe('tick')}, delivered up to "
            f"{_about(delayed.early_ms)} early)"
        )
    elif any(r.tracker == "delayed-delivery index" for r in plan.rows):
        parts.append(f"delayed index not sized ({unsized_reason(w, 'delayed')})")
    nack = plan.own("negative-ack tracker")
    if nack is not None:
        parts.append(f"negative-ack trackers {format_bytes(nack.per_topic)} on the clients")
    pending = plan.own("pending acks")
    if pending is not None:
        parts.append(f"pending acks {format_bytes(pending.per_topic)} on the broker")
    queue = plan.own("receiver queue")
    if queue is not None:
        parts.append(f"receiver queues up to {format_bytes(queue.per_topic)} on the clients")
    text = f"{head}, on Pulsar {w.defaults.version}, needs per topic: " + "; ".join(parts) + "."
    if v["topics"] != 1 and delayed is not None and delayed.per_broker is not None:
        text += (
            f" For {v['topics']:,} such topics a broker holds "
            f"{format_bytes(delayed.per_broker)} of delayed index."
        )
    for choice in plan.choices:
        if choice.value is None:
            text += f" {choice.reason}."
        else:
            unit = (
                format_duration_ms(choice.value)
                if choice.setting == "tick"
                else f"{choice.value} bits"
            )
            text += f" Recommended {choice.setting.replace('_', ' ')}: {unit}, the {choice.reason}."
    return text


HEADERS = (
    ("design", 30),
    ("", 2),
    ("memory", 6),
    ("entries", 8),
    ("steady", 11),
    ("peak", 11),
    ("B/entry", 8),
    ("entries/GiB", 11),
    ("early <=", 9),
    ("late <=", 8),
    ("per sub", 11),
    ("per topic", 11),
    ("per broker", 11),
)


def _memory(memory: str) -> str:
    """Where a design's bytes live, in the table's 6 characters."""
    kind = memory.split(" (")[0]
    return "both" if "+" in kind else kind


def _cells(row: PlanRow) -> list[str]:
    return [
        row.design,
        "*" if row.default else "",
        _memory(row.memory),
        _count(row.entries),
        format_bytes(row.steady_bytes),
        format_bytes(row.peak_bytes),
        f"{row.bytes_per_entry:.3g}" if math.isfinite(row.bytes_per_entry) else "-",
        _count(row.entries_per_gib),
        _about(row.early_ms),
        _about(row.late_ms),
        format_bytes(row.per_subscription),
        format_bytes(row.per_topic),
        "-" if row.per_broker is None else format_bytes(row.per_broker),
    ]


def _tracker_lines(tracker: str, rows: list[PlanRow]) -> list[str]:
    """One tracker's table: where it lives, the header, one line per design with its note."""
    first = rows[0]
    out = ["", f"{tracker}: {first.side}, one per {first.per}"]
    out.append(
        "  " + " ".join(h.ljust(n) if i == 0 else h.rjust(n) for i, (h, n) in enumerate(HEADERS))
    )
    for row in rows:
        cells = _cells(row)
        out.append(
            "  "
            + " ".join(
                c.ljust(n) if i == 0 else c.rjust(n)
                for i, (c, (_, n)) in enumerate(zip(cells, HEADERS, strict=True))
            )
            + (f"  ({row.note})" if row.note else "")
        )
    return out


def _choice_lines(choice: Choice, w: PlanWorkload) -> list[str]:
    """A tuned setting's table (tick or nack precision bits): bucket width, early delivery
    and bytes per setting, the chosen one marked ``<``."""
    key = "tick_ms" if choice.setting == "tick" else "nack_precision_bits"
    scope = next(k for k in choice.table[0] if k.endswith("_bytes"))
    out = ["", f"{choice.setting.replace('_', ' ')} for {choice.design}: {choice.reason}"]
    out.append(
        f"  {'setting':>10} {'bucket':>9} {'early <=':>9} {scope.removesuffix('_bytes').replace('_', ' '):>14}"
    )
    for row in choice.table:
        value = int(_number(row, key))
        shown = value == choice.value or value == (
            w.defaults.tick_ms if key == "tick_ms" else w.defaults.nack_precision_bits
        )
        if key == "tick_ms" and not shown and value & (value - 1):
            continue  # the largest tick of each bucket width: listed when chosen
        mark = " <" if value == choice.value else ""
        setting = _ms(value) if key == "tick_ms" else f"{row[key]} bits"
        early = None if row["early_ms"] is None else _number(row, "early_ms")
        out.append(
            f"  {setting:>10} {_ms(_number(row, 'bucket_ms')):>9} {_about(early):>9} "
            f"{format_bytes(_number(row, scope)):>14}{mark}"
        )
    return out


def _number(row: dict[str, object], key: str) -> float:
    """A numeric cell of a choice's table (ticks, widths, bytes are ints; rates floats)."""
    value = row[key]
    if not isinstance(value, int | float):
        raise TypeError(f"choice table: {key} is {value!r}, not a number")
    return value


def table(plan: Plan) -> str:
    """The terminal report: answer, one table per tracker, recommendations, assumptions."""
    w = plan.workload
    out = [answer(plan), ""]
    if plan.warnings:
        out += [f"Note: {text}." for text in plan.warnings] + [""]
    bound = max((r.error_bound for r in plan.rows), default=0.0)
    mode = (
        "message-level snapshot (--exact)"
        if plan.exact
        else "closed forms and sampled buckets"
        + (f", sampled bytes within ±{100 * bound:.2g}% (95%)" if bound else "")
    )
    out.append(f"Steady state from {mode}; sizes are JVM bytes (heap or direct as marked), ")
    out.append("KiB/MiB/GiB = 1024-based; * = what Pulsar " + str(w.defaults.version) + " runs.")
    trackers = list(dict.fromkeys(r.tracker for r in plan.rows))
    for tracker in trackers:
        out += _tracker_lines(tracker, [r for r in plan.rows if r.tracker == tracker])
    for choice in plan.choices:
        out += _choice_lines(choice, w)
    out += [
        "",
        "Assumed (Pulsar's defaults for "
        + str(w.defaults.version)
        + "): "
        + ", ".join(f"{name.replace('_', '-')} {text}" for name, text in plan.assumed()),
    ]
    return "\n".join(out)


def as_json(plan: Plan) -> str:
    w = plan.workload
    doc = {
        "answer": answer(plan),
        "pulsar_version": w.defaults.version,
        "workload": {name: w.describe(name) for name in w.values},
        "assumed": dict(plan.assumed()),
        "exact": plan.exact,
        "warnings": plan.warnings,
        "rows": [r.as_dict() for r in plan.rows],
        "recommendations": [
            {
                "tracker": c.tracker,
                "design": c.design,
                "setting": c.setting,
                "value": c.value,
                "reason": c.reason,
                "table": c.table,
            }
            for c in plan.choices
        ],
    }
    return strict_json.dumps(doc, indent=2)


def as_csv(plan: Plan) -> str:
    rows = [r.as_dict() for r in plan.rows]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()
