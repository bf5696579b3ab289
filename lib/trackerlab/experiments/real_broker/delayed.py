"""``trackerlab broker run delayed``: the live delayed-delivery tracker of a real broker
against ``trackerlab plan``.

A standalone broker runs in ``BrokerHost`` (:mod:`trackerlab.broker.host`); the workload is
produced by Pulsar's Java client (``DelayedLoad``: ``deliverAfter`` at a stated rate for a
stated time, Shared subscriptions whose consumers acknowledge each message as it comes due).
Every ``sample_every_s`` seconds, per subscription:

- the deep size of the live tracker: JOL ``GraphLayout`` rooted at the dispatcher's
  ``delayedDeliveryTracker``'s index (``priorityQueue`` with its direct buffers' capacity, or
  ``delayedMessageMap``), measured under the dispatcher's lock;
- the broker's own figures from the admin API: ``delayedMessageIndexSizeInBytes`` (the
  tracker's ``getBufferMemoryUsage()``), ``msgDelayed``, ``msgBacklog``, unacked messages and
  the consumers' ``availablePermits``;
- the broker JVM's heap in use and resident memory.

The measured value compared is the mean over the samples taken at steady state (from the
longest delay plus two ticks on; :func:`steady`), per subscription. A row whose dispatcher
fell behind (entries in the backlog it has not read into the tracker: ``msgBacklog -
msgDelayed - unacked`` above :data:`BEHIND` of the plan's entries) is marked "broker behind":
the tracker then holds only what was read, and entries read after their deliver-at time are
never tracked (``InMemoryDelayedDeliveryTracker.addMessage`` returns false below its cutoff),
which the plan, reading every entry as it is written, does not model. The plan is
``trackerlab.planner.plan.plan`` for the same workload at the rate the client achieved, its
release's default delayed row, per subscription. Results (the comparison and the samples) go
to Parquet under ``data/broker/`` with provenance, written atomically.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from trackerlab.broker import host as broker_host
from trackerlab.broker import loadgen as broker_load
from trackerlab.broker.process import _rss_bytes
from trackerlab.broker.stats import subscription_stats
from trackerlab.errors import UsageError

__all__ = [
    "FULL",
    "SMOKE",
    "TOLERANCE",
    "DelayedResult",
    "DelayedWorkload",
    "compare",
    "run",
    "write_results",
]

#: Measured deep size and plan must agree within this share (see ``TOLERANCE_REASON``).
TOLERANCE = 0.05
TOLERANCE_REASON = (
    "the plan sizes the release's own class from the same counts (byte-exact against the real "
    "class for the same messages: plan --verify); what a live broker adds is the rate the "
    "client achieved (planned at the measured rate), random delays at finite counts (a few "
    "hundred per bucket: under 1%), the values() views the admin stats leave cached on 4.2's "
    "maps (16 B per bucket: under 1%), and samples taken between the dispatcher's reads of due "
    "messages (at most one tick of entries, averaged over the steady samples); 5% is the "
    "issue's acceptance bound and covers them"
)
#: A row whose unread backlog (entries the dispatcher has not read into the tracker yet) is
#: above this share of the plan's entries is "broker behind": the plan, which assumes every
#: entry is read as it is written, does not apply (see :func:`compare`).
BEHIND = 0.05
#: The broker's default delayedDeliveryTickTimeMillis (ServiceConfiguration, 2.11 - 4.2).
TICK_MS = 1000


@dataclass(frozen=True)
class DelayedWorkload:
    """One delayed workload: ``rate_per_s`` messages/s, each with a delay (``fixed``: ``lo_ms``;
    ``uniform``: between ``lo_ms`` and ``hi_ms``) for ``seconds``, on ``subscriptions`` Shared
    subscriptions of one topic."""

    name: str
    rate_per_s: float
    kind: str  # fixed | uniform
    lo_ms: int
    hi_ms: int
    seconds: float
    subscriptions: int = 2
    sample_every_s: float = 5.0

    @property
    def plan_delay(self) -> str:
        """The delay as ``trackerlab plan`` spells it."""
        if self.kind == "fixed":
            return f"fixed:{self.lo_ms}ms"
        return f"uniform:{self.lo_ms}ms:{self.hi_ms}ms"

    @property
    def java_delay(self) -> str:
        """The delay as ``DelayedLoad`` reads it."""
        return (
            f"fixed:{self.lo_ms}" if self.kind == "fixed" else f"uniform:{self.lo_ms}:{self.hi_ms}"
        )

    @property
    def steady_from_s(self) -> float:
        """Seconds after the first send from which the tracker is at steady state."""
        return max(self.lo_ms, self.hi_ms) / 1000 + 2 * TICK_MS / 1000

    def subscription_names(self) -> tuple[str, ...]:
        return tuple(f"sub-{i}" for i in range(self.subscriptions))


#: ``--smoke``: 36 s of load after a 15-40 s start (CI).
SMOKE = (
    DelayedWorkload("uniform-0-15s", 1000, "uniform", 0, 15_000, seconds=36.0, sample_every_s=4),
)
#: The full set: a uniform delay, and one fixed delay at two rates (both below the
#: 50,000-message lookahead). At 2,000/s on two cores the fixed delay's due messages come back
#: faster than the dispatcher's replay reads return them: it stops reading new entries while
#: replays are pending, so the tracker drains and refills (the plan does not model that; the
#: row records it).
FULL = (
    DelayedWorkload("uniform-0-60s", 2000, "uniform", 0, 60_000, seconds=100.0, sample_every_s=10),
    DelayedWorkload("fixed-20s", 1000, "fixed", 20_000, 20_000, seconds=50.0),
    DelayedWorkload("fixed-20s-2k", 2000, "fixed", 20_000, 20_000, seconds=50.0),
)


@dataclass(frozen=True)
class DelayedResult:
    """One workload on one release: its samples, the comparison rows, how it ran."""

    workload: DelayedWorkload
    version: str
    client_version: str
    samples: pd.DataFrame
    comparison: pd.DataFrame
    start_seconds: float
    run_seconds: float
    achieved_rate_per_s: float
    broker_rss_bytes: int | None
    broker_heap_used_bytes: int | None
    jol: str


def _sample(
    client: broker_host.HostClient, admin_url: str, topic: str, w: DelayedWorkload, t: float,
    pid: int, progress: broker_load.Progress | None,
) -> list[dict[str, object]]:  # fmt: skip
    """One sample per subscription: JOL first (before the stats call caches views), then the
    admin stats, then the broker's memory."""
    measured = {s: client.measure(f"persistent://public/default/{topic}", s)
                for s in w.subscription_names()}  # fmt: skip
    stats = subscription_stats(admin_url, topic)
    used, committed, _ = client.memory()
    rss = _rss_bytes(pid)
    rows = []
    for sub, m in measured.items():
        st = stats.get(sub)
        rows.append({
            "t_s": round(t, 3), "subscription": sub,
            "sent": progress.sent if progress else 0,
            "received": progress.received if progress else 0,
            "acked": progress.acked if progress else 0,
            "tracker": m.tracker, "root": m.root, "deep_bytes": m.deep_bytes,
            "heap_bytes": m.heap_bytes, "direct_capacity_bytes": m.direct_capacity_bytes,
            "direct_reserved_bytes": m.direct_reserved_bytes, "buffers": m.buffers,
            "tracker_delayed": m.delayed_messages, "walk_ms": m.walk_ms,
            "metric_index_bytes": st.delayed_index_bytes if st else None,
            "msg_delayed": st.msg_delayed if st else None,
            "msg_backlog": st.msg_backlog if st else None,
            "unacked": st.unacked if st else None,
            "available_permits": st.available_permits if st else None,
            "broker_heap_used_bytes": used, "broker_heap_committed_bytes": committed,
            "broker_rss_bytes": rss, "classes": m.classes,
        })  # fmt: skip
    return rows


