"""A fleet of topics: ``trackerlab plan --topics FILE [--brokers N]``.

A fleet file lists topics, each with its own workload keys (those of ``trackerlab plan``,
:data:`~trackerlab.planner.workload.FIELDS`) and optionally a ``name`` and a ``class``; the
``topics`` key of a row counts identical topics. CSV: a header row of keys; YAML: a list of
mappings (or ``topics:`` holding one). Keys given as flags are every topic's defaults.

Topics that share every key except the rate form a *group*. A group with few distinct rates
is planned topic by topic; a larger one is planned at rates :data:`GRID_STEP` apart that
span it, and each topic's bytes are interpolated in log-log between its two neighbours
(memory is piecewise smooth in the rate: ledger rollovers and bucket widths bend it); then
:data:`HELD_OUT` topics drawn by the seed are planned directly, and the output states their
largest deviation. Above :data:`SPARK_ABOVE_PLANS` plans the plans run on Spark (embedded
``local[*]`` or ``--master``), one task per group and rate range.

Totals: each tracker of the release's own design, per broker (the broker-side trackers of
the whole fleet divided by ``--brokers``: the load manager spreads bundles, so a plan
assumes an even spread) and for all clients; subtotals per class; a line naming the long
tail when the topics carrying the least traffic hold most of the memory.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from trackerlab.core.errors import UsageError
from trackerlab.planner.workload import FIELD_BY_NAME, PlanWorkload

if TYPE_CHECKING:
    import pandas as pd

#: Rate ratio between neighbouring plans of an interpolated group (16 per octave).
GRID_STEP = 2 ** (1 / 16)
#: A group with more distinct rates than this is interpolated; fewer are planned one by one.
GRID_ABOVE = 32
#: Topics of interpolated groups planned directly to state the interpolation's deviation
#: (spread over their log rates, none at a planned rate).
HELD_OUT = 16
#: Plans above which a fleet runs on Spark (embedded local[*] unless --master).
SPARK_ABOVE_PLANS = 400
#: Plans per Spark task (a group's rates are split into tasks of this many).
PLANS_PER_TASK = 16
#: Largest fleet file read (CSV; a YAML file stays within the YAML reader's 1 MiB bound).
MAX_FLEET_BYTES = 256 * 1024**2
#: Keys a fleet row may hold besides the workload's.
META_KEYS = ("name", "class")
#: The long tail: the lowest-rate topics carrying this share of the fleet's messages...
TAIL_TRAFFIC_SHARE = 0.2
#: ...dominates when it holds more than this share of the broker memory.
TAIL_DOMINATES = 0.5
BROKER_TRACKERS = ("delayed-delivery index", "pending acks")


@dataclass(frozen=True)
class FleetTopic:
    """One row of a fleet file: its name, class, user values (strings as given) and the
    parsed workload."""

    name: str
    klass: str
    raw: Mapping[str, object]
    workload: PlanWorkload

    @property
    def group(self) -> tuple[tuple[str, str], ...]:
        """Every resolved value but the rate and the topic count, in the user's units."""
        w = self.workload
        return tuple(
            (name, w.describe(name)) for name in w.values if name not in ("rate", "topics")
        )


