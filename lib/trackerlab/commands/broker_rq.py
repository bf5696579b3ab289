"""``trackerlab broker receiver-queue``: PR #976's tables (N46–N57) on a real broker, with the
Go and the Java client, each run in a network namespace of its own that holds only loopback
(:mod:`trackerlab.experiments.real_broker.receiver_queue_live`)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

#: ``--runs``' range.
MAX_RUNS = 20
#: ``--seconds``' range (s).
MIN_SECONDS, MAX_SECONDS = 10.0, 3600.0
#: ``--smoke``: one rate, one partition, a short run.
SMOKE_ROW, SMOKE_SECONDS = "N48", 20.0
#: ``--smoke``'s broker: the release CI resolves already (``.ci/run``).
SMOKE_VERSION = "4.2.4"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``broker receiver-queue`` under ``broker``'s actions."""
    from trackerlab.experiments.real_broker import receiver_queue_live as rq

    text = (
        "PR #976's receiver-queue tables (N46-N57) on a real standalone: per row a topic (with "
        "its partitions) and two subscriptions, the PR's Go perf consumer (pulsar-client-go "
        "v0.10.0, --enable-auto-scaled-queue-size, queue sizes from its debug lines) and a Java "
        "consumer of the release's client (autoScaledReceiverQueueSizeEnabled, "
        "getCurrentReceiverQueueSize every 20 ms), fed by the PR's producer (perf produce "
        "-r RATE -s 128 -b 0). Rows run one at a time, as the PR ran them. Each run "
        "has a fresh broker inside a network namespace holding only its own loopback (the Go "
        "perf tool binds *:8000); needs root and iproute2. Writes Parquet with provenance per "
        "run and prints each row's outcomes at 30 s, 60 s and 120 s. The full table (12 rows, "
        "3 runs) takes about 85 minutes."
    )
    q = sub.add_parser("receiver-queue", help="PR #976's receiver-queue tables on a real broker",
                       description=text)  # fmt: skip
    q.add_argument("--pulsar-version", default=None, metavar="V",
                   help="the broker's release (2.11.0, 3.0.7, 4.0.1, 4.0.8, 4.2.4) "
                   f"(default: {rq.DEFAULT_VERSION}, the line current when the PR was measured)")  # fmt: skip
    q.add_argument("--rows", default="N46-N57", metavar="IDS",
                   help="published ids, comma-separated, or a range (default: N46-N57)")  # fmt: skip
    q.add_argument("--runs", type=int, default=3, metavar="K",
                   help=f"runs, each on a fresh broker (default: 3; 1 to {MAX_RUNS})")  # fmt: skip
    q.add_argument("--seconds", default=f"{rq.RUN_S:g}s", metavar="DURATION",
                   help=f"how long the producer runs (default: {rq.RUN_S:g}s; "
                   f"{MIN_SECONDS:g}s to {MAX_SECONDS / 60:g}m)")  # fmt: skip
    q.add_argument("--smoke", action="store_true",
                   help=f"one run (whatever --runs says) of {SMOKE_ROW} (10 msg/s, one partition) for "
                   f"{SMOKE_SECONDS:g}s, on Pulsar {SMOKE_VERSION} unless --pulsar-version is given")  # fmt: skip
    q.add_argument("--together-up-to", type=int, default=rq.WAVE_MAX_RATE_PER_S, metavar="RATE",
                   help="run the rows at or below RATE msg/s at once, one topic each (an "
                   "ablation: on two cores they end larger than alone); default: "
                   f"{rq.WAVE_MAX_RATE_PER_S}, every row alone; 0 to 20000")  # fmt: skip
    q.add_argument("--out", type=Path, default=None,
                   help="folder for the Parquet results (default: data/broker/receiver_queue/)")  # fmt: skip
    q.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)


def parse_rows(text: str) -> list[str]:
    """``N46-N57``, ``N53,N54`` or a mix; UsageError naming the allowed ids."""
    from trackerlab.core.errors import UsageError
    from trackerlab.experiments.reproduce.receiver_queue import IDS

    ids: list[str] = []
    for part in (p.strip().upper() for p in str(text).split(",")):
        lo, _, hi = part.partition("-")
        if lo in IDS and (not hi or hi in IDS) and IDS.index(hi or lo) >= IDS.index(lo):
            ids += [i for i in IDS[IDS.index(lo) : IDS.index(hi or lo) + 1] if i not in ids]
        else:
            raise UsageError(f"--rows {text}: {part or 'nothing'} is not among {IDS[0]}-{IDS[-1]} "
                             "(ids or ranges, comma-separated)")  # fmt: skip
    return ids


def queue_rows(ids: list[str] | None = None):
    """N46–N57 (or ``ids`` of them) as the PR ran them, from the published numbers."""
    from trackerlab.experiments.real_broker.receiver_queue_live import QueueRow
    from trackerlab.experiments.reproduce import receiver_queue as published

    rows = published.table_rows(published.IDS if ids is None else ids)
    return [QueueRow(r.id, int(r.rate), r.partitions) for r in rows]