def plan_row(w: DelayedWorkload, version: str, rate_per_s: float):
    """``trackerlab plan``'s default delayed row for ``w`` at ``rate_per_s`` (the unit: one
    subscription, one partition)."""
    from trackerlab.models.design import DELAYED
    from trackerlab.planner.plan import plan
    from trackerlab.planner.workload import PlanWorkload

    workload = PlanWorkload.parse({
        "rate": f"{rate_per_s:.3f}/s", "delayed": "100%", "delay": w.plan_delay,
        "subscriptions": w.subscriptions, "pulsar_version": version,
    })  # fmt: skip
    rows = [r for r in plan(workload).rows if r.tracker == DELAYED.name and r.default]
    if len(rows) != 1:
        raise RuntimeError(f"plan gave {len(rows)} default delayed rows for {version}")
    return rows[0]


def steady(samples: pd.DataFrame, w: DelayedWorkload) -> pd.DataFrame:
    """The samples at steady state: from :attr:`DelayedWorkload.steady_from_s` to the end of
    producing."""
    return samples[(samples["t_s"] >= w.steady_from_s) & (samples["t_s"] <= w.seconds + 1.0)]


def compare(samples: pd.DataFrame, w: DelayedWorkload, version: str, rate: float) -> pd.DataFrame:
    """One row per subscription: measured deep size (steady mean), the broker's metric, the
    plan's bytes and entries, and the error of the plan against the measured size."""
    row = plan_row(w, version, rate)
    at = steady(samples, w)
    if at.empty:
        raise RuntimeError(f"{w.name}: no sample at steady state (from {w.steady_from_s:g} s)")
    out = []
    for sub, g in at.groupby("subscription"):
        measured = float(g["deep_bytes"].mean())
        metric = g["metric_index_bytes"].dropna()
        # entries in the backlog the dispatcher has neither tracked nor handed out: not yet
        # read from the ledger (msgBacklog - msgDelayed - unacked)
        unread = float((g["msg_backlog"] - g["msg_delayed"] - g["unacked"]).clip(lower=0).mean())
        error = (row.steady_bytes - measured) / measured if measured else math.nan
        behind = unread > BEHIND * max(row.entries, 1.0)
        out.append({
            "workload": w.name, "pulsar_version": version, "subscription": sub,
            "design": row.design, "tracker_class": g["tracker"].iloc[-1],
            "root": g["root"].iloc[-1], "samples": len(g),
            "measured_deep_bytes": measured,
            "measured_min_bytes": int(g["deep_bytes"].min()),
            "measured_max_bytes": int(g["deep_bytes"].max()),
            "metric_index_bytes": float(metric.mean()) if len(metric) else math.nan,
            "plan_bytes": row.steady_bytes,
            "error": error,
            "unread_backlog": unread,
            "verdict": "broker behind" if behind else (
                "within" if abs(error) <= TOLERANCE else "outside"),
            "metric_error": (float(metric.mean()) - measured) / measured
            if len(metric) and measured else math.nan,
            "measured_entries": float(g["tracker_delayed"].mean()),
            "msg_delayed": float(g["msg_delayed"].mean()),
            "plan_entries": row.entries,
            "rate_per_s": rate, "delay": w.plan_delay, "seconds": w.seconds,
        })  # fmt: skip
    return pd.DataFrame(out)