def read_fleet(
    path: str | Path, defaults: Mapping[str, object] | tuple[()] = ()
) -> list[FleetTopic]:
    """The topics of a CSV or YAML fleet file; ``defaults`` (flag values) fill the keys a row
    leaves out. Malformed files and unknown keys: one-line UsageError naming the row and key.
    O(rows)."""
    from trackerlab.core.safe_yaml import read_user_text

    path = Path(path)
    text = read_user_text(path, "--topics", limit=MAX_FLEET_BYTES)
    rows = _csv_rows(text, path) if path.suffix.lower() == ".csv" else _yaml_rows(text, path)
    if not rows:
        raise UsageError(f"--topics {path}: the file lists no topics")
    topics, names = [], set()
    parsed: dict[tuple, PlanWorkload] = {}
    base = {str(k).replace("-", "_"): v for k, v in dict(defaults).items() if v is not None}
    for i, row in enumerate(rows, 1):
        name = str(row.pop("name", "") or f"topic-{i}").strip()
        klass = str(row.pop("class", "") or "default").strip()
        if name in names:
            raise UsageError(f"--topics {path}: topic {name!r} is listed twice")
        names.add(name)
        merged = base | {k.replace("-", "_"): v for k, v in row.items() if v not in (None, "")}
        where = f"--topics {path}: topic {name}"
        shared = _raw_key({k: v for k, v in merged.items() if k not in ("rate", "topics")})
        if shared not in parsed or "rate" not in merged:
            parsed[shared] = PlanWorkload.parse(merged, where)
            workload = parsed[shared]
        else:  # the group's other values were checked once: parse what differs
            workload = parsed[shared].with_values(
                rate=FIELD_BY_NAME["rate"].parse(merged["rate"], f"{where}: rate"),
                topics=FIELD_BY_NAME["topics"].parse(merged.get("topics", "1"), f"{where}: topics"),
            )
        topics.append(FleetTopic(name, klass, merged, workload))
    return topics


def _csv_rows(text: str, path: Path) -> list[dict[str, object]]:
    reader = csv.reader(io.StringIO(text))
    lines = [r for r in reader if any(c.strip() for c in r)]
    if not lines:
        return []
    header = [h.strip() for h in lines[0]]
    if "" in header or len(set(header)) != len(header):
        raise UsageError(f"--topics {path}: the header row needs distinct, non-empty keys")
    _check_keys(header, path, "header")
    rows: list[dict[str, object]] = []
    for n, cells in enumerate(lines[1:], 2):
        if len(cells) != len(header):
            raise UsageError(
                f"--topics {path}: row {n} has {len(cells)} fields, the header {len(header)}"
            )
        rows.append({k: c.strip() for k, c in zip(header, cells, strict=True)})
    return rows


def _yaml_rows(text: str, path: Path) -> list[dict[str, object]]:
    from trackerlab.spark.grid import load_yaml

    raw = load_yaml(text, str(path))
    if isinstance(raw, Mapping) and set(raw) == {"topics"}:
        raw = raw["topics"]
    if not isinstance(raw, list):
        raise UsageError(
            f"--topics {path}: a fleet file is a list of topics (- name: orders, rate: 20k/s)"
        )
    rows = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, Mapping):
            raise UsageError(f"--topics {path}: topic {n} is not a mapping of keys to values")
        _check_keys([str(k) for k in item], path, f"topic {n}")
        rows.append({str(k): v for k, v in item.items()})
    return rows


def _check_keys(keys: list[str], path: Path, where: str) -> None:
    for key in keys:
        name = key.replace("-", "_")
        if name not in FIELD_BY_NAME and name not in META_KEYS:
            known = ", ".join(("name", "class", *(f.key for f in FIELD_BY_NAME.values())))
            raise UsageError(f"--topics {path}: {where}: unknown key {key!r}; known keys: {known}")


# --------------------------------------------------------------------------- sizing


def topic_bytes(p) -> dict[str, tuple[str, float, float]]:
    """Tracker -> (design, heap, direct) bytes of one topic in the release's own design
    (the plan's peak totals per topic). O(rows)."""
    out = {}
    for row in p.rows:
        if row.default:
            heap, direct = row.split(row.per_topic)
            out[row.tracker] = (row.design, float(heap), float(direct))
    return out


def plan_rates(job: tuple[Mapping[str, object], list[float], int]) -> list[dict[str, object]]:
    """Plan one group at each of ``rates`` (per ms, one topic): the Spark task and the local
    loop alike. Returns one record per rate and tracker."""
    from trackerlab.planner.memory_plan import plan

    raw, rates, seed = job
    base = PlanWorkload.parse({**raw, "rate": "1/s", "topics": "1"})
    records = []
    for rate in rates:
        p = plan(base.with_values(rate=rate), seed=seed)
        for tracker, (design, heap, direct) in topic_bytes(p).items():
            records.append(
                {
                    "rate_per_ms": rate,
                    "tracker": tracker,
                    "design": design,
                    "heap_bytes": heap,
                    "direct_bytes": direct,
                }
            )
    return records


