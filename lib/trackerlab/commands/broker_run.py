"""``trackerlab broker run EXPERIMENT``: a workload against a real broker, measured while it
runs and compared with ``trackerlab plan`` (:mod:`trackerlab.experiments.real_broker`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Experiments ``broker run`` knows (each has a runner in :data:`RUNNERS`).
EXPERIMENTS = ("delayed", "nack", "pending-acks", "trackers")
#: ``broker run all``: every experiment in :data:`RUNNERS`, in turn.
ALL = "all"


def _add_trackers_options(q: argparse.ArgumentParser) -> None:
    """The options only ``broker run trackers`` reads: trackers, rate, duration, sampling."""
    q.add_argument(
        "--tracker",
        default=None,
        metavar="NAMES",
        help="trackers: comma-separated of time-buckets (4.2.4), pip195-buckets "
        "(4.2.4), pip195-rolled (4.2.4, ledgers rolling every 50,000 entries), triple-heap "
        "(4.0.8: a different release), sorted-chunks (the project's); default: all five "
        "(smoke: time-buckets)",
    )
    q.add_argument(
        "--rate",
        default="10k/s",
        metavar="RATE",
        help="trackers: publish rate, 1/s to 50k/s (default 10k/s; smoke 1k/s)",
    )
    q.add_argument(
        "--duration",
        default="3m",
        metavar="TIME",
        help="trackers: publishing time, 10s to 2h (default 3m; smoke 30s)",
    )
    q.add_argument(
        "--sample-every",
        default="1m",
        metavar="TIME",
        help="trackers: JOL sample period, 1s to 10m (default 1m; smoke 10s)",
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``broker run`` under ``broker``'s actions."""
    q = sub.add_parser(
        "run",
        help="run an experiment against a real broker and compare it with trackerlab plan",
        description=(
            "delayed: a Pulsar standalone in a host JVM that measures its own trackers with JOL; "
            "Pulsar's Java client of the same release produces messages with deliverAfter "
            "(uniform and fixed delays) to Shared subscriptions whose consumers acknowledge "
            "each message as it comes due. Sampled while it runs: the deep size of each "
            "subscription's delayedDeliveryTracker, the broker's delayedMessageIndexSizeInBytes, "
            "msgDelayed, msgBacklog, unacked and availablePermits. Prints measured, the "
            "broker's metric, the plan and the error, and writes Parquet with provenance. "
            "nack: a Java consumer nacking a share of messages (delayed ones among them) "
            "measures its own NegativeAcksTracker with JOL. pending-acks: consumers holding "
            "acks, never acking (up to maxUnackedMessagesPerConsumer) or nacking; the broker "
            "measures each consumer's pendingAcks with JOL. all: each experiment in turn. "
            "Exit 1 when the plan is off by more than the tolerance (5%)."
        ),
    )
    q.add_argument("experiment", choices=(*EXPERIMENTS, ALL), metavar="EXPERIMENT",
                   help=f"the experiment: {', '.join(EXPERIMENTS)}, or {ALL} (each in turn, "
                   "one table each; exit 1 if any row is outside)")  # fmt: skip
    q.add_argument(
        "--pulsar-version",
        default=None,
        metavar="V[,V...]",
        help="runnable releases (2.11.0, 3.0.7, 4.0.1, 4.0.8, 4.2.4), comma-separated; "
        "default: the newest",
    )
    q.add_argument("--smoke", action="store_true",
                   help="one short workload (under 2 minutes with the broker's start)")  # fmt: skip
    q.add_argument(
        "--workload",
        default=None,
        metavar="NAME",
        help="run only this workload of the experiment's set (delayed smoke: uniform-0-15s; "
        "delayed full: uniform-0-60s, fixed-20s, fixed-20s-2k, mix-5s-0-30s, "
        "fixed-40s-lookahead-0, fixed-40s-lookahead-50k, uniform-0-30s-ledger-5k, "
        "uniform-0-20s-ledger-1min; nack smoke: 10pct-2s-delayed; nack full: 2pct-1s, 10pct-10s, "
        "10pct-10s-delayed; pending-acks: see its --smoke and full sets in docs/real-pulsar.md)",
    )
    _add_trackers_options(q)
    q.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for the Parquet results (default: data/broker/ in the repository; "
        "trackers: data/broker/trackers/)",
    )


