"""``trackerlab broker run pending-acks``: the live pending acks of a real broker's consumers,
up to and past ``maxUnackedMessagesPerConsumer``, against ``trackerlab plan``.

A standalone broker runs in ``BrokerHost`` (:mod:`trackerlab.broker.host`), its
``maxUnackedMessagesPerConsumer`` set through its configuration when the workload says so
(``ServiceConfiguration.java:1064`` at v4.2.4: ``private int maxUnackedMessagesPerConsumer =
50000;``). Pulsar's Java client (``PendingLoad``) produces unbatched messages at a rate to one
topic with one Shared consumer per subscription, each subscription acknowledging its own way:
each message ``hold_ms`` after receipt, never, or a share negatively acknowledged (redelivered
after the nack delay, then acknowledged). Every ``sample_every_s`` seconds, per consumer:

- the deep size of its ``Consumer.pendingAcks`` with JOL: ``PendingAcksMap.pendingAcks`` (4.0+,
  the fastutil map of maps, under the map's read lock) or the ``ConcurrentLongLongPairHashMap``
  (before 4.0);
- the structure's ``size()`` (entries), the consumer's ``getUnackedMessages()`` and whether the
  broker blocked it (``blockedConsumerOnUnackedMsgs``, set by ``Consumer.java:463`` at v4.2.4
  once unacked reach the limit).

Compared, per subscription: the mean over the steady samples (:func:`steady_times`, to the end
of producing: the client on schedule for the consumer's whole settling time) with ``trackerlab plan``'s default pending-acks row for the same
workload (one consumer, the achieved rate, the same ``--max-unacked``). The plan's ack latency
is the time from dispatch until the broker has the ack: the hold plus half the client's
``acknowledgmentGroupTime`` (acks wait for the next group flush, uniformly within it); for a
consumer that never acks it is the whole run (the cap decides). Results go to Parquet under
``data/broker/`` with provenance, written atomically.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

import trackerlab.experiments.real_broker.results as broker_results
from trackerlab.broker import host as broker_host
from trackerlab.broker import loadgen as broker_load
from trackerlab.broker.process import _rss_bytes
from trackerlab.core.errors import UsageError

__all__ = [
    "FULL",
    "SMOKE",
    "TOLERANCE",
    "PendingResult",
    "PendingSub",
    "PendingWorkload",
    "compare",
    "plan_row",
    "run",
    "write_results",
]

#: Measured deep size and plan must agree within this share (see ``TOLERANCE_REASON``).
TOLERANCE = 0.05
TOLERANCE_REASON = (
    "the plan sizes the release's own PendingAcksMap layout from the entry count (byte-exact "
    "against the real class for the same entries: jvm-check --pulsar); a live broker adds the "
    "achieved rate (planned at the measured rate), acks grouped by the client (half the group "
    "time on average) and samples between dispatches and acks (a few entries); 5% is the "
    "issue's acceptance bound"
)
#: The Java client's default ``acknowledgmentGroupTime`` (``ConsumerConfigurationData``:
#: ``acknowledgementsGroupTimeMicros = TimeUnit.MILLISECONDS.toMicros(100)``).
ACK_GROUP_MS = 100
#: Seconds added to a subscription's settling time before its samples count as steady.
SETTLE_S = 2.0
#: A sample counts as on schedule while the client is at most this many seconds of messages
#: behind it (:func:`on_schedule`).
BEHIND_S = 0.5
#: The broker setting the workloads override (``ServiceConfiguration.java:1064`` at v4.2.4).
MAX_UNACKED_KEY = "maxUnackedMessagesPerConsumer"


@dataclass(frozen=True)
class PendingSub:
    """One Shared subscription with one consumer: ``mode`` ``ack`` (each message ``hold_ms``
    after receipt), ``never`` or ``nack`` (``nack_share`` of first deliveries negatively
    acknowledged, the rest and every redelivery acknowledged ``hold_ms`` after receipt)."""

    name: str
    mode: str  # ack | never | nack
    hold_ms: int = 0
    nack_share: float = 0.0

    @property
    def java_mode(self) -> str:
        """The mode as ``PendingLoad`` reads it."""
        if self.mode == "never":
            return "never"
        if self.mode == "nack":
            return f"nack:{self.nack_share:g}:{self.hold_ms}"
        return f"ack:{self.hold_ms}"


@dataclass(frozen=True)
class PendingWorkload:
    """One topic at ``rate_per_s`` messages/s for ``seconds``, its subscriptions, the broker's
    ``maxUnackedMessagesPerConsumer`` (None: the release's default, not overridden) and the
    consumers' nack delay."""

    name: str
    rate_per_s: float
    seconds: float
    subscriptions: tuple[PendingSub, ...]
    max_unacked: int | None = None
    nack_delay_ms: int = 60_000
    sample_every_s: float = 5.0
    #: seconds of samples after producing ends (a never-acking consumer stays put: a
    #: dispatcher slowed by a loaded machine still reaches the cap)
    linger_s: float = 0.0

    def steady_from_s(self, sub: PendingSub) -> float:
        """Seconds after the first send from which ``sub``'s pending acks are steady: the hold
        and group time (plus the nack delay for ``nack``), or, for ``never``, the time the
        consumer takes to reach the cap; plus :data:`SETTLE_S`."""
        if sub.mode == "never":
            if not self.max_unacked:
                raise UsageError(f"{self.name}: a never-acking consumer needs a max_unacked cap")
            return self.max_unacked / self.rate_per_s + SETTLE_S
        wait_ms = sub.hold_ms + ACK_GROUP_MS + (self.nack_delay_ms if sub.mode == "nack" else 0)
        return wait_ms / 1000 + SETTLE_S

    def plan_ack_latency_ms(self, sub: PendingSub) -> float:
        """Dispatch until the broker has the ack: hold plus half the group time; the whole run
        for a consumer that never acks."""
        if sub.mode == "never":
            return self.seconds * 1000
        return sub.hold_ms + ACK_GROUP_MS / 2

    def broker_properties(self) -> dict[str, str]:
        """The broker settings this workload overrides."""
        return {} if self.max_unacked is None else {MAX_UNACKED_KEY: str(self.max_unacked)}


#: ``--smoke``: 30 s of load after a 15-40 s start (CI): a consumer holding acks 2 s and one
#: that never acks, blocked at a 2,000-message cap after 4 s.
SMOKE = (
    PendingWorkload(
        "hold-2s-and-never-cap-2k", 500, 30.0,
        (PendingSub("hold-2s", "ack", 2000), PendingSub("never", "never")),
        max_unacked=2000, sample_every_s=4.0,
    ),
)  # fmt: skip
#: The full set, two brokers: 1,000 msg/s with acks held 5 s (about 5,050 pending, under the
#: default 50,000 cap) beside a consumer that nacks 20% with a 10 s nack delay; then 1,000
#: msg/s to a consumer that never acks, past a 5,000-message cap (blocked after 5 s), sampled
#: 10 s more after producing.
FULL = (
    PendingWorkload(
        "hold-5s-and-nack-20pct", 1000, 60.0,
        (PendingSub("hold-5s", "ack", 5000), PendingSub("nack-20pct", "nack", 1000, 0.2)),
        nack_delay_ms=10_000,
    ),
    PendingWorkload(
        "never-cap-5k", 1000, 30.0, (PendingSub("never", "never"),), max_unacked=5000,
        linger_s=10.0,
    ),
)  # fmt: skip


#: One workload on one release (:class:`~trackerlab.experiments.real_broker.results.RunResult`).
PendingResult = broker_results.RunResult


def plan_workload(w: PendingWorkload, sub: PendingSub, version: str, rate_per_s: float):
    """``trackerlab plan``'s workload for one of ``w``'s consumers at ``rate_per_s``."""
    from trackerlab.planner.workload import PlanWorkload

    raw: dict[str, object] = {
        "rate": f"{rate_per_s:.3f}/s", "subscriptions": 1, "consumers": 1,
        "ack_latency": f"{w.plan_ack_latency_ms(sub):g}ms", "pulsar_version": version,
    }  # fmt: skip
    if w.max_unacked is not None:
        raw["max_unacked"] = w.max_unacked
    if sub.mode == "nack":
        raw |= {"nacked": f"{100 * sub.nack_share:g}%", "nack_delay": f"{w.nack_delay_ms}ms"}
    return PlanWorkload.parse(raw)


def plan_row(w: PendingWorkload, sub: PendingSub, version: str, rate_per_s: float):
    """The plan's default pending-acks row (the release's own layout) for ``sub``."""
    from trackerlab.models.design import PENDING_ACKS
    from trackerlab.planner.memory_plan import plan

    rows = [
        r
        for r in plan(plan_workload(w, sub, version, rate_per_s)).rows
        if r.tracker == PENDING_ACKS.name and r.default
    ]
    if len(rows) != 1:
        raise RuntimeError(f"plan gave {len(rows)} default pending-acks rows for {version}")
    return rows[0]


def _sample(
    client: broker_host.HostClient, topic: str, w: PendingWorkload, t: float, pid: int,
    progress: broker_load.Progress | None,
) -> list[dict[str, object]]:  # fmt: skip
    """One row per consumer of every subscription, then the broker's memory."""
    measured = {s.name: client.pending(f"persistent://public/default/{topic}", s.name)
                for s in w.subscriptions}  # fmt: skip
    used, committed, _ = client.memory()
    rss = _rss_bytes(pid)
    rows = []
    for sub, consumers in measured.items():
        for m in consumers:
            rows.append({
                "t_s": round(t, 3), "subscription": sub, "consumer": m.consumer,
                "client_s": progress.seconds if progress else 0.0,
                "sent": progress.sent if progress else 0,
                "received": progress.received if progress else 0,
                "acked": progress.acked if progress else 0,
                "root": m.root, "deep_bytes": m.heap_bytes, "entries": m.entries,
                "unacked": m.unacked, "blocked": m.blocked, "walk_ms": m.walk_ms,
                "broker_heap_used_bytes": used, "broker_heap_committed_bytes": committed,
                "broker_rss_bytes": rss,
            })  # fmt: skip
    return rows


def on_schedule(samples: pd.DataFrame, w: PendingWorkload) -> pd.Series:
    """Per sample time: whether the client had sent what its schedule asks, within
    :data:`BEHIND_S` seconds of messages (``sent >= rate * (t - BEHIND_S)``, or all of it once
    producing ended), ``t`` the client's own clock at its last progress line (``client_s``;
    the sample time when absent). The client's first seconds run slow (connections, JIT) and it then
    catches up in a burst, which a consumer holds for its ack latency: on two cores the smoke's
    500 msg/s had sent 1,293 of 2,000 at 4 s and 4,000 at 8 s, and the burst lifted the 2 s
    consumer to the 2,000 cap (blocked until acks took it down to 1,000)."""
    clock = "client_s" if "client_s" in samples else "t_s"
    at = samples.groupby("t_s")[["sent", clock]].max().sort_index()
    due = (w.rate_per_s * (at[clock] - BEHIND_S)).clip(upper=w.rate_per_s * w.seconds)
    return at["sent"] >= due - 0.5


def steady_times(samples: pd.DataFrame, w: PendingWorkload, sub: PendingSub) -> list[float]:
    """The sample times at which ``sub`` is steady. A consumer that acks: the client has been
    on schedule (:func:`on_schedule`) since a sample at least :meth:`PendingWorkload.steady_from_s`
    earlier (the start counts as on schedule). A consumer that never acks: from
    :data:`SETTLE_S` after the first sample at which the client had sent the cap."""
    times = on_schedule(samples, w)
    if sub.mode == "never":
        sent_max = samples.groupby("t_s")["sent"].max()
        reached = [float(t) for t, sent in zip(sent_max.index.to_numpy(dtype=float), sent_max.to_numpy(), strict=True)
                   if sent >= (w.max_unacked or 0)]  # fmt: skip
        return [t for t in times.index if reached and t >= reached[0] + SETTLE_S]
    settle = w.steady_from_s(sub)
    caught: float | None = 0.0
    out = []
    for t, ok in zip(times.index.to_numpy(dtype=float), times.to_numpy(), strict=True):
        if not ok:
            caught = None
            continue
        if caught is None:
            caught = float(t)
        if t >= caught + settle:
            out.append(float(t))
    return out


def steady(samples: pd.DataFrame, w: PendingWorkload, sub: PendingSub) -> pd.DataFrame:
    """``sub``'s samples at :func:`steady_times`, up to the end of producing (and of the
    linger for a consumer that never acks)."""
    at = samples[samples["subscription"] == sub.name]
    end = w.seconds + 1.0 + (w.linger_s if sub.mode == "never" else 0.0)
    times = [t for t in steady_times(samples, w, sub) if t <= end]
    return at[at["t_s"].isin(times)]


def compare(samples: pd.DataFrame, w: PendingWorkload, version: str, rate: float) -> pd.DataFrame:
    """One row per subscription: measured deep size (steady mean), the plan's bytes, the
    error of the plan against the measured size, entries (broker ``size()`` and plan), the
    broker's unacked count and the share of steady samples in which it blocked the consumer."""
    out = []
    for sub in w.subscriptions:
        g = steady(samples, w, sub)
        if g.empty:
            raise RuntimeError(
                f"{w.name}/{sub.name}: no sample at steady state (the client was not on "
                f"schedule for {w.steady_from_s(sub):g} s, or never sent the cap)"
            )
        row = plan_row(w, sub, version, rate)
        measured = float(g["deep_bytes"].mean())
        error = (row.steady_bytes - measured) / measured if measured else math.nan
        out.append({
            "workload": w.name, "pulsar_version": version, "subscription": sub.name,
            "mode": sub.java_mode, "design": row.design, "root": g["root"].iloc[-1],
            "samples": len(g), "steady_from_s": float(g["t_s"].min()),
            "measured_deep_bytes": measured,
            "measured_min_bytes": int(g["deep_bytes"].min()),
            "measured_max_bytes": int(g["deep_bytes"].max()),
            "plan_bytes": row.steady_bytes, "error": error,
            "verdict": "within" if abs(error) <= TOLERANCE else "outside",
            "measured_entries": float(g["entries"].mean()),
            "unacked": float(g["unacked"].mean()), "plan_entries": row.entries,
            "blocked_share": float(g["blocked"].astype(float).mean()),
            "max_unacked": w.max_unacked, "rate_per_s": rate,
            "plan_ack_latency_ms": w.plan_ack_latency_ms(sub),
            "nack_delay_ms": w.nack_delay_ms if sub.mode == "nack" else None,
            "seconds": w.seconds,
        })  # fmt: skip
    return pd.DataFrame(out)


def run(
    w: PendingWorkload,
    version: str | None = None,
    *,
    run_dir: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> PendingResult:
    """Start a host broker with ``w``'s settings, run ``w`` against it, sample, stop the client
    and the broker (by PID, however the block ends) and compare with the plan. O(seconds)."""
    for sub in w.subscriptions:
        if w.seconds < w.steady_from_s(sub) + w.sample_every_s:
            raise UsageError(f"{w.name}/{sub.name}: {w.seconds:g} s leave no steady sample")
    t_launch = time.monotonic()
    topic = f"pending-{w.name}-{os.getpid()}"
    props = w.broker_properties()
    with broker_host.running_host(version, run_dir, broker_overrides=props) as (
        broker,
        client,
        built,
    ):
        say(f"Pulsar {broker.version} broker host ready in {broker.start_seconds:.1f} s "
            f"(pid {broker.pid}, {broker.run_dir}; {props or 'release defaults'})")  # fmt: skip
        spec = broker_load.PendingSpec(
            topic, tuple(s.name for s in w.subscriptions),
            tuple(s.java_mode for s in w.subscriptions), w.rate_per_s, w.seconds,
            nack_delay_ms=w.nack_delay_ms, ack_group_ms=ACK_GROUP_MS,
        )  # fmt: skip
        rows: list[dict[str, object]] = []
        with broker_load.running_load(built, broker.service_url, spec, broker.run_dir) as load:
            t0 = load.started_at or time.monotonic()
            next_at = w.sample_every_s
            produced_at: float | None = None
            while True:
                if not load.alive():
                    raise broker_load.LoadFailed(
                        f"the workload client died mid-run (exit {load.proc.returncode}); "
                        f"log: {load.log}"
                    )
                now = time.monotonic() - t0
                if load.produced.is_set() and produced_at is None:
                    produced_at = now
                done = produced_at is not None and now >= produced_at + w.linger_s
                if now >= next_at or done:
                    new = _sample(client, topic, w, now, broker.pid, load.progress)
                    rows += new
                    say(f"  t={now:5.1f} s  sent {new[0]['sent']}  " + "  ".join(
                        f"{r['subscription']}: {r['entries']} entries {r['deep_bytes']} B"
                        f"{' blocked' if r['blocked'] else ''}" for r in new))  # fmt: skip
                    next_at += w.sample_every_s
                    if done:
                        break
                time.sleep(0.05)
            sent = load.sent_total or 0
        jol = client.ping()
    return broker_results.finish(w, broker, built, rows, sent, jol, t_launch, compare)


def provenance(result: PendingResult, smoke: bool) -> dict[str, object]:
    """Release, client, the broker settings overridden, run length and machine."""
    return broker_results.provenance(
        "pending-acks", result, smoke, TOLERANCE, TOLERANCE_REASON,
        broker_properties=result.workload.broker_properties(), ack_group_ms=ACK_GROUP_MS,
    )  # fmt: skip


def write_results(results: list[PendingResult], out_dir: Path, smoke: bool) -> list[Path]:
    """``pending-acks-<workload>-<version>[-smoke].parquet`` and ``...-samples.parquet`` per
    result (:func:`~trackerlab.experiments.real_broker.results.write_runs`)."""
    return broker_results.write_runs("pending-acks", results, out_dir, smoke, provenance)
