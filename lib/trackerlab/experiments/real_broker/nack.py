"""``trackerlab broker run nack``: a Java consumer's live ``NegativeAcksTracker`` against
``trackerlab plan``'s nack row (issue 25).

A standalone broker runs in ``BrokerHost`` (:mod:`trackerlab.broker.host`); the client is
``NackLoad`` (:mod:`trackerlab.broker.nackload`): Pulsar's Java client of the same release
produces at a rate (a share of the messages with ``deliverAfter``), and one Shared consumer
with ``negativeAckRedeliveryDelay`` set nacks a share of them (drawn by seed; each on its
first delivery only) and acknowledges the rest. Every ``sample_every_s`` seconds:

- in the client's JVM, the JOL deep size (``GraphLayout.parseInstance(...).totalSize()``) of
  the consumer's ``NegativeAcksTracker`` fields that hold nacked message ids, under the
  tracker's monitor: ``nackedMessages`` (PIP-393, 4.0.2+: ``Long2ObjectAVLTreeMap`` of time
  buckets, each a ``Long2ObjectOpenHashMap`` of ledger id to ``Roaring64Bitmap`` of entry ids)
  and, on 4.2+, ``nackedMessageIds`` (a ``Long2ObjectOpenHashMap`` allocated by the
  constructor, holding only traced or chunked message ids); and ``getNackedMessagesCount()``;
- the broker's subscription stats (backlog, unacked) and the broker JVM's heap and RSS.

The measured value is the mean deep size over the samples at steady state: from the longest
delay plus the nack delay plus two seconds after the first send, and as long again after the
consumer last fell behind (a receipt lag above :data:`BEHIND_LAG_MS`: on two shared cores a
cold broker and client can take tens of seconds to keep up), to the end of producing; no
such sample gives the verdict "client behind". The plan is
``trackerlab.planner.memory_plan.plan`` for the same workload (rate the client achieved, nack
share, nack delay, delayed share and delay, the release's defaults), its release's default
nack row (one consumer, one partition). Results go to Parquet under ``data/broker/`` with
provenance, written atomically (:mod:`trackerlab.experiments.real_broker.results`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

import trackerlab.experiments.real_broker.results as results
from trackerlab.broker import host as broker_host
from trackerlab.broker import nackload
from trackerlab.broker.loadgen import LoadFailed
from trackerlab.broker.process import _rss_bytes
from trackerlab.broker.stats import subscription_stats
from trackerlab.core.errors import UsageError

__all__ = [
    "FULL",
    "SMOKE",
    "TOLERANCE",
    "NackResult",
    "NackWorkload",
    "compare",
    "plan_row",
    "run",
    "write_results",
]

#: Measured deep size and plan must agree within this share (the issue's acceptance bound).
TOLERANCE = 0.05
TOLERANCE_REASON = (
    "the plan sizes the release's own tracker class from the same counts (byte-exact against "
    "the real class for the same ids: plan --verify); what a live consumer adds is the rate "
    "the client achieved (planned at the measured rate), random nacks at finite counts (tens "
    "to a thousand entries per tracker: a few percent at the smallest), and samples taken "
    "between the timer's redeliveries (averaged over the steady samples); 5% is the issue's "
    "acceptance bound"
)
SUBSCRIPTION = "nack-sub"
#: The consumer is "behind" in a sample whose longest receipt lag of an undelayed message (in
#: the second before it) is above this: it nacks later than the producer sends, in bursts as
#: it catches up, which the plan (a nack at each message's publish time) does not model.
BEHIND_LAG_MS = 1000


@dataclass(frozen=True)
class NackWorkload:
    """One nack workload: ``rate_per_s`` messages/s for ``seconds``; a share ``nacked`` of
    them is nacked with a redelivery delay of ``nack_delay_ms``; a share ``delayed`` is sent
    with ``deliverAfter`` (``fixed``: ``lo_ms``; ``uniform``: ``lo_ms`` to ``hi_ms``)."""

    name: str
    rate_per_s: float
    nacked: float  # share 0-1
    nack_delay_ms: int
    seconds: float
    delayed: float = 0.0  # share 0-1
    delay_kind: str = "fixed"  # fixed | uniform
    lo_ms: int = 0
    hi_ms: int = 0
    sample_every_s: float = 2.0

    @property
    def plan_delay(self) -> str | None:
        """The delay of the delayed messages as ``trackerlab plan`` spells it (None: none)."""
        if not self.delayed:
            return None
        if self.delay_kind == "fixed":
            return f"fixed:{self.lo_ms}ms"
        return f"uniform:{self.lo_ms}ms:{self.hi_ms}ms"

    @property
    def java_delay(self) -> str:
        """The delay as ``NackLoad`` reads it."""
        if self.delay_kind == "fixed":
            return f"fixed:{self.lo_ms}"
        return f"uniform:{self.lo_ms}:{self.hi_ms}"

    @property
    def steady_from_s(self) -> float:
        """Seconds after the first send from which the tracker is at steady state: a delayed
        message is nacked when it comes due and tracked for the nack delay."""
        longest = max(self.lo_ms, self.hi_ms) if self.delayed else 0
        return (longest + self.nack_delay_ms) / 1000 + 2.0

    def describe(self) -> str:
        text = (f"{self.rate_per_s:g} msg/s for {self.seconds:g} s, {self.nacked:.0%} nacked "
                f"(nack delay {self.nack_delay_ms} ms)")  # fmt: skip
        if self.delayed:
            text += f", {self.delayed:.0%} delayed ({self.plan_delay})"
        return text


#: ``--smoke``: 60 s of load with delayed messages among the nacked (CI).
SMOKE = (
    NackWorkload("10pct-2s-delayed", 1000, 0.10, 2_000, seconds=60.0, delayed=0.2,
                 delay_kind="uniform", lo_ms=0, hi_ms=5_000, sample_every_s=2.0),
)  # fmt: skip
#: The full set at 1,000 msg/s: 2% nacks redelivered after 1 s, 10% after 10 s, and 10% after
#: 10 s with a third of the messages delayed (uniform 0-10 s) among them.
FULL = (
    NackWorkload("2pct-1s", 1000, 0.02, 1_000, seconds=60.0, sample_every_s=2.0),
    NackWorkload("10pct-10s", 1000, 0.10, 10_000, seconds=80.0, sample_every_s=3.0),
    NackWorkload("10pct-10s-delayed", 1000, 0.10, 10_000, seconds=90.0, delayed=0.3,
                 delay_kind="uniform", lo_ms=0, hi_ms=10_000, sample_every_s=3.0),
)  # fmt: skip


#: One workload on one release (:class:`~trackerlab.experiments.real_broker.results.RunResult`).
NackResult = results.RunResult


def plan_row(w: NackWorkload, version: str, rate_per_s: float):
    """``trackerlab plan``'s default nack row for ``w`` at ``rate_per_s`` (the unit: one
    consumer, one partition)."""
    from trackerlab.models.design import NACK
    from trackerlab.planner.memory_plan import plan
    from trackerlab.planner.workload import PlanWorkload

    values: dict[str, object] = {
        "rate": f"{rate_per_s:.3f}/s", "nacked": f"{w.nacked * 100:g}%",
        "nack_delay": f"{w.nack_delay_ms}ms", "pulsar_version": version,
    }  # fmt: skip
    if w.delayed:
        values |= {"delayed": f"{w.delayed * 100:g}%", "delay": w.plan_delay}
    rows = [
        r for r in plan(PlanWorkload.parse(values)).rows if r.tracker == NACK.name and r.default
    ]
    if len(rows) != 1:
        raise RuntimeError(f"plan gave {len(rows)} default nack rows for {version}")
    return rows[0]


def steady_from(samples: pd.DataFrame, w: NackWorkload) -> float:
    """Seconds from which the tracker is at steady state: :attr:`NackWorkload.steady_from_s`,
    or that long after the last sample whose consumer was behind (lag above
    :data:`BEHIND_LAG_MS`), whichever is later. O(samples)."""
    behind = samples.loc[samples["lag_ms"] > BEHIND_LAG_MS, "t_s"]
    if behind.empty:
        return w.steady_from_s
    return max(w.steady_from_s, float(behind.max()) + w.steady_from_s)


def steady(samples: pd.DataFrame, w: NackWorkload) -> pd.DataFrame:
    """The samples at steady state: from :func:`steady_from` to the end of producing."""
    return samples[(samples["t_s"] >= steady_from(samples, w)) & (samples["t_s"] <= w.seconds)]


def compare(samples: pd.DataFrame, w: NackWorkload, version: str, rate: float) -> pd.DataFrame:
    """One row: measured deep size (steady mean of ``deep_bytes``), the plan's steady bytes
    and entries, and the error of the plan against the measured size. O(samples)."""
    row = plan_row(w, version, rate)
    at = steady(samples, w)
    measured = float(at["deep_bytes"].mean()) if len(at) else math.nan
    error = (row.steady_bytes - measured) / measured if measured else math.nan
    verdict = ("client behind" if at.empty
               else "within" if abs(error) <= TOLERANCE else "outside")  # fmt: skip
    out = {
        "workload": w.name, "pulsar_version": version, "design": row.design,
        "samples": len(at), "measured_deep_bytes": measured,
        "steady_from_s": steady_from(samples, w),
        "measured_min_bytes": float(at["deep_bytes"].min()) if len(at) else math.nan,
        "measured_max_bytes": float(at["deep_bytes"].max()) if len(at) else math.nan,
        "nacked_messages_bytes": float(at["nacked_messages_bytes"].mean()),
        "nacked_ids_bytes": float(at["nacked_ids_bytes"].mean()),
        "plan_bytes": row.steady_bytes, "error": error,
        "verdict": verdict, "max_lag_ms": float(at["lag_ms"].max()) if len(at) else math.nan,
        "measured_entries": float(at["tracked"].mean()), "plan_entries": row.entries,
        "measured_buckets": float(at["buckets"].mean()),
        "rate_per_s": rate, "nacked": w.nacked, "nack_delay_ms": w.nack_delay_ms,
        "delayed": w.delayed, "delay": w.plan_delay or "", "seconds": w.seconds,
    }  # fmt: skip
    return pd.DataFrame([out])


def _sample(
    load: nackload.NackLoad, client: broker_host.HostClient, admin_url: str, topic: str,
    t: float, pid: int,
) -> dict[str, object]:  # fmt: skip
    """One sample: JOL in the client first, then the broker's stats and memory."""
    m = load.measure()
    st = subscription_stats(admin_url, topic).get(SUBSCRIPTION)
    used, committed, _ = client.memory()
    p = load.progress
    return {
        "t_s": round(t, 3), "sent": p.sent if p else 0, "received": p.received if p else 0,
        "acked": p.acked if p else 0, "nacked": load.nacked, "lag_ms": load.lag_ms,
        "deep_bytes": m.deep_bytes, "nacked_messages_bytes": m.nacked_messages_bytes,
        "nacked_ids_bytes": m.nacked_ids_bytes, "tracked": m.tracked, "buckets": m.buckets,
        "walk_ms": m.walk_ms, "classes": m.classes,
        "msg_backlog": st.msg_backlog if st else None, "unacked": st.unacked if st else None,
        "broker_heap_used_bytes": used, "broker_heap_committed_bytes": committed,
        "broker_rss_bytes": _rss_bytes(pid),
    }  # fmt: skip