def run(args: argparse.Namespace) -> int:
    """``broker run EXPERIMENT``, or ``broker run all``: every runner of :data:`RUNNERS` in
    turn (a failed one does not stop the others); exit 1 if any failed or had a row
    outside."""
    from trackerlab.core.errors import UsageError

    if args.experiment != ALL:
        return RUNNERS[args.experiment](args)
    if args.workload is not None:
        raise UsageError(f"--workload {args.workload}: names one experiment's workload; "
                         f"give an experiment ({', '.join(RUNNERS)}), not {ALL}")  # fmt: skip
    codes = {}
    for name, runner in RUNNERS.items():
        if name == "trackers":  # minutes per tracker: run it on its own
            continue
        print(f"== broker run {name} ==")
        codes[name] = runner(args)
        print()
    print("broker run all: " + ", ".join(
        f"{name} {'ok' if code == 0 else f'exit {code}'}" for name, code in codes.items()))  # fmt: skip
    return max(codes.values(), default=0)


def _versions(args: argparse.Namespace) -> list[str]:
    from trackerlab.broker import select_release

    return [select_release(v).version for v in (args.pulsar_version or "").split(",")]


def _select(workloads: tuple, name: str | None) -> tuple:
    """The set, or its one workload ``name`` (UsageError when not in the set)."""
    from trackerlab.core.errors import UsageError

    if name is None:
        return workloads
    names = [w.name for w in workloads]
    if name not in names:
        raise UsageError(f"--workload {name}: not in this set ({', '.join(names)})")
    return tuple(w for w in workloads if w.name == name)


def _run_set(args: argparse.Namespace, experiment, describe: Callable[[Any], str]) -> list:
    """Run ``experiment``'s set (``--smoke``: its SMOKE) on each release, printing a line per
    workload and one when it is done; returns the results, or raises the broker's, host's or
    client's one-line failure."""
    versions = _versions(args)
    workloads = _select(experiment.SMOKE if args.smoke else experiment.FULL, args.workload)
    results = []
    for version in versions:
        for w in workloads:
            print(f"{w.name} on Pulsar {version}: {describe(w)}")
            r = experiment.run(w, version, say=print)
            results.append(r)
            rss = f"{r.broker_rss_bytes / 2**20:.0f} MiB" if r.broker_rss_bytes else "?"
            print(f"  done in {r.run_seconds:.0f} s (broker start {r.start_seconds:.1f} s, "
                  f"RSS {rss}, achieved {r.achieved_rate_per_s:.0f} msg/s)")  # fmt: skip
    return results


def _finish(args, experiment, results: list, table: str, not_compared: str, why: str) -> int:
    """Print the table, write the results, state the worst error over the compared rows;
    exit 1 when a row is outside the tolerance."""
    from trackerlab.core.paths import data_dir

    out = args.out if args.out is not None else data_dir() / "broker"
    print()
    print(table)
    paths = experiment.write_results(results, out, args.smoke)
    print(f"\nwrote {len(paths)} files under {out}")
    rows = [c for r in results for c in r.comparison.itertuples()]
    kept_up = [c for c in rows if c.verdict != not_compared]
    if kept_up:
        worst = max(abs(c.error) for c in kept_up)
        print(f"worst error of the plan against the measured deep size: {worst:.2%} "
              f"(tolerance {experiment.TOLERANCE:.0%}; {len(kept_up)} of {len(rows)} rows)")  # fmt: skip
    if len(kept_up) < len(rows):
        print(f"{len(rows) - len(kept_up)} rows not compared: {why}")
    return 1 if any(c.verdict == "outside" for c in rows) else 0


