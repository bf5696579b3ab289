"""``trackerlab size STRUCTURE``: build a structure and print its three size columns."""

from __future__ import annotations

import argparse
import json

from trackerlab.sizing.registry import SizeRequest

_DEFAULTS = SizeRequest.__dataclass_fields__


def _default(name: str) -> object:
    return _DEFAULTS[name].default


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "size",
        help="build a structure for a workload and print python/jvm/theory bytes",
        description=(
            "Build STRUCTURE for the workload given by the options and print python_bytes "
            "(pympler, CRoaring memory counted), jvm_bytes (HotSpot layout model; off-heap "
            "buffers in jvm_direct_bytes), theory_bytes (the seed's formula) and bytes per "
            "entry. `trackerlab size --list` lists the structures."
        ),
    )
    p.add_argument("structure", nargs="?", help="structure name (see --list)")
    p.add_argument("--list", action="store_true", help="list the structures and exit")
    p.add_argument("--messages", type=int, default=_default("messages"))
    p.add_argument(
        "--rate-per-ms",
        type=float,
        default=_default("rate_per_ms"),
        help="messages per millisecond (x in the seeds)",
    )
    p.add_argument(
        "--trim-bits",
        type=int,
        default=_default("trim_bits"),
        help="timestamp bits trimmed per bucket (y in the seeds), 0..62",
    )
    p.add_argument(
        "--tick-ms", type=int, default=_default("tick_ms"), help="delayedDeliveryTickTimeMillis"
    )
    p.add_argument(
        "--entries-per-ledger",
        type=int,
        default=_default("entries_per_ledger"),
        help="managedLedgerMaxEntriesPerLedger",
    )
    p.add_argument("--start-ledger", type=int, default=_default("start_ledger"))
    p.add_argument(
        "--ledgers",
        type=int,
        default=_default("ledgers"),
        help="ledgers the entries spread over (pending acks)",
    )
    p.add_argument("--batch-size", type=int, default=_default("batch_size"))
    p.add_argument(
        "--delay",
        default=_default("delay"),
        help="delay distribution, e.g. fixed:60000, uniform:0:60000, exponential:5000",
    )
    p.add_argument(
        "--pattern",
        default=_default("pattern"),
        help="which messages are nacked/delayed: all, fraction:F, burst:ON:OFF",
    )
    p.add_argument("--seed", type=int, default=_default("seed"))
    p.add_argument(
        "--layout",
        default=_default("layout"),
        help="JVM layout: compressed, uncompressed-oops or uncompressed",
    )
    p.add_argument("--run-optimize", action="store_true", help="run-optimize the bitmaps")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from trackerlab.errors import UsageError
    from trackerlab.sizing.registry import SIZE_COLUMNS, build, structures

    if args.list or not args.structure:
        known = structures()
        if not args.list:
            raise UsageError(
                f"size needs a STRUCTURE; choose one of: {', '.join(known) or '(none yet)'}"
            )
        for s in known.values():
            print(f"{s.name:28s} {s.help}  [options: {', '.join(s.uses) or 'none'}]")
        return 0
    request = SizeRequest(
        messages=args.messages,
        rate_per_ms=args.rate_per_ms,
        trim_bits=args.trim_bits,
        tick_ms=args.tick_ms,
        entries_per_ledger=args.entries_per_ledger,
        start_ledger=args.start_ledger,
        ledgers=args.ledgers,
        batch_size=args.batch_size,
        delay=args.delay,
        pattern=args.pattern,
        seed=args.seed,
        layout=args.layout,
        run_optimize=args.run_optimize,
    )
    result = build(args.structure, request)
    row = result.as_dict()
    if args.json:
        print(json.dumps(row, default=str))
        return 0
    print(f"structure          {result.structure}")
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
