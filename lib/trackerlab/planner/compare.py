"""``plan --pulsar-version A,B,C``: one workload across releases, heap and direct apart.

Each release is planned with its own defaults and designs (:mod:`trackerlab.planner.defaults`)
for the values the user gave; the table shows each tracker's release design per broker (the
broker-side trackers: what ``-Xmx`` and ``-XX:MaxDirectMemorySize`` must hold) and per client
consumer (one consumer's units: its partitions), and the lines below it say, between
neighbouring releases, what changed: the design, its Java shape, the RoaringBitmap
generation, and the defaults the plan assumed.
"""

from __future__ import annotations

from dataclasses import dataclass

from trackerlab.core.errors import UsageError
from trackerlab.planner.memory_plan import Plan, plan
from trackerlab.planner.workload import FIELDS, PlanWorkload
from trackerlab.workloads.units import format_bytes

#: The most releases one comparison prints side by side.
MAX_VERSIONS = 8
#: Release facts compared between neighbours: PulsarDefaults attribute -> what it is.
FACTS = {
    "delayed_design": "delayed index design",
    "delayed_shape": "delayed index Java shape",
    "delayed_variant": "delayed index variant",
    "nack_design": "nack tracker design",
    "nack_shape": "nack tracker Java shape",
    "nack_variant": "nack tracker variant",
    "pending_acks_design": "pending acks design",
    "roaring_art": "RoaringBitmap ART generation",
}


def parse_versions(text: str) -> list[str]:
    """``4.0.5,4.0.7,4.1`` -> the list; each must be a known release (one-line UsageError
    naming ``--pulsar-version`` and the member otherwise). O(versions)."""
    from trackerlab.planner.defaults import defaults_for

    versions = [v.strip() for v in str(text).split(",")]
    if any(not v for v in versions) or len(versions) < 2:
        raise UsageError(
            f"--pulsar-version {text!r}: give one release or two to {MAX_VERSIONS} separated "
            "by commas (e.g. 4.0.5,4.0.7,4.1)"
        )
    if len(versions) > MAX_VERSIONS:
        raise UsageError(f"--pulsar-version: at most {MAX_VERSIONS} releases, got {len(versions)}")
    for v in versions:
        try:
            defaults_for(v)
        except UsageError as exc:
            raise UsageError(f"{exc} (in {text!r})") from None
    if len(set(versions)) != len(versions):
        raise UsageError(f"--pulsar-version {text!r}: a release is listed twice")
    return versions


@dataclass
class Comparison:
    versions: list[str]
    plans: list[Plan]


def compare(given: dict[str, object], versions: list[str], **options) -> Comparison:
    """Plan ``given`` (user values, no version) at each release. O(plans)."""
    plans = []
    for v in versions:
        w = PlanWorkload.parse({**given, "pulsar_version": v})
        plans.append(plan(w, **options))
    return Comparison(versions, plans)


def table(c: Comparison) -> str:
    """Releases side by side (see the module docstring)."""
    w0 = c.plans[0].workload
    width = max(14, *(len(p.workload.defaults.version) + 2 for p in c.plans))
    head = f"{'':<40}" + "".join(f"{p.workload.defaults.version:>{width}}" for p in c.plans)
    lines = [f"One workload across releases ({w0.describe('rate')}, per broker: "
             f"{w0.values['topics']:,} topic(s) x {w0.values['subscriptions']} subscription(s); "
             f"per consumer: its {w0.values['partitions']} partition(s))", "", head]  # fmt: skip
    trackers = list(dict.fromkeys(r.tracker for p in c.plans for r in p.rows))
    sums: dict[tuple[str, str, int], int] = {}  # (side, label, plan) -> bytes
    for tracker in trackers:
        rows = [p.own(tracker) for p in c.plans]
        side = next(r.side for r in rows if r is not None)
        scope = "per broker" if side == "broker" else "per consumer"
        lines.append(f"{tracker} ({side}, {scope})")
        lines.append(f"{'  design':<40}" + "".join(
            f"{(r.design if r else 'not modelled'):>{width}}" for r in rows))  # fmt: skip
        for k, label in ((0, "heap"), (1, "direct")):
            cells = []
            for i, r in enumerate(rows):
                if r is None:
                    cells.append("-")
                    continue
                b = _bytes_at(r, int(w0.values["partitions"]))[k]
                sums[(side, label, i)] = sums.get((side, label, i), 0) + b
                cells.append(format_bytes(b))
            lines.append(f"{'  ' + label:<40}" + "".join(f"{x:>{width}}" for x in cells))
    lines.append("")
    labels = {
        ("broker", "heap"): "broker heap (-Xmx)",
        ("broker", "direct"): "broker direct (-XX:MaxDirectMemorySize)",
        ("client", "heap"): "client heap, per consumer",
        ("client", "direct"): "client direct, per consumer",
    }
    for (side, label), text in labels.items():
        cells = [format_bytes(sums.get((side, label, i), 0)) for i in range(len(c.plans))]
        lines.append(f"{text:<40}" + "".join(f"{x:>{width}}" for x in cells))
    lines += ["", "What changes:", *changes(c)]
    return "\n".join(lines)


def _bytes_at(row, partitions: int) -> tuple[int, int]:
    """(heap, direct) of a row at its table scope: a broker's, or one consumer's (one unit
    per partition of the topic). O(1)."""
    if row.side == "broker":
        return row.split(row.per_broker or 0)
    return row.split(row.peak_bytes * partitions)


def _fact(value: object) -> str:
    return "none" if value is None else str(value)


def changes(c: Comparison) -> list[str]:
    """Between neighbouring releases: the facts and assumed defaults that differ, and each
    tracker's memory change (heap + direct at its scope)."""
    out = []
    for a, b in zip(c.plans, c.plans[1:], strict=False):
        da, db = a.workload.defaults, b.workload.defaults
        parts = [f"{label}: {_fact(getattr(da, k))} -> {_fact(getattr(db, k))}"
                 for k, label in FACTS.items() if getattr(da, k) != getattr(db, k)]  # fmt: skip
        for f in FIELDS:
            if f.pulsar and f.name != "pulsar_version" and f.name in a.workload.assumed:
                va, vb = a.workload.describe(f.name), b.workload.describe(f.name)
                if va != vb:
                    parts.append(f"{f.name.replace('_', ' ')}: {va} -> {vb}")
        for tracker in dict.fromkeys(r.tracker for r in a.rows + b.rows):
            ra, rb = a.own(tracker), b.own(tracker)
            if ra is None or rb is None:
                continue
            parts_n = int(a.workload.values["partitions"])
            xa, xb = sum(_bytes_at(ra, parts_n)), sum(_bytes_at(rb, parts_n))
            if xa != xb:
                pct = f" ({100 * (xb - xa) / xa:+.1f}%)" if xa else ""
                sign = "+" if xb > xa else "-"
                parts.append(f"{tracker} {sign}{format_bytes(abs(xb - xa))}{pct}")
        head = f"  {da.version} -> {db.version}: "
        out.append(head + ("; ".join(parts) if parts else "nothing the plan sees"))
    return out
