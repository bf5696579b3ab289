"""``trackerlab size DESIGN``: build a catalog design for a workload and print its three
size columns; ``trackerlab designs``: the catalog."""

from __future__ import annotations

import argparse
import json

from trackerlab.sizing.request import OPTIONS

#: Workload defaults of ``trackerlab size`` (a small, fast stream).
WORKLOAD_DEFAULTS = {
    "messages": 100_000,
    "rate_per_ms": 1.0,
    "entries_per_ledger": 50_000,
    "start_ledger": 10_000,
    "batch_size": 1,
    "delay": "fixed:60000",
    "pattern": "all",
    "seed": 0,
}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "size",
        help="build a design for a workload and print python/jvm/theory bytes",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description=(
            "Build DESIGN (a catalog name, see `trackerlab designs`) for the workload given by "
            "the options and print python_bytes (pympler, CRoaring memory counted), jvm_bytes "
            "(HotSpot layout model; off-heap buffers in jvm_direct_bytes), theory_bytes (the "
            "seed's formula) and bytes per entry. `--list` lists the designs it can build."
        ),
    )
    p.add_argument("design", nargs="?", help="design name (see --list)")
    p.add_argument("--list", action="store_true", help="list the designs and exit")
    d = WORKLOAD_DEFAULTS
    p.add_argument("--messages", type=int, default=d["messages"], help="messages published")
    p.add_argument(
        "--rate-per-ms",
        type=float,
        default=d["rate_per_ms"],
        help="messages per millisecond (x in the seeds)",
    )
    p.add_argument("--trim-bits", type=int, default=10, help=OPTIONS["trim_bits"] + ", 0..62")
    p.add_argument("--tick-ms", type=int, default=1000, help=OPTIONS["tick_ms"] + " (ms)")
    p.add_argument(
        "--entries-per-ledger",
        type=int,
        default=d["entries_per_ledger"],
        help="managedLedgerMaxEntriesPerLedger",
    )
    p.add_argument("--start-ledger", type=int, default=d["start_ledger"], help="first ledger id")
    p.add_argument("--ledgers", type=int, default=1, help=OPTIONS["ledgers"])
    p.add_argument("--batch-size", type=int, default=d["batch_size"], help="messages per entry")
    p.add_argument(
        "--delay",
        default=d["delay"],
        help="delay distribution, e.g. fixed:60000, uniform:0:60000, exponential:5000",
    )
    p.add_argument(
        "--pattern",
        default=d["pattern"],
        help="which messages are nacked/delayed: all, fraction:F, burst:ON:OFF",
    )
    p.add_argument("--seed", type=int, default=d["seed"], help="workload seed")
    p.add_argument("--layout", default="compressed", help=OPTIONS["layout"])
    p.add_argument("--run-optimize", action="store_true", help=OPTIONS["run_optimize"])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="run even when the estimated time or memory exceeds this machine",
    )
    p.set_defaults(func=run)

    q = subparsers.add_parser(
        "designs",
        help="list the catalog: every design, its Pulsar class, releases and capabilities",
        description="Every design trackerlab models, under the name every command uses.",
    )
    q.add_argument("--json", action="store_true", help="print one JSON object per design")
    q.set_defaults(func=run_designs)


def run(args: argparse.Namespace) -> int:
    from trackerlab.budget import check as check_budget
    from trackerlab.catalog import CATALOG, size
    from trackerlab.errors import UsageError
    from trackerlab.experiments.costs import size_estimate
    from trackerlab.params import MAX_LONG, check_float, check_int, check_seed
    from trackerlab.sizing.request import SIZE_COLUMNS, SizeRequest
    from trackerlab.workloads.stream import (
        MAX_MESSAGES,
        MAX_RATE_PER_MS,
        MIN_RATE_PER_MS,
        Workload,
    )

    buildable = CATALOG.names("build")
    if args.list or not args.design:
        if not args.list:
            raise UsageError(f"size needs a DESIGN; choose one of: {', '.join(buildable)}")
        for name in buildable:
            design = CATALOG[name]
            print(f"{name:30s} {design.summary}  [options: {', '.join(design.options) or 'none'}]")
        return 0
    # the options first, with their flag names, then the design
    check_int("--messages", args.messages, 0, MAX_MESSAGES)
    check_float("--rate-per-ms", args.rate_per_ms, MIN_RATE_PER_MS, MAX_RATE_PER_MS)
    check_int("--entries-per-ledger", args.entries_per_ledger, 1, (1 << 31) - 1)
    check_int("--start-ledger", args.start_ledger, 0, MAX_LONG)
    check_int("--batch-size", args.batch_size, 1, 1 << 20)
    check_seed("--seed", args.seed)
    check_int("--tick-ms", args.tick_ms, 1, 1 << 40)
    check_int("--ledgers", args.ledgers, 1, 1_000_000)
    options = dict(
        trim_bits=args.trim_bits,
        tick_ms=args.tick_ms,
        ledgers=args.ledgers,
        layout=args.layout,
        run_optimize=args.run_optimize,
    )
    SizeRequest(Workload(0), **options)  # validates the design options
    CATALOG.check(args.design, buildable)
    check_budget(size_estimate(args.design, args.messages), args.allow_large)
    workload = Workload.from_options(
        args.messages,
        args.rate_per_ms,
        delay=args.delay,
        pattern=args.pattern,
        entries_per_ledger=args.entries_per_ledger,
        start_ledger=args.start_ledger,
        batch_size=args.batch_size,
        seed=args.seed,
    )
    result = size(args.design, SizeRequest(workload, **options))
    row = result.as_dict()
    if args.json:
        print(json.dumps(row, default=str))
        return 0
    print(f"design             {result.structure}")
    print(f"entries            {result.entries}")
    for column in SIZE_COLUMNS:
        value = row[column]
        if value is None:
            continue
        per = row[column.replace("_bytes", "_bytes_per_entry")]
        per_text = f"   ({per:.4g} B/entry)" if per is not None else ""
        print(f"{column:18s} {value:,.0f}{per_text}")
    for key, value in result.details.items():
        print(f"{key:18s} {value}")
    return 0


def run_designs(args: argparse.Namespace) -> int:
    from trackerlab.catalog import CATALOG, TRACKERS

    if args.json:
        for name, d in CATALOG.items():
            row = {
                "name": name,
                "tracker": d.tracker.name,
                "side": d.tracker.side,
                "per": d.tracker.per,
                "summary": d.summary,
                "java": d.java,
                "source": d.source,
                "prs": list(d.prs),
                "releases": d.releases,
                "memory": d.memory,
                "options": list(d.options),
                "capabilities": list(d.capabilities),
                "columns": list(d.columns),
                "proposal": d.proposal,
            }
            print(json.dumps(row))
        return 0
    for tracker in TRACKERS:
        names = CATALOG.names(tracker=tracker)
        if not names:
            continue
        print(f"{tracker.name} ({tracker.side}, one per {tracker.per})")
        for name in names:
            d = CATALOG[name]
            prs = ", ".join(d.prs) or "-"
            print(f"  {name:30s} {d.summary}")
            print(f"  {'':30s} {d.java}")
            print(f"  {'':30s} releases: {d.releases}; PRs: {prs}; memory: {d.memory}")
            print(f"  {'':30s} can: {'; '.join(d.capabilities)}")
    return 0
