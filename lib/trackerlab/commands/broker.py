"""``trackerlab broker start|stop|status|run``: a real Pulsar standalone on loopback, by PID
(``run``: :mod:`trackerlab.commands.broker_run`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import trackerlab.commands.broker_rq as broker_rq
import trackerlab.commands.broker_run as broker_run

#: ``status``'s exit code when no broker runs (as an LSB init script's ``status``).
NOT_RUNNING = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "broker",
        help="run a real Pulsar standalone broker on 127.0.0.1 (start, stop, status, run, compare)",
        description=(
            "A Pulsar standalone (PulsarStandaloneStarter) from the release's Maven artifacts, "
            "listening on 127.0.0.1 only, on free ports, with one bookie, RocksDB metadata, no "
            "functions worker, pools for two cores and a fresh data folder per run. start "
            "returns once the admin API lists the cluster and prints the start time; stop "
            "sends SIGTERM to its process group, then SIGKILL after --timeout."
        ),
    )
    sub = p.add_subparsers(dest="broker_command", metavar="ACTION", required=True)
    _add_start(sub)
    _add_stop_status(sub)
    broker_run.add_parser(sub)
    broker_rq.add_parser(sub)
    _add_compare(sub)
    sub.choices["run"].set_defaults(func=run)
    sub.choices["receiver-queue"].set_defaults(func=run)


def _add_start(sub: argparse._SubParsersAction) -> None:
    """``broker start``: release, run folder and readiness timeout."""
    q = sub.add_parser("start", help="start a broker and wait until it is ready")
    q.add_argument(
        "--pulsar-version",
        default=None,
        metavar="V",
        help="a runnable release (2.11.0, 3.0.7, 4.0.1, 4.0.8, 4.2.4) or a line (4.0); "
        "default: the newest",
    )
    q.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="the run folder, new or empty (default: a new folder under "
        "~/.cache/trackerlab/broker/)",
    )
    q.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds to wait until ready (default: 240)",
    )
    q.set_defaults(func=run)


def _add_stop_status(sub: argparse._SubParsersAction) -> None:
    """``broker stop`` and ``broker status``: a run folder or every run; stop's timeout."""
    for name, text in (
        ("stop", "stop a broker (default: every running one trackerlab started)"),
        (
            "status",
            "say whether a broker runs: PID, ports, uptime, memory, TCP listens, bound UDP",
        ),
    ):
        q = sub.add_parser(name, help=text, description=text)
        q.add_argument(
            "--dir",
            type=Path,
            default=None,
            help="the run folder (default: every run under ~/.cache/trackerlab/broker/)",
        )
        if name == "stop":
            q.add_argument(
                "--timeout",
                type=float,
                default=None,
                metavar="S",
                help="seconds between SIGTERM and SIGKILL (default: 30)",
            )
            q.add_argument("--keep-data", action="store_true", help="keep the run's data/ folder")
        q.set_defaults(func=run)


def _add_compare(sub: argparse._SubParsersAction) -> None:
    """``broker compare``: the stored runs' comparisons derived again, no broker."""
    text = (
        "derive the delayed comparison of every stored run again from its samples with "
        "today's planner (no broker: the samples hold the backlog, the tracker's deep size "
        "and the rate), print the table, and rewrite each comparison file atomically"
    )
    q = sub.add_parser("compare", help=text, description=text)
    q.add_argument("--results", type=Path, default=None,
                   help="folder of stored results (default: data/broker/ in the repository)")  # fmt: skip
    q.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from trackerlab.core.errors import UsageError

    for name in ("timeout",):
        value = getattr(args, name, None)
        if value is not None and not 0 < value <= 3600:
            raise UsageError(f"--{name} {value:g}: must be in (0, 3600] seconds")
    if args.broker_command == "start":
        return _start(args)
    if args.broker_command == "stop":
        return _stop(args)
    if args.broker_command == "run":
        return broker_run.run(args)
    if args.broker_command == "receiver-queue":
        return broker_rq.run(args)
    if args.broker_command == "compare":
        return broker_run.compare_stored(args.results)
    return _status(args)


def _start(args: argparse.Namespace) -> int:
    from trackerlab import broker

    timeout = args.timeout or broker.process.READY_TIMEOUT_S
    try:
        b = broker.start(args.pulsar_version, args.dir, timeout_s=timeout, attached=False)
    except broker.BrokerFailed as exc:
        print(f"trackerlab: broker start: {exc}", file=sys.stderr)
        return 1
    how = f"resolved in {b.classpath_seconds:.0f} s" if b.classpath_seconds else "cached"
    print(f"Pulsar {b.version} standalone ready in {b.start_seconds:.1f} s (pid {b.pid})")
    print(f"  broker   {b.service_url}")
    print(f"  admin    {b.admin_url}")
    print(f"  bookie   127.0.0.1:{b.ports.bookie}")
    print(f"  run      {b.run_dir}  (log: {b.log.name}; class path {how})")
    print(f"stop it with: trackerlab broker stop --dir {b.run_dir}")
    return 0


def _targets(folder: Path | None) -> list[Path]:
    from trackerlab import broker

    return [folder] if folder is not None else broker.runs()


def _stop(args: argparse.Namespace) -> int:
    from trackerlab import broker

    timeout = args.timeout or broker.process.STOP_TIMEOUT_S
    stopped = 0
    for folder in _targets(args.dir):
        if args.dir is None and not broker.status(folder).running:
            continue
        s = broker.stop(folder, timeout_s=timeout, keep_data=args.keep_data)
        if s.how == "not running":
            print(f"not running: {s.broker.run_dir}")
            continue
        stopped += 1
        print(
            f"stopped Pulsar {s.broker.version} (pid {s.broker.pid}) by {s.how} in "
            f"{s.seconds:.1f} s: {s.broker.run_dir}"
        )
    if args.dir is None and not stopped:
        print("no broker running")
    return 0


def _status(args: argparse.Namespace) -> int:
    from trackerlab import broker

    running = 0
    for folder in _targets(args.dir):
        st = broker.status(folder)
        b = st.broker
        if not st.running:
            if args.dir is not None:
                print(f"not running: Pulsar {b.version} (pid {b.pid} gone): {b.run_dir}")
            continue
        running += 1
        rss = f"{st.rss_bytes / 2**20:.0f} MiB" if st.rss_bytes else "?"
        print(
            f"running: Pulsar {b.version}, pid {b.pid}, up {st.uptime_s:.0f} s, RSS {rss}, "
            f"started in {b.start_seconds:.1f} s"
        )
        print(
            f"  ports    broker {b.ports.broker}, web {b.ports.web}, bookie {b.ports.bookie} "
            f"({b.service_url}, {b.admin_url})"
        )
        print(f"  listens  {', '.join(map(str, st.listening)) or 'nothing'}")
        udp = [str(broker.Listening(s.address, s.port, s.pid)) for s in st.udp]
        print(f"  udp      {', '.join(udp) or 'nothing'}")
        print(f"  run      {b.run_dir}")
    if args.dir is None and not running:
        print("no broker running")
    return 0 if running else NOT_RUNNING
