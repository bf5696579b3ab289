"""``trackerlab bench TARGET``: benchmarks that print rates and ratios measured in one run.

Each target is a sub-subcommand registered in :data:`BENCHES` (name -> function adding its
parser); the work is in :mod:`trackerlab.bench`, imported inside the handler.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_text
from trackerlab.workloads.units import duration_in


def _add_heaps(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "heaps",
        help="pair map and triple heap: bulk build vs per-operation Python loop",
        description=(
            "Build ConcurrentLongLongPairHashMap (NegativeAcksTracker v.B) and "
            "TripleLongPriorityQueue from --messages entries with the bulk path, and from "
            "--loop-messages entries with the per-operation model; print messages/s, the ratio "
            "and the seconds taken to size the bulk result."
        ),
    )
    p.add_argument("--messages", type=int, default=10_000_000, help="bulk entries (1..1e9)")
    p.add_argument(
        "--loop-messages", type=int, default=100_000, help="per-operation entries (1..1e7)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the entries")
    p.set_defaults(func=_run_heaps)


def _run_heaps(args: argparse.Namespace) -> int:
    from trackerlab.bench.heaps_bench import bench_heaps, format_rows
    from trackerlab.core.params import check_int, check_seed

    check_int("--messages", args.messages, 1, 10**9)
    check_int("--loop-messages", args.loop_messages, 1, 10**7)
    check_seed("--seed", args.seed)

    print(format_rows(bench_heaps(args.messages, args.loop_messages, args.seed)))
    return 0


def _add_build(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "build",
        help="PIP-393 time buckets: bulk build vs per-message loop, sizing time, streamed peak",
        description=(
            "Build the PIP-393 NegativeAcksTracker from --messages nacks (x = 8 msg/ms, "
            "y = 10 bits) with the bulk path and from --loop-messages with the per-message "
            "API; print messages/s, the ratio, the seconds taken to size the result, and "
            "with --streamed N the peak memory of building from N messages in chunks."
        ),
    )
    p.add_argument("--messages", type=int, default=10_000_000, help="bulk messages (1..1e9)")
    p.add_argument("--loop-messages", type=int, default=200_000, help="per-message loop (1..1e7)")
    p.add_argument("--streamed", type=int, default=0, help="also stream N messages (0: skip)")
    p.set_defaults(func=_run_build)


def _run_build(args: argparse.Namespace) -> int:
    from trackerlab.bench.build import run, streamed_peak_in_subprocess
    from trackerlab.core.params import check_int

    messages = check_int("--messages", args.messages, 1, 10**9)
    loop = check_int("--loop-messages", args.loop_messages, 1, 10**7)
    streamed = check_int("--streamed", args.streamed, 0, 10**10)
    print("\n".join(run(messages, loop).lines()))
    if streamed:  # in a fresh process: ru_maxrss is a lifetime peak
        seconds, peak, entries = streamed_peak_in_subprocess(streamed)
        print(
            f"streamed build of {streamed:,} messages: {seconds:.1f} s "
            f"({streamed / seconds / 1e6:.1f} M msg/s), {entries:,} entries, "
            f"peak RSS {peak:,.0f} MiB"
        )
    return 0


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _ints(name: str, text: str) -> tuple[int, ...]:
    from trackerlab.core.params import check_int

    return tuple(check_int(name, part, 1) for part in _csv(text))


def _add_pending_acks(subparsers: argparse._SubParsersAction) -> None:
    from trackerlab.experiments.pending_acks_op_cost import CYCLES, ENTRIES, LEDGER_SPREADS

    p = subparsers.add_parser(
        "pending-acks",
        help="PendingAcksMap layouts on seed 002's JMH cycles",
        description=(
            "Run seed 002's cycles (" + ", ".join(CYCLES) + ") on the 50k-entry datasets for "
            "every PendingAcksMap layout; print Python time ratios to the treemap layout "
            "(one run), OpCost counters per operation (random accesses, streamed bytes, "
            "estimated cache lines 'touches', allocations in JVM bytes) and, per cell, which "
            "of treemap and open-hash-bitset wins against the seed's JMH tables."
        ),
    )
    p.add_argument(
        "--layouts", default=None, help="comma-separated pending-acks-* designs (default: all)"
    )
    p.add_argument(
        "--ledgers",
        default=",".join(map(str, LEDGER_SPREADS)),
        help="comma-separated ledger spreads of the dataset",
    )
    p.add_argument("--cycles", default=",".join(CYCLES), help="comma-separated cycles")
    p.add_argument("--entries", type=int, default=ENTRIES, help="pending entries (window)")
    p.add_argument("--ops", type=int, default=20_000, help="operations per dispatch cycle run")
    p.add_argument("--repeats", type=int, default=3, help="timed repeats (best is kept)")
    p.add_argument(
        "--treemap-store",
        default="jmh",
        help="jmh: the benchmark's OldProductionPendingAckStore (seed's 'old' column); "
        "pulsar: PendingAcksMap's own removeAllUpTo (copies the boundary head)",
    )
    p.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    p.set_defaults(func=_run_pending_acks)


def _run_pending_acks(args: argparse.Namespace) -> int | None:
    import sys

    from trackerlab.catalog import CATALOG
    from trackerlab.experiments.pending_acks_op_cost import (
        BenchConfig,
        format_bench,
        run_bench,
        seed_direction,
    )
    from trackerlab.models.design import PENDING_ACKS

    layouts = CATALOG.names(tracker=PENDING_ACKS)
    if args.layouts is None:
        chosen = layouts
    else:  # an empty --layouts '' is a mistake, not "all"
        chosen = tuple(
            CATALOG.check(n, layouts) for n in _csv(check_text("--layouts", args.layouts))
        )
    cfg = BenchConfig(
        layouts=chosen,
        ledgers=_ints("--ledgers", args.ledgers),
        cycles=tuple(_csv(args.cycles)),
        entries=args.entries,
        ops=args.ops,
        repeats=args.repeats,
        treemap_store=args.treemap_store,
    )
    df = run_bench(cfg, log=lambda msg: print(f"  {msg}", file=sys.stderr))
    direction = seed_direction(df)
    if args.format == "csv":
        print(df.to_csv(index=False), end="")
        return 0
    if args.format == "json":
        print(df.to_json(orient="records"))
        return 0
    print("Python model time is a ratio to treemap in the same cell (time_ratio); counters are")
    print("per operation (a whole removeAllUpTo call is one operation).\n")
    print(format_bench(df))
    if not direction.empty:
        print("\nAgainst seed 002's JMH tables (treemap -> open-hash-bitset):\n")
        cols = [
            "cycle",
            "ledgers",
            "seed_change",
            "touch_change",
            "touches_agree",
            "python_change",
            "python_agree",
        ]
        print(direction[cols].to_string(index=False, float_format=lambda v: f"{v:+.0%}"))
        agree = int(direction.touches_agree.sum())
        print(f"\ntouches agree with the seed's winner in {agree} of {len(direction)} cells")
    return None  # the table format: exit status 0 (cli maps None to 0)


def _add_receiver_queue(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "receiver-queue",
        help="receiver-queue simulator: 60 s at 20,000 msg/s, beside the stored legacy ratio",
        description=(
            "Simulate --duration-s seconds of the perf producer at --rate msg/s (1.2 M "
            "messages by default) for Go and Java, one and three partitions and a fixed "
            "queue with the modelled harness; print its wall times, FAIL for a case whose "
            "application stops consuming or falls more than 1 s of traffic behind, and "
            "beside each case the retired legacy engine's ratio as stored in "
            "data/bench/receiver_queue_legacy.json (a figure of its commit, not re-measured)."
        ),
    )
    p.add_argument("--rate", default="20k/s", help="producer rate (default 20k/s)")
    p.add_argument(
        "--duration-s",
        type=duration_in("s", "--duration-s"),
        default=60.0,
        help="simulated seconds, or a duration with its unit: 90s, 2m (default 60)",
    )
    p.add_argument(
        "--no-legacy",
        action="store_true",
        help="deprecated, no effect: the legacy engine is retired (issue 30)",
    )
    p.set_defaults(func=_run_receiver_queue)


def _run_receiver_queue(args: argparse.Namespace) -> int:
    from trackerlab.bench.receiver_queue_bench import (
        format_bench,
        load_stored_legacy,
        run_bench,
        stored_legacy_path,
    )
    from trackerlab.core.params import check_float
    from trackerlab.workloads.units import parse_rate_per_ms

    rate = check_float("--rate (msg/s)", parse_rate_per_ms(args.rate, "--rate") * 1000, 1, 1e7)
    duration = check_float("--duration-s", args.duration_s, 0, 3600, lo_open=True)
    if args.no_legacy:
        print(
            "--no-legacy is deprecated and has no effect: the legacy engine is retired",
            file=sys.stderr,
        )
    rows = run_bench(rate, duration)
    try:
        stored = load_stored_legacy()
    except FileNotFoundError:
        stored = None
        print(f"no stored legacy run at {stored_legacy_path()}: no ratio", file=sys.stderr)
    print(format_bench(rows, stored))
    return 0 if all(r.ok for r in rows) else 1


def _add_sweep(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="Spark sweep engine: end-to-end time, cost per message against N, driver memory",
        description=(
            "Sweep one-point grids of --messages (each, comma-separated: 1e7,1e8,1e9) or a "
            "whole --profile on Spark into temporary folders; print seconds, messages/s, "
            "seconds per 1e6 messages and the ratio to the first run, then the driver's peak "
            "memory (JVM heap and RSS, Python RSS). Defaults: the seed's scenario, 10,000 "
            "msg/s, tick 1 s, every message delayed 1 day, unbatched."
        ),
    )
    p.add_argument("--messages", default="1e7,1e8", help="comma-separated counts (1e4..1e11)")
    p.add_argument("--profile", default=None, help="sweep a whole profile instead")
    p.add_argument(
        "--rate-per-s", type=float, default=10_000.0, help="publish rate, messages per second"
    )
    p.add_argument("--tick", default="1s", help="delayed tracker tick (e.g. 1s, 1m)")
    p.add_argument("--trim-bits", type=int, default=None, help="nack buckets instead of --tick")
    p.add_argument("--delay", default="fixed:1d", help="delay spec, e.g. uniform:0:2d")
    p.add_argument("--batch-size", type=int, default=1, help="messages per entry")
    p.add_argument(
        "--engine",
        choices=("python", "sql"),
        default="python",
        help="the sweep engine of the grid point (spark.grid ENGINES)",
    )
    p.add_argument("--master", default=None, help="Spark master (default local[*])")
    p.set_defaults(func=_run_sweep)


def _run_sweep(args: argparse.Namespace) -> int:
    import sys

    from trackerlab.bench.sweep_bench import format_runs, grids_from_options, run_bench
    from trackerlab.core.params import check_int
    from trackerlab.spark.grid import parse_count

    messages = []
    for part in _csv(check_text("--messages", args.messages)):
        try:
            count = parse_count("--messages", part)
        except UsageError as exc:
            raise UsageError(f"--messages: {exc}") from None
        messages.append(check_int("--messages", count, 10**4, 10**11))
    tick = None if args.trim_bits is not None else args.tick
    grids = grids_from_options(
        messages,
        args.profile,
        args.rate_per_s,
        tick,
        args.trim_bits,
        args.delay,
        args.batch_size,
        args.engine,
    )
    runs, startup, memory = run_bench(
        grids, args.master, lambda m: print(f"  {m}", file=sys.stderr, flush=True)
    )
    print(format_runs(runs, startup, memory))
    return 0


def _add_plan(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "plan",
        help="the planner against --exact and against a JVM building the index message by message",
        description=(
            "For steady states of the time-bucketed delayed index holding N entries (fixed 1 h "
            "and uniform 0-2 h delays, tick 1 s), time the planner's fast answer, the --exact "
            "single-process path and a JVM loop that builds the Java structure by addLong; "
            "print the times and the ratios, all measured in this run."
        ),
    )
    p.add_argument(
        "--entries", default="1e7,1e8", help="entries held, comma-separated (default: 1e7,1e8)"
    )
    p.add_argument(
        "--exact-up-to", default="1e8", help="skip the exact path above this (default: 1e8)"
    )
    p.add_argument("--no-jvm", action="store_true", help="skip the JVM loop (default: run it)")
    p.add_argument(
        "--fleet-topics",
        default="100000",
        help="also plan a synthetic Zipf fleet of this many topics (plan --topics) and time it "
        "end to end; 0 skips it (default: 100000)",
    )
    p.add_argument(
        "--master",
        help="the fleet's Spark master (default: embedded local[*] above the fleet's stated size)",
    )
    p.set_defaults(func=_run_plan)


def _run_plan(args: argparse.Namespace) -> int:
    import sys

    from trackerlab.bench.plan_bench import bench_plan, format_rows
    from trackerlab.jvmcheck.probe import ProbeUnavailable
    from trackerlab.workloads.units import parse_count

    entries = tuple(parse_count(x, "--entries", 1000, 10**9) for x in _csv(args.entries))
    if not entries:
        raise UsageError("--entries: give at least one count, e.g. 1e7")
    exact_up_to = parse_count(args.exact_up_to, "--exact-up-to", 0, 10**10)
    fleet_topics = parse_count(args.fleet_topics, "--fleet-topics", 0, 10_000_000)
    if args.master is not None:  # refused before any row is timed (a cluster is reached)
        from trackerlab.spark.session import check_master

        check_master(args.master)
    try:
        rows = bench_plan(
            entries, exact_up_to, not args.no_jvm, lambda m: print(m, file=sys.stderr, flush=True)
        )
    except ProbeUnavailable as exc:
        raise UsageError(f"bench plan: {exc}") from None
    print(format_rows(rows))
    if fleet_topics:
        from trackerlab.bench.fleet_bench import bench_fleet

        print(bench_fleet(fleet_topics, args.master).line())
    return 0


#: Benchmark targets: name -> function adding its parser to the ``bench`` subparsers.
BENCHES: dict[str, Callable[[argparse._SubParsersAction], None]] = {
    "build": _add_build,
    "heaps": _add_heaps,
    "pending-acks": _add_pending_acks,
    "plan": _add_plan,
    "receiver-queue": _add_receiver_queue,
    "sweep": _add_sweep,
}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bench",
        help="benchmarks: rates and ratios from one run",
        description="Benchmarks. `trackerlab bench TARGET --help` for each.",
    )
    targets = p.add_subparsers(dest="target", metavar="TARGET", parser_class=type(p))
    for add in BENCHES.values():
        add(targets)
    p.set_defaults(func=_no_target)


def _no_target(args: argparse.Namespace) -> int:

    raise UsageError(f"bench needs a TARGET; choose one of: {', '.join(BENCHES)}")