def run(
    w: NackWorkload,
    version: str | None = None,
    *,
    run_dir: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> NackResult:
    """Start a host broker, run ``w`` against it with NackLoad, sample, stop the client and
    the broker (by PID, however the block ends) and compare with the plan. O(seconds)."""
    if w.seconds < w.steady_from_s + w.sample_every_s:
        raise UsageError(f"{w.name}: {w.seconds:g} s leave no steady sample")
    t_launch = time.monotonic()
    topic = f"nack-{w.name}-{os.getpid()}"
    with broker_host.running_host(version, run_dir) as (broker, client, built):
        say(f"Pulsar {broker.version} broker host ready in {broker.start_seconds:.1f} s "
            f"(pid {broker.pid}, {broker.run_dir})")  # fmt: skip
        spec = nackload.NackLoadSpec(
            f"persistent://public/default/{topic}", SUBSCRIPTION, w.rate_per_s, w.seconds,
            w.nacked, w.nack_delay_ms, w.delayed, w.java_delay,
        )  # fmt: skip
        rows: list[dict[str, object]] = []
        with nackload.running_nack_load(built, broker.service_url, spec, broker.run_dir) as load:
            t0 = load.started_at or time.monotonic()
            next_at = w.sample_every_s
            while True:
                if not load.alive():
                    raise LoadFailed(
                        f"the nack client died mid-run (exit {load.proc.returncode}); "
                        f"log: {load.log}"
                    )
                now = time.monotonic() - t0
                done = load.produced.is_set()
                if now >= next_at or done:
                    rows.append(_sample(load, client, broker.admin_url, topic, now, broker.pid))
                    last = rows[-1]
                    say(f"  t={now:5.1f} s  sent {last['sent']}  nacked {last['nacked']}  "
                        f"lag {last['lag_ms']} ms  tracked {last['tracked']}  "
                        f"deep {last['deep_bytes']} B")  # fmt: skip
                    next_at += w.sample_every_s
                    if done:
                        break
                time.sleep(0.05)
            sent = load.sent_total or 0
            jol = load.jol
    return results.finish(w, broker, built, rows, sent, jol, t_launch, compare)


def provenance(result: NackResult, smoke: bool) -> dict[str, object]:
    """Release, client version, run length and machine, with trackerlab's own provenance."""
    return results.provenance("nack", result, smoke, TOLERANCE, TOLERANCE_REASON)


def write_results(results_: list[NackResult], out_dir: Path, smoke: bool) -> list[Path]:
    """``nack-<workload>-<version>[-smoke].parquet`` and ``...-samples.parquet`` per result
    (:func:`~trackerlab.experiments.real_broker.results.write_runs`)."""
    return results.write_runs("nack", results_, out_dir, smoke, provenance)