def grid_rates(rates: np.ndarray) -> np.ndarray:
    """Rates :data:`GRID_STEP` apart (on the powers of the step) spanning ``rates``. O(n)."""
    lo = math.floor(math.log(float(rates.min())) / math.log(GRID_STEP) + 1e-9)
    hi = math.ceil(math.log(float(rates.max())) / math.log(GRID_STEP) - 1e-9)
    return GRID_STEP ** np.arange(lo, hi + 1, dtype=np.float64)


@dataclass
class FleetPlan:
    """Per-topic bytes of every topic (one row per topic and tracker) and how they came."""

    topics: list[FleetTopic]
    brokers: int
    #: one record per topic and tracker: name, class, rate_per_ms, count, tracker, design,
    #: side, heap_bytes, direct_bytes (all ``count`` topics of the row), interpolated
    records: list[dict[str, object]]
    plans: int
    interpolated_groups: int
    #: side -> the largest held-out deviation (None: nothing interpolated)
    held_out_deviation: dict[str, float] | None
    #: topics planned directly to check the interpolation
    held_out_topics: int
    engine: str
    version: str
    notes: list[str] = field(default_factory=list)


def plan_fleet(
    topics: list[FleetTopic], brokers: int = 1, seed: int = 0, master: str | None = None
) -> FleetPlan:
    """Size every topic (see the module docstring). O(plans), plus O(topics) numpy."""
    groups: dict[tuple, list[FleetTopic]] = {}
    for t in topics:
        groups.setdefault(t.group, []).append(t)
    jobs, how = [], {}
    for key, members in groups.items():
        rates = np.unique([float(t.workload.values["rate"]) for t in members])
        grid = len(rates) > GRID_ABOVE
        points = grid_rates(rates) if grid else rates
        how[key] = (grid, points)
        raw = _group_raw(members[0])
        for i in range(0, len(points), PLANS_PER_TASK):
            jobs.append((raw, points[i : i + PLANS_PER_TASK].tolist(), seed))
    plans = sum(len(j[1]) for j in jobs)
    engine = "this process"
    if master is not None or plans > SPARK_ABOVE_PLANS:
        results, engine = _on_spark(jobs, master)
    else:
        results = [plan_rates(job) for job in jobs]
    by_group: dict[tuple, list[dict]] = {}
    for job, records in zip(jobs, results, strict=True):
        by_group.setdefault(_raw_key(job[0]), []).extend(records)
    out: list[dict[str, object]] = []
    for key, members in groups.items():
        out += _topic_records(members, by_group[_raw_key(_group_raw(members[0]))], how[key][0])
    held, checked = _held_out(groups, how, by_group, seed)
    return FleetPlan(
        topics,
        brokers,
        out,
        plans,
        sum(1 for grid, _ in how.values() if grid),
        held,
        checked,
        engine,
        topics[0].workload.defaults.version,
    )


def _group_raw(t: FleetTopic) -> dict[str, object]:
    """The user values shared by the topic's group (no rate, no count)."""
    return {k: v for k, v in t.raw.items() if k not in ("rate", "topics")}


def _raw_key(raw: Mapping[str, object]) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in raw.items()))


def _topic_records(members, records, grid: bool) -> list[dict[str, object]]:
    """Each member's bytes per tracker: interpolated in log rate on a grid, else looked up."""
    out = []
    trackers = sorted({r["tracker"] for r in records})
    for tracker in trackers:
        rows = sorted(
            (r for r in records if r["tracker"] == tracker), key=lambda r: r["rate_per_ms"]
        )
        x = np.log([r["rate_per_ms"] for r in rows])
        heap = np.array([r["heap_bytes"] for r in rows])
        direct = np.array([r["direct_bytes"] for r in rows])
        design = rows[0]["design"]
        rates = np.array([float(t.workload.values["rate"]) for t in members])
        counts = np.array([int(t.workload.values["topics"]) for t in members])
        h = np.interp(np.log(rates), x, heap)
        d = np.interp(np.log(rates), x, direct)
        side = _side({"tracker": tracker})
        for t, r, c, hb, db in zip(members, rates, counts, h, d, strict=True):
            out.append(
                {
                    "topic": t.name,
                    "class": t.klass,
                    "rate_per_s": r * 1000,
                    "topics": int(c),
                    "tracker": tracker,
                    "design": design,
                    "side": side,
                    "heap_bytes": float(hb) * c,
                    "direct_bytes": float(db) * c,
                    "interpolated": grid,
                }
            )
    return out