def run(
    w: DelayedWorkload,
    version: str | None = None,
    *,
    run_dir: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> DelayedResult:
    """Start a host broker, run ``w`` against it, sample, stop the client and the broker (by
    PID, however the block ends) and compare with the plan. O(seconds)."""
    if w.seconds < w.steady_from_s + w.sample_every_s:
        raise UsageError(f"{w.name}: {w.seconds:g} s leave no steady sample")
    t_launch = time.monotonic()
    topic = f"delayed-{w.name}-{os.getpid()}"
    with broker_host.running_host(version, run_dir) as (broker, client, built):
        say(f"Pulsar {broker.version} broker host ready in {broker.start_seconds:.1f} s "
            f"(pid {broker.pid}, {broker.run_dir})")  # fmt: skip
        spec = broker_load.LoadSpec(
            topic, w.subscription_names(), w.rate_per_s, w.seconds, w.java_delay
        )
        rows: list[dict[str, object]] = []
        with broker_load.running_load(built, broker.service_url, spec, broker.run_dir) as load:
            t0 = load.started_at or time.monotonic()
            next_at = w.sample_every_s
            while True:
                if not load.alive():
                    raise broker_load.LoadFailed(
                        f"the workload client died mid-run (exit {load.proc.returncode}); "
                        f"log: {load.log}"
                    )
                now = time.monotonic() - t0
                done = load.produced.is_set()
                if now >= next_at or done:
                    rows += _sample(client, broker.admin_url, topic, w, now, broker.pid,
                                    load.progress)  # fmt: skip
                    last = rows[-1]
                    say(
                        f"  t={now:5.1f} s  sent {last['sent']}  delayed {last['msg_delayed']}"
                        f"  deep {last['deep_bytes']} B  metric {last['metric_index_bytes']} B"
                    )
                    next_at += w.sample_every_s
                    if done:
                        break
                time.sleep(0.05)
            sent = load.sent_total or 0
        samples = pd.DataFrame(rows)
        heap_used = int(samples["broker_heap_used_bytes"].iloc[-1])
        rss = samples["broker_rss_bytes"].iloc[-1]
        client_version = built.jar("pulsar-client-original")
        jol = client.ping()
        start_seconds = broker.start_seconds
    rate = sent / w.seconds if sent else w.rate_per_s
    comparison = compare(samples, w, broker.version, rate)
    return DelayedResult(
        w, broker.version,
        client_version.parent.name if client_version else "unknown",
        samples, comparison, start_seconds, time.monotonic() - t_launch, rate,
        int(rss) if rss is not None and not pd.isna(rss) else None, heap_used, jol,
    )  # fmt: skip


def provenance(result: DelayedResult, smoke: bool) -> dict[str, object]:
    """Release, client version, run length and machine, with trackerlab's own provenance."""
    from trackerlab.javacheck import java_major
    from trackerlab.provenance import git_commit, library_versions

    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        mem = None
    return {
        "experiment": "delayed", "smoke": smoke,
        "pulsar_version": result.version, "client": f"pulsar-client-original {result.client_version}",
        "workload": asdict(result.workload), "achieved_rate_per_s": result.achieved_rate_per_s,
        "run_seconds": round(result.run_seconds, 1), "broker_start_seconds": round(result.start_seconds, 1),
        "broker_rss_bytes": result.broker_rss_bytes, "broker_heap_used_bytes": result.broker_heap_used_bytes,
        "tolerance": TOLERANCE, "tolerance_reason": TOLERANCE_REASON,
        "machine": {"node": platform.node(), "cpus": os.cpu_count(), "memory_bytes": mem,
                    "system": platform.platform(), "java": java_major()[1]},
        "jol": result.jol, "git_commit": git_commit(), "versions": library_versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }  # fmt: skip


def write_results(results: list[DelayedResult], out_dir: Path, smoke: bool) -> list[Path]:
    """Per result two Parquet files, each written atomically with the provenance in its schema
    metadata (``trackerlab``): ``delayed-<workload>-<version>.parquet`` (the comparison) and
    ``...-samples.parquet`` (the time series). O(samples)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from trackerlab.durable import atomic_write_bytes

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for r in results:
        meta = json.dumps(provenance(r, smoke)).encode()
        stem = f"delayed-{r.workload.name}-{r.version}{'-smoke' if smoke else ''}"
        for suffix, frame in (("", r.comparison), ("-samples", r.samples)):
            table = pa.Table.from_pandas(frame, preserve_index=False)
            table = table.replace_schema_metadata(
                {**(table.schema.metadata or {}), b"trackerlab": meta}
            )
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink)
            path = out_dir / f"{stem}{suffix}.parquet"
            atomic_write_bytes(path, sink.getvalue().to_pybytes())
            written.append(path)
    return written