def _checked(args: argparse.Namespace) -> tuple[list[str], float, str]:
    from trackerlab.broker import select_release
    from trackerlab.core.errors import UsageError
    from trackerlab.experiments.real_broker import receiver_queue_live as rq
    from trackerlab.workloads.units import parse_duration_ms

    if not 0 <= args.together_up_to <= 20_000:
        raise UsageError(f"--together-up-to {args.together_up_to}: must be in [0, 20000] msg/s")
    if not 1 <= args.runs <= MAX_RUNS:
        raise UsageError(f"--runs {args.runs}: must be in [1, {MAX_RUNS}]")
    seconds = parse_duration_ms(args.seconds, "--seconds") / 1000
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise UsageError(f"--seconds {args.seconds}: must be in [{MIN_SECONDS:g}s, "
                         f"{MAX_SECONDS / 60:g}m]")  # fmt: skip
    version = args.pulsar_version or (SMOKE_VERSION if args.smoke else rq.DEFAULT_VERSION)
    if args.smoke:
        args.runs = 1
    rows = [SMOKE_ROW] if args.smoke else parse_rows(args.rows)
    if args.smoke:
        seconds = SMOKE_SECONDS
    return rows, seconds, select_release(version).version


def run(args: argparse.Namespace) -> int:
    """Outside a namespace: build what the runs need (network), then each run in a namespace
    of its own (this command again, ``--inside``, which prints its outcomes). Inside: one run."""
    from trackerlab.core.paths import data_dir

    ids, seconds, version = _checked(args)
    out = args.out if args.out is not None else data_dir() / "broker" / "receiver_queue"
    if args.inside:
        return _inside(ids, seconds, version, out, args)
    return _outside(ids, seconds, version, out, args)


def _prepare(version: str) -> str | None:
    """Build the Go perf tool and the host, resolve the broker: one line when one is missing."""
    from trackerlab import broker
    from trackerlab.broker import goperf, host, netns
    from trackerlab.jvmcheck.pulsar.maven import MavenUnavailable

    why = netns.unavailable()
    if why:
        return f"no network namespace: {why}"
    try:
        t0 = time.perf_counter()
        perf = goperf.build()
        built = host.build(version)
        broker.prepare(version)
    except (goperf.GoPerfUnavailable, goperf.GoPerfBuildFailed, MavenUnavailable,
            broker.BrokerUnavailable) as exc:  # fmt: skip
        return str(exc)
    go = f"built in {perf.seconds:.0f} s" if perf.seconds else "cached"
    print(f"ready in {time.perf_counter() - t0:.1f} s: {goperf.MODULE}@{goperf.VERSION} "
          f"({go}), the Java "
          f"consumer against Pulsar {version} ({'built' if built.seconds else 'cached'})")  # fmt: skip
    return None


def _outside(ids: list[str], seconds: float, version: str, out: Path, args) -> int:
    from trackerlab.broker import netns

    missing = _prepare(version)
    if missing:
        print(f"trackerlab: broker receiver-queue: {missing}", file=sys.stderr)
        return 1
    t0 = time.monotonic()
    for k in range(1, args.runs + 1):
        print(f"run {k}/{args.runs}: {', '.join(ids)} on Pulsar {version}, {seconds:g} s each")
        argv = [sys.executable, "-m", "trackerlab", "broker", "receiver-queue", "--inside",
                "--pulsar-version", version, "--rows", ",".join(ids), "--runs", "1",
                "--seconds", f"{seconds:g}s", "--out", str(out.resolve()),
                "--together-up-to", str(args.together_up_to)]  # fmt: skip
        if args.smoke:
            argv.append("--smoke")
        try:
            with netns.loopback_namespace() as ns:
                code = _call(ns.command(argv))
        except netns.NamespaceFailed as exc:
            print(f"trackerlab: broker receiver-queue: {exc}", file=sys.stderr)
            return 1
        if code != 0:
            print(
                f"trackerlab: broker receiver-queue: run {k} failed (exit {code})", file=sys.stderr
            )
            return 1
    print(f"{args.runs} run(s) in {time.monotonic() - t0:.0f} s; results under {out}")
    return 0


def _call(argv: list[str]) -> int:
    """Run the inner command; on Ctrl-C (which it gets too) wait up to a minute for it to
    stop its broker and clients by PID, then kill it. Its exit code."""
    proc = subprocess.Popen(argv)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise


def _inside(ids: list[str], seconds: float, version: str, out: Path, args) -> int:
    from trackerlab.broker import BrokerFailed
    from trackerlab.broker.host import HostFailed
    from trackerlab.broker.loadgen import LoadFailed
    from trackerlab.experiments.real_broker import receiver_queue_live as rq

    try:
        runs, facts = rq.run(queue_rows(ids), version, seconds,
                             together_up_to_per_s=args.together_up_to)  # fmt: skip
    except (RuntimeError, OSError, BrokerFailed, HostFailed, LoadFailed) as exc:
        print(f"trackerlab: broker receiver-queue: {exc}", file=sys.stderr)
        return 1
    try:
        paths = rq.write(runs, facts, out, args.smoke)
    except OSError as exc:
        print(f"trackerlab: broker receiver-queue: cannot write the results under {out}: "
              f"{exc.strerror or exc}", file=sys.stderr)  # fmt: skip
        return 1
    print(f"  wrote {', '.join(p.name for p in paths)} in {facts['wall_seconds']:g} s")
    table = rq.outcomes(rq.frames(runs, str(facts["run_id"]), version, seconds)[""])
    for r in runs:
        for client in rq.CLIENTS:
            sel = table[(table["row_id"] == r.row.id) & (table["client"] == client)]
            shown = "; ".join(
                f"{t:g}s {o}" for t, o in zip(sel["t_s"], sel["outcome"], strict=True)
            )
            print(
                f"  {r.row.id} {r.row.rate_per_s}/s x{r.row.partitions} {client}: {shown or 'no readings'}"
            )
    return 0