def _held_out(groups, how, by_group, seed: int) -> tuple[dict[str, float] | None, int]:
    """How far interpolation is from direct plans, over :data:`HELD_OUT` topics of the
    interpolated groups (:func:`_spread`): per side (``broker``, ``client``; heap and direct
    together) the largest deviation of one topic, and (``broker_sum``, ``client_sum``) the
    deviation of their sum, which is what a fleet's totals add up. Memory is not smooth in
    the rate (ART nodes, map capacities and containers change size in steps of a few
    percent), so one topic may be off by such a step while sums average it out. None when no
    group was interpolated. O(HELD_OUT plans)."""
    # one topic per (group, rate) that is not a plan's own rate
    pool: dict[tuple[object, float], tuple[FleetTopic, dict[str, object]]] = {}
    for key, members in groups.items():
        grid, points = how[key]
        if grid:
            for t in members:
                rate = float(t.workload.values["rate"])
                if not np.isclose(points, rate, rtol=1e-12, atol=0).any():
                    pool.setdefault((key, rate), (t, _group_raw(members[0])))
    if not any(grid for grid, _ in how.values()):
        return None, 0
    worst = {"broker": 0.0, "client": 0.0}
    sums = {side: [0.0, 0.0] for side in worst}  # interpolated, planned
    # the group's first member wrote the plans' values (others may spell them otherwise)
    first = {id(t): raw for t, raw in pool.values()}
    picks = _spread([t for t, _ in pool.values()], seed)
    for t in picks:
        count = max(int(t.workload.values["topics"]), 1)
        raw = first[id(t)]
        guess = _topic_records([t], by_group[_raw_key(raw)], True)
        real = plan_rates((raw, [float(t.workload.values["rate"])], seed))
        for side in worst:
            got = sum(_record_bytes(g) for g in guess if g["side"] == side)
            want = sum(_record_bytes(r) for r in real if _side(r) == side)
            sums[side][0] += got / count
            sums[side][1] += want
            if want:
                worst[side] = max(worst[side], abs(got / count - want) / want)
    for side, (got, want) in sums.items():
        worst[f"{side}_sum"] = abs(got - want) / want if want else 0.0
    return worst, len(picks)


def _spread(pool: list[FleetTopic], seed: int) -> list[FleetTopic]:
    """:data:`HELD_OUT` topics spread over the pool's log rates: for targets drawn uniformly
    in log rate with ``seed``, the nearest topic not taken yet. O(HELD_OUT x pool log pool)."""
    if len(pool) <= HELD_OUT:
        return pool
    pool = sorted(pool, key=lambda t: float(t.workload.values["rate"]))
    x = np.log([float(t.workload.values["rate"]) for t in pool])
    targets = np.random.default_rng(seed).uniform(x[0], x[-1], size=HELD_OUT)
    picks: set[int] = set()
    for v in targets:  # the nearest topic not taken yet
        order = np.argsort(np.abs(x - v), kind="stable")
        picks.add(int(next(i for i in order if int(i) not in picks)))
    return [pool[i] for i in sorted(picks)]


def _record_bytes(record: Mapping[str, object]) -> float:
    """A plan record's heap plus direct bytes. O(1)."""
    heap, direct = record["heap_bytes"], record["direct_bytes"]
    if not isinstance(heap, int | float) or not isinstance(direct, int | float):
        raise TypeError(f"plan record: bytes {heap!r}, {direct!r} are not numbers")
    return heap + direct


def _side(record: Mapping[str, object]) -> str:
    return "broker" if record["tracker"] in BROKER_TRACKERS else "client"


