"""``trackerlab broker run EXPERIMENT``: a workload against a real broker, measured while it
runs and compared with ``trackerlab plan`` (:mod:`trackerlab.experiments.real_broker`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

#: Experiments ``broker run`` knows (nack and pending-acks are not built yet).
EXPERIMENTS = ("delayed",)
#: ``broker run all``: every experiment in :data:`RUNNERS`, in turn.
ALL = "all"


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
        help="run only this workload of the set (delayed smoke: uniform-0-15s; delayed full: "
        "uniform-0-60s, fixed-20s, fixed-20s-2k, mix-5s-0-30s, fixed-40s-lookahead-0, "
        "fixed-40s-lookahead-50k, uniform-0-30s-ledger-5k, uniform-0-20s-ledger-1min)",
    )
    q.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for the Parquet results (default: data/broker/ in the repository)",
    )


def run(args: argparse.Namespace) -> int:
    """``broker run EXPERIMENT``, or ``broker run all``: every runner of :data:`RUNNERS` in
    turn (a failed one does not stop the others); exit 1 if any failed or had a row
    outside."""
    from trackerlab.errors import UsageError

    if args.experiment != ALL:
        return RUNNERS[args.experiment](args)
    if args.workload is not None:
        raise UsageError(f"--workload {args.workload}: names one experiment's workload; "
                         f"give an experiment ({', '.join(RUNNERS)}), not {ALL}")  # fmt: skip
    codes = {}
    for name, runner in RUNNERS.items():
        print(f"== broker run {name} ==")
        codes[name] = runner(args)
        print()
    print("broker run all: " + ", ".join(
        f"{name} {'ok' if code == 0 else f'exit {code}'}" for name, code in codes.items()))  # fmt: skip
    return max(codes.values(), default=0)


def run_delayed(args: argparse.Namespace) -> int:
    """Run the delayed experiment on each release; print one table; write the results."""
    from trackerlab.broker import BrokerFailed, select_release
    from trackerlab.broker.host import HostFailed
    from trackerlab.broker.loadgen import LoadFailed
    from trackerlab.errors import UsageError
    from trackerlab.experiments.real_broker import delayed
    from trackerlab.paths import data_dir

    versions = [select_release(v).version for v in (args.pulsar_version or "").split(",")]
    workloads = delayed.SMOKE if args.smoke else delayed.FULL
    if args.workload is not None:
        names = [w.name for w in workloads]
        if args.workload not in names:
            raise UsageError(f"--workload {args.workload}: not in this set ({', '.join(names)})")
        workloads = tuple(w for w in workloads if w.name == args.workload)
    out = args.out if args.out is not None else data_dir() / "broker"
    results = []
    try:
        for version in versions:
            for w in workloads:
                print(f"{w.name} on Pulsar {version}: {w.rate_per_s:g} msg/s for {w.seconds:g} s, "
                      f"delay {w.plan_delay}, {w.subscriptions} Shared subscriptions")  # fmt: skip
                r = delayed.run(w, version, say=print)
                results.append(r)
                rss = f"{r.broker_rss_bytes / 2**20:.0f} MiB" if r.broker_rss_bytes else "?"
                print(f"  done in {r.run_seconds:.0f} s (broker start {r.start_seconds:.1f} s, "
                      f"RSS {rss}, achieved {r.achieved_rate_per_s:.0f} msg/s)")  # fmt: skip
    except (BrokerFailed, HostFailed, LoadFailed) as exc:
        print(f"trackerlab: broker run: {exc}", file=sys.stderr)
        return 1
    table = format_table(results)
    print()
    print(table)
    paths = delayed.write_results(results, out, args.smoke)
    print(f"\nwrote {len(paths)} files under {out}")
    rows = [c for r in results for c in r.comparison.itertuples()]
    kept_up = [c for c in rows if c.verdict != "broker behind"]
    if kept_up:
        worst = max(abs(c.error) for c in kept_up)
        print(f"worst error of the plan against the measured deep size: {worst:.2%} "
              f"(tolerance {delayed.TOLERANCE:.0%}; {len(kept_up)} of {len(rows)} rows)")  # fmt: skip
    behind = len(rows) - len(kept_up)
    if behind:
        print(f"{behind} rows not compared: the broker's dispatcher fell behind (entries in the "
              "backlog it had not read into the tracker; the plan assumes every entry is read "
              "as written)")  # fmt: skip
    return 1 if any(c.verdict == "outside" for c in rows) else 0


#: Experiment name -> runner (``args`` -> exit code) for ``broker run NAME`` and ``all``.
RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {"delayed": run_delayed}


def format_table(results: list) -> str:
    """One table: measured deep size, the broker's metric, the plan, the error, and
    ``simulate delayed``'s bytes and error ("n/a" where it does not apply: the results
    files say why)."""
    head = ("release", "workload", "sub", "tracker (plan design)", "measured B", "metric B",
            "plan B", "error", "simulate B", "sim error", "entries (broker/plan)",
            "verdict")  # fmt: skip
    lines = []
    for r in results:
        for c in r.comparison.itertuples():
            metric = "n/a" if c.metric_index_bytes != c.metric_index_bytes else (
                f"{c.metric_index_bytes:,.0f}")  # fmt: skip
            lines.append((
                c.pulsar_version, c.workload, c.subscription,
                f"{c.root.split('.')[-1]} ({c.design})", f"{c.measured_deep_bytes:,.0f}", metric,
                f"{c.plan_bytes:,}", f"{c.error:+.2%}",
                "n/a" if c.simulate_bytes != c.simulate_bytes else f"{c.simulate_bytes:,.0f}",
                "n/a" if c.simulate_error != c.simulate_error else f"{c.simulate_error:+.2%}",
                f"{c.msg_delayed:,.0f}/{c.plan_entries:,.0f}",
                c.verdict if c.verdict != "broker behind"
                else f"broker behind ({c.unread_backlog:,.0f} unread)",
            ))  # fmt: skip
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines, strict=True)]
    rows = [head, tuple("-" * w for w in widths), *lines]
    return "\n".join("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True))
                     for row in rows)  # fmt: skip