def compare_stored(folder: Path | None) -> int:
    """``broker compare``: every stored delayed run (not smoke) compared again from its
    samples (:func:`~trackerlab.experiments.real_broker.delayed.recompare`), one table, each
    comparison file rewritten atomically once every file has been read (a damaged one: exit
    2, nothing rewritten); exit 1 when a row is outside the tolerance."""
    from types import SimpleNamespace

    from trackerlab.core.errors import UsageError
    from trackerlab.core.paths import data_dir
    from trackerlab.experiments.real_broker import delayed, results

    folder = folder if folder is not None else data_dir() / "broker"
    files = sorted(p for p in folder.glob("delayed-*-samples.parquet")
                   if not p.name.endswith("-smoke-samples.parquet"))  # fmt: skip
    if not folder.is_dir() or not files:
        raise UsageError(f"--results {folder}: holds no delayed-*-samples.parquet "
                         "(store runs with: trackerlab broker run delayed)")  # fmt: skip
    derived = []  # every file is read and compared before any is rewritten
    for path in files:
        try:
            derived.append((path, *delayed.recompare(path)))
        except ValueError as exc:
            raise UsageError(f"{exc}; nothing was rewritten") from None
    shown = []
    rows: list[Any] = []  # the comparison frames' row namedtuples (.error, .verdict)
    for path, comparison, meta in derived:
        stem = path.name.removesuffix("-samples.parquet")
        results.write_frames(folder, stem, {"": comparison}, meta)
        shown.append(SimpleNamespace(comparison=comparison))
        rows += list(comparison.itertuples())
    print(format_table(shown))
    print(f"\nrewrote {len(files)} comparison files under {folder}")
    worst = max(abs(c.error) for c in rows)
    print(f"worst error of the plan against the measured deep size: {worst:.2%} "
          f"(tolerance {delayed.TOLERANCE:.0%}; {len(rows)} rows)")  # fmt: skip
    return 1 if any(c.verdict == "outside" for c in rows) else 0