def _on_spark(jobs, master: str | None):
    """Run the jobs as Spark tasks (one per group and rate range)."""
    from trackerlab.spark.session import get_session, ship_package, spark_action

    spark = get_session(master)
    ship_package(spark)
    rdd = spark.sparkContext.parallelize(jobs, len(jobs))
    with spark_action("plan --topics"):
        return rdd.map(plan_rates).collect(), f"Spark {spark.sparkContext.master}"


# --------------------------------------------------------------------------- report


def rate_text(per_ms: float) -> str:
    """A rate to three significant digits (``196k/s``, ``14.2/s``). O(1)."""
    from trackerlab.workloads.units import format_rate

    return format_rate(per_ms, 3)


def frame(fleet: FleetPlan):
    """One row per topic and tracker, bytes of all the row's topics (pandas)."""
    import pandas as pd

    return pd.DataFrame(fleet.records)


def long_tail(fleet: FleetPlan) -> str:
    """A line naming the long tail when it dominates: the lowest-rate topics carrying
    :data:`TAIL_TRAFFIC_SHARE` of the messages hold more than :data:`TAIL_DOMINATES` of the
    broker memory. O(topics log topics)."""
    df = frame(fleet)
    broker = df[df.side == "broker"]
    if broker.empty:
        return ""
    per = broker.groupby("topic").agg(
        rate=("rate_per_s", "first"),
        n=("topics", "first"),
        bytes=("heap_bytes", "sum"),
        direct=("direct_bytes", "sum"),
    )
    per["bytes"] += per["direct"]
    per["traffic"] = per["rate"] * per["n"]
    per = per.sort_values("rate")
    share = per["traffic"].cumsum() / per["traffic"].sum()
    tail = per[share <= TAIL_TRAFFIC_SHARE]
    if tail.empty:
        return ""
    held = float(tail["bytes"].sum() / per["bytes"].sum())
    if held <= TAIL_DOMINATES:
        return ""
    top = float(tail["rate"].max())
    return (
        f"the long tail dominates: {int(tail['n'].sum()):,} topics at {rate_text(top / 1000)} "
        f"or less carry {100 * float(share[tail.index].iloc[-1]):.0f}% of the messages and hold "
        f"{100 * held:.0f}% of the broker memory (each topic's fixed costs: maps, first "
        f"containers, ledger bitmaps)"
    )


def _side_lines(df: pd.DataFrame, brokers: int) -> list[str]:
    """Heap and direct bytes per tracker and design: per broker (the broker side divided
    evenly), then the clients of the whole fleet, each with its total."""
    from trackerlab.workloads.units import format_bytes

    lines: list[str] = []
    by = df.groupby(["side", "tracker", "design"])[["heap_bytes", "direct_bytes"]].sum()
    for side, title, div in (
        ("broker", None, brokers),
        ("client", "Clients, the whole fleet's consumers:", 1),
    ):
        if title:
            lines += ["", title, f"  {'tracker':<24} {'design':<24} {'heap':>14} {'direct':>19}"]
        part = by.loc[side] if side in by.index.get_level_values(0) else None
        if part is None:
            lines.append("  (none)")
            continue
        for index, row in part.iterrows():
            tracker, design = cast(tuple[str, str], index)  # the (tracker, design) level pair
            lines.append(
                f"  {tracker:<24} {design:<24} {format_bytes(row.heap_bytes / div):>14} "
                f"{format_bytes(row.direct_bytes / div):>19}"
            )
        total = part.sum()
        lines.append(
            f"  {'total':<24} {'':<24} {format_bytes(total.heap_bytes / div):>14} "
            f"{format_bytes(total.direct_bytes / div):>19}"
        )
    return lines


def _class_lines(df: pd.DataFrame) -> list[str]:
    """Per topic class of the whole fleet: topics, rate, broker and client heap and direct."""
    from trackerlab.workloads.units import format_bytes

    lines = [
        "",
        "Per class (the whole fleet):",
        f"  {'class':<16} {'topics':>9} {'rate':>10} {'broker heap':>13} "
        f"{'broker direct':>14} {'client heap':>13} {'client direct':>14}",
    ]
    for klass, part in df.groupby("class"):
        topics = part.drop_duplicates("topic")
        cells = []
        for side in ("broker", "client"):
            s = part[part.side == side]
            cells += [format_bytes(s.heap_bytes.sum()), format_bytes(s.direct_bytes.sum())]
        rate = float((topics.rate_per_s * topics.topics).sum()) / 1000
        lines.append(
            f"  {klass:<16} {int(topics.topics.sum()):>9,} {rate_text(rate):>10} "
            f"{cells[0]:>13} {cells[1]:>14} {cells[2]:>13} {cells[3]:>14}"
        )
    return lines