def _guarded(runner: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A runner whose broker, host or client failure is one line and exit 1."""

    def guarded(args: argparse.Namespace) -> int:
        from trackerlab.broker import BrokerFailed
        from trackerlab.broker.host import HostFailed
        from trackerlab.broker.loadgen import LoadFailed

        try:
            return runner(args)
        except (BrokerFailed, HostFailed, LoadFailed) as exc:
            print(f"trackerlab: broker run: {exc}", file=sys.stderr)
            return 1

    guarded.__doc__ = runner.__doc__
    return guarded


@_guarded
def run_delayed(args: argparse.Namespace) -> int:
    """``broker run delayed``: each workload on each release; one table; the results."""
    from trackerlab.experiments.real_broker import delayed

    results = _run_set(args, delayed, lambda w: (
        f"{w.rate_per_s:g} msg/s for {w.seconds:g} s, delay {w.plan_delay}, "
        f"{w.subscriptions} Shared subscriptions"))  # fmt: skip
    return _finish(args, delayed, results, format_table(results), "", "")


@_guarded
def run_nack(args: argparse.Namespace) -> int:
    """``broker run nack``: each workload on each release; one table; the results."""
    from trackerlab.experiments.real_broker import nack

    results = _run_set(args, nack, lambda w: f"{w.describe()}, one Shared consumer")
    return _finish(args, nack, results, format_nack_table(results), "client behind",
                   "the consumer never kept up with the producer long enough (receipt lag above "
                   f"{nack.BEHIND_LAG_MS} ms)")  # fmt: skip


def _describe_pending(w) -> str:
    cap = f"maxUnackedMessagesPerConsumer {w.max_unacked:,}" if w.max_unacked else (
        "the release's maxUnackedMessagesPerConsumer")  # fmt: skip
    subs = ", ".join(f"{s.name} ({s.java_mode})" for s in w.subscriptions)
    return (f"{w.rate_per_s:g} msg/s for {w.seconds:g} s, {cap}; Shared subscriptions, one "
            f"consumer each: {subs}")  # fmt: skip


@_guarded
def run_pending_acks(args: argparse.Namespace) -> int:
    """``broker run pending-acks``: each workload on each release; one table; the results."""
    from trackerlab.experiments.real_broker import pending_acks_live

    results = _run_set(args, pending_acks_live, _describe_pending)
    return _finish(args, pending_acks_live, results, format_pending_table(results), "", "")


#: Experiment name -> runner (``args`` -> exit code) for ``broker run NAME`` and ``all``.
RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "delayed": run_delayed,
    "nack": run_nack,
    "pending-acks": run_pending_acks,
    "trackers": lambda args: run_trackers(args),
}


def _trackers_timing(
    args: argparse.Namespace, smoke: dict[str, Any]
) -> tuple[float, float, float, float]:
    """Rate (msg/s), publish, sampling and pause seconds: the flags, or the smoke run's
    values where a flag keeps its default."""
    from trackerlab.experiments.real_broker import trackers as tr

    given = {a: getattr(args, a) for a in ("rate", "duration", "sample_every")}
    rate = (
        smoke["rate_per_s"]
        if smoke and given["rate"] == "10k/s"
        else tr.parse_rate_per_s("--rate", given["rate"], 1, 50_000)
    )
    publish_s = (
        smoke["publish_s"]
        if smoke and given["duration"] == "3m"
        else (tr.parse_duration_s("--duration", given["duration"], 10, 7200))
    )
    every_s = (
        smoke["sample_every_s"]
        if smoke and given["sample_every"] == "1m"
        else (tr.parse_duration_s("--sample-every", given["sample_every"], 1, 600))
    )
    pause_s = smoke.get("pause_s", tr.DEFAULT_PAUSE_S)
    return rate, publish_s, every_s, pause_s


@_guarded
def run_trackers(args: argparse.Namespace) -> int:
    """``broker run trackers``: each tracker on each workload in a broker of its own; one
    table; the results (summary, samples and GC pauses per run)."""
    from trackerlab.core.errors import UsageError
    from trackerlab.core.paths import data_dir
    from trackerlab.experiments.real_broker import trackers as tr

    if args.pulsar_version:
        raise UsageError(
            "--pulsar-version: not for trackers (each tracker names its release: --tracker)"
        )
    smoke: dict[str, Any] = tr.SMOKE if args.smoke else {}  # names and numbers, by key
    choices = tr.select(
        args.tracker,
        tr.TRACKERS,
        "--tracker",
        smoke.get("trackers", tuple(tr.TRACKERS)),
    )
    workloads = tr.select(
        args.workload, tr.WORKLOADS, "--workload", smoke.get("workloads", tuple(tr.WORKLOADS))
    )
    rate, publish_s, every_s, pause_s = _trackers_timing(args, smoke)
    # a folder of its own: data/broker/'s reader takes comparison files only
    out = args.out if args.out is not None else data_dir() / "broker" / "trackers"
    runs, paths = [], []
    for choice in choices:
        for w in workloads:
            print(
                f"{choice.name} (Pulsar {choice.version}, {choice.factory}) on {w.name}: "
                f"{rate:g} msg/s for {publish_s:g} s, delay {w.describe}"
            )
            runs.append(
                tr.run(
                    choice,
                    w,
                    rate_per_s=rate,
                    publish_s=publish_s,
                    sample_every_s=every_s,
                    pause_s=pause_s,
                    say=print,
                )
            )
            # each run is written as soon as it ends: a later failure keeps it
            paths += tr.write_results(runs[-1:], out, args.smoke)
    print()
    print(tr.format_table(runs))
    print(f"\nwrote {len(paths)} files under {out}")
    return 0


def _render(head: tuple[str, ...], lines: list[tuple]) -> str:
    """Columns padded to their widest cell, a rule under the header."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines, strict=True)]
    rows = [head, tuple("-" * w for w in widths), *lines]
    return "\n".join("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True))
                     for row in rows)  # fmt: skip


def format_table(results: list) -> str:
    """One table: measured deep size, the broker's metric, the dispatcher's read lag (the
    plan's ``--read-lag``; "behind" above 5% of the entries unread), the plan, the error, and
    ``simulate delayed``'s bytes and error ("n/a" where it does not apply: the results
    files say why)."""
    head = ("release", "workload", "sub", "tracker (plan design)", "measured B", "metric B",
            "read lag", "plan B", "error", "simulate B", "sim error", "entries (broker/plan)",
            "verdict")  # fmt: skip
    lines = []
    for r in results:
        for c in r.comparison.itertuples():
            metric = "n/a" if c.metric_index_bytes != c.metric_index_bytes else (
                f"{c.metric_index_bytes:,.0f}")  # fmt: skip
            lines.append((
                c.pulsar_version, c.workload, c.subscription,
                f"{c.root.split('.')[-1]} ({c.design})", f"{c.measured_deep_bytes:,.0f}", metric,
                f"{c.read_lag_ms:,.0f}ms" + (" (behind)" if c.dispatcher == "behind" else ""),
                f"{c.plan_bytes:,}", f"{c.error:+.2%}",
                "n/a" if c.simulate_bytes != c.simulate_bytes else f"{c.simulate_bytes:,.0f}",
                "n/a" if c.simulate_error != c.simulate_error else f"{c.simulate_error:+.2%}",
                f"{c.msg_delayed:,.0f}/{c.plan_entries:,.0f}", c.verdict,
            ))  # fmt: skip
    return _render(head, lines)


def format_nack_table(results: list) -> str:
    """One table: measured deep size of the consumer's tracker, the plan's nack row, the
    error, the entries."""
    head = ("release", "workload", "tracker (plan design)", "measured B", "of which ids map B",
            "plan B", "error", "entries (client/plan)", "verdict")  # fmt: skip
    lines = []
    for r in results:
        for c in r.comparison.itertuples():
            ids = "n/a" if not c.nacked_ids_bytes >= 0 else f"{c.nacked_ids_bytes:,.0f}"
            lines.append((
                c.pulsar_version, c.workload, f"NegativeAcksTracker ({c.design})",
                f"{c.measured_deep_bytes:,.0f}", ids, f"{c.plan_bytes:,}",
                "n/a" if c.error != c.error else f"{c.error:+.2%}",
                f"{c.measured_entries:,.0f}/{c.plan_entries:,.0f}", c.verdict,
            ))  # fmt: skip
    return _render(head, lines)


def format_pending_table(results: list) -> str:
    """One table: measured deep size of pendingAcks, the plan, the error, entries, blocked."""
    head = ("release", "workload", "sub (mode)", "layout (plan design)", "measured B", "plan B",
            "error", "entries (broker/plan)", "unacked msgs", "blocked", "verdict")  # fmt: skip
    lines = []
    for r in results:
        for c in r.comparison.itertuples():
            blocked = "no" if c.blocked_share == 0 else (
                "yes" if c.blocked_share == 1 else f"{c.blocked_share:.0%} of samples")  # fmt: skip
            lines.append((
                c.pulsar_version, c.workload, f"{c.subscription} ({c.mode})",
                f"{c.root} ({c.design})", f"{c.measured_deep_bytes:,.0f}", f"{c.plan_bytes:,}",
                f"{c.error:+.2%}", f"{c.measured_entries:,.0f}/{c.plan_entries:,.0f}",
                f"{c.unacked:,.0f}", blocked, c.verdict,
            ))  # fmt: skip
    return _render(head, lines)