def table(fleet: FleetPlan) -> str:
    """The fleet as a broker engineer reads it: per broker, per client side, per class."""
    df = frame(fleet)
    n_topics = sum(int(t.workload.values["topics"]) for t in fleet.topics)
    traffic = sum(
        float(t.workload.values["rate"]) * int(t.workload.values["topics"]) for t in fleet.topics
    )
    lines = [
        f"Fleet: {n_topics:,} topics in {len(fleet.topics):,} rows, "
        f"{df['class'].nunique()} class(es), {rate_text(traffic)} in all, "
        f"{fleet.brokers:,} broker(s), Pulsar {fleet.version}",
        "",
        f"Per broker (the fleet's broker-side memory / {fleet.brokers:,}; an even spread of "
        "bundles is assumed):",
        f"  {'tracker':<24} {'design':<24} {'heap (-Xmx)':>14} {'direct (MaxDirect)':>19}",
    ]
    lines += _side_lines(df, fleet.brokers)
    lines += _class_lines(df)
    tail = long_tail(fleet)
    if tail:
        lines += ["", tail]
    lines += ["", how_planned(fleet)]
    return "\n".join(lines)


def how_planned(fleet: FleetPlan) -> str:
    """One line: plans run, where, and the interpolation's held-out deviation."""
    text = f"{fleet.plans:,} plans on {fleet.engine}"
    if fleet.held_out_deviation is None:
        return text + ": every topic planned at its own rate."
    dev = fleet.held_out_deviation
    return (
        f"{text}; {fleet.interpolated_groups} group(s) of topics interpolated between plans "
        f"2^(1/16) apart in rate. Checked: {fleet.held_out_topics} of their topics (at rates no "
        f"plan ran at) planned directly differ from it by at most {100 * dev['broker']:.2f}% "
        f"each on the broker side ({100 * dev['broker_sum']:.2f}% in sum) and "
        f"{100 * dev['client']:.2f}% on the client side ({100 * dev['client_sum']:.2f}% in sum)."
    )


def write_parquet(fleet: FleetPlan, path: str | Path, source: str | Path) -> Path:
    """The per-topic table as Parquet, written atomically and durably, with provenance in
    its schema metadata (``trackerlab``: git commit, library versions, the fleet file's
    sha256, brokers, engine, plans, the held-out deviation). O(topics)."""
    import json
    import time

    import pyarrow as pa
    import pyarrow.parquet as pq

    from trackerlab.core.durable import atomic_write_bytes, sha256_file
    from trackerlab.core.provenance import git_commit, library_versions

    path = Path(path)
    if path.suffix != ".parquet":
        raise UsageError(f"--out {path}: give a .parquet file")
    table = pa.Table.from_pandas(frame(fleet), preserve_index=False)
    provenance = {
        "git_commit": git_commit(),
        "versions": library_versions(),
        "fleet_file": str(source),
        "fleet_sha256": sha256_file(Path(source)),
        "pulsar": fleet.version,
        "brokers": fleet.brokers,
        "plans": fleet.plans,
        "engine": fleet.engine,
        "held_out_deviation": fleet.held_out_deviation,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    meta = {**(table.schema.metadata or {}), b"trackerlab": json.dumps(provenance).encode()}
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(meta), sink)
    atomic_write_bytes(path, sink.getvalue().to_pybytes())
    return path


def read_provenance(path: str | Path) -> dict[str, object]:
    """The provenance :func:`write_parquet` recorded. O(1)."""
    import json

    import pyarrow.parquet as pq

    return json.loads(pq.read_schema(path).metadata[b"trackerlab"])
