"""``trackerlab size DESIGN``: build a catalog design for a workload and print its three
size columns; ``trackerlab designs``: the catalog."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trackerlab.core import strict_json
from trackerlab.sizing.request import OPTIONS

if TYPE_CHECKING:
    from trackerlab.models.pulsar_releases import Release
    from trackerlab.sizing.request import SizeResult

#: Workload defaults of ``trackerlab size`` (a small, fast stream), in user units.
WORKLOAD_DEFAULTS = {
    "messages": "100000",
    "rate": "1k/s",
    "start_ledger": "10000",
    "batch": "1",
    "delay": "fixed:1m",
    "pattern": "all",
    "seed": "0",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "size",
        help="build a design for a workload and print python/jvm/theory bytes",
        description=(
            "Build DESIGN (a catalog name, see `trackerlab designs`) for the messages given by "
            "the options and print python_bytes (pympler, CRoaring memory counted), jvm_bytes "
            "(HotSpot layout model; off-heap buffers in jvm_direct_bytes), theory_bytes (the "
            "seed's formula) and bytes per entry. The structure holds every message (nothing is "
            "delivered: use `trackerlab plan` for a steady state). Values carry units: 20k/s, "
            "1h, 500ms. `--list` lists the designs it can build."
        ),
    )
    p.add_argument(
        "design",
        nargs="?",
        help="design name (see --list), or a tracker (delayed, delayed-bucket, delayed-topic, "
        "nack, pending-acks) to size the design --pulsar-version runs",
    )
    p.add_argument("--list", action="store_true", help="list the designs and exit")
    p.add_argument(
        "--pulsar-version",
        default=None,
        help="Pulsar version whose structures and defaults to assume (e.g. 4.0.7, 4.1, master; "
        "default: the newest release in data/pulsar_releases.yaml)%(default).0s",
    )
    _add_value_options(p)
    p.add_argument("--shape", default=None, help=OPTIONS["shape"] + "%(default).0s")
    p.add_argument("--run-optimize", action="store_true", help=OPTIONS["run_optimize"])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="run even when the estimated time or memory exceeds this machine",
    )
    p.set_defaults(func=run)
    _add_designs(subparsers)


def _add_value_options(p: argparse.ArgumentParser) -> None:
    """The workload's options (messages, rate, delay...) and the design's valued options
    (tick, nack bits, ledgers, layout), each with its default or the release's."""
    d = WORKLOAD_DEFAULTS
    options = (
        ("--messages", d["messages"], "messages published (e.g. 1e6)"),
        ("--rate", d["rate"], "publish rate (e.g. 8/ms, 20k/s); x in the seeds"),
        ("--batch", d["batch"], "messages per entry"),
        (
            "--entries-per-ledger",
            None,
            "managedLedgerMaxEntriesPerLedger (default: the version's, 50000)",
        ),
        ("--start-ledger", d["start_ledger"], "first ledger id"),
        (
            "--delay",
            d["delay"],
            "delay distribution (units required): fixed:1m, uniform:0:1h, "
            "exponential:5s, empirical:FILE, mix:0.8*fixed:1m+0.2*uniform:1h:1d",
        ),
        (
            "--pattern",
            d["pattern"],
            "which messages are nacked/delayed: all, fraction:F, burst:ON:OFF",
        ),
        ("--seed", d["seed"], "workload seed"),
        ("--tick", None, OPTIONS["tick_ms"] + " (default: the version's, 1s)"),
        (
            "--nack-precision-bits",
            None,
            OPTIONS["trim_bits"] + ", 0..62 (default: the version's, 8 from 4.0.2)",
        ),
        ("--ledgers", "1", OPTIONS["ledgers"]),
        ("--layout", "compressed", OPTIONS["layout"]),
    )
    for flag, default, text in options:
        shown = "" if default is None else f" (default: {default})"  # None: the release's
        p.add_argument(flag, default=default, help=f"{text}{shown}".replace("%", "%%"))


def _add_designs(subparsers: argparse._SubParsersAction) -> None:
    """``trackerlab designs``: the catalog."""
    q = subparsers.add_parser(
        "designs",
        help="list the catalog: every design, its Pulsar class, releases and capabilities",
        description="Every design trackerlab models, under the name every command uses.",
    )
    q.add_argument("--json", action="store_true", help="print one JSON object per design")
    q.set_defaults(func=run_designs)


def _print_catalog(buildable: Sequence[str], listing: bool) -> int:
    """``size --list``: one line per buildable design; without ``--list``, the usage error."""
    from trackerlab.catalog import CATALOG
    from trackerlab.core.errors import UsageError

    if not listing:
        raise UsageError(f"size needs a DESIGN; choose one of: {', '.join(buildable)}")
    for name in buildable:
        design = CATALOG[name]
        print(f"{name:30s} {design.summary}  [options: {', '.join(design.options) or 'none'}]")
    return 0


def _fill_release_defaults(args: argparse.Namespace, defaults: dict[str, int]) -> None:
    """Options left unset take the Pulsar release's defaults (tick, nack bits, ledger size)."""
    if args.tick is None:
        args.tick = f"{defaults['tick_ms']}ms"
    if args.nack_precision_bits is None:
        args.nack_precision_bits = str(defaults["trim_bits"])
    if args.entries_per_ledger is None:
        args.entries_per_ledger = str(defaults["entries_per_ledger"])


def _workload_numbers(args: argparse.Namespace) -> tuple[int, float, int, int, int, int]:
    """Messages, rate (per ms), batch, entries per ledger, start ledger and seed, checked in
    that order with their flag names."""
    from trackerlab.core.params import MAX_SEED, check_float
    from trackerlab.workloads.stream import MAX_RATE_PER_MS, MIN_RATE_PER_MS
    from trackerlab.workloads.units import parse_count, parse_rate_per_ms

    messages = parse_count(args.messages, "--messages", 0, 10**11)
    rate = check_float(
        "--rate (messages per ms)",
        parse_rate_per_ms(args.rate, "--rate"),
        MIN_RATE_PER_MS,
        MAX_RATE_PER_MS,
    )
    batch = parse_count(args.batch, "--batch", 1, 100_000)
    epl = parse_count(args.entries_per_ledger, "--entries-per-ledger", 1, 1 << 30)
    start_ledger = parse_count(args.start_ledger, "--start-ledger", 0, (1 << 62))
    seed = parse_count(args.seed, "--seed", 0, MAX_SEED)
    return messages, rate, batch, epl, start_ledger, seed


def _design_options(args: argparse.Namespace) -> dict[str, Any]:
    """The design options (tick, nack bits, ledgers, layout...), checked by a SizeRequest."""
    from trackerlab.core.errors import UsageError
    from trackerlab.sizing.request import SizeRequest
    from trackerlab.workloads.stream import Workload
    from trackerlab.workloads.units import parse_count, parse_duration_ms

    tick = parse_duration_ms(args.tick, "--tick")
    if not (1 <= tick <= 86_400_000 and float(tick).is_integer()):
        raise UsageError(f"--tick must be a whole number of ms in 1ms..1d, got {args.tick!r}")
    options = dict(
        trim_bits=parse_count(args.nack_precision_bits, "--nack-precision-bits", 0, 62),
        tick_ms=int(tick),
        ledgers=parse_count(args.ledgers, "--ledgers", 1, 1 << 20),
        layout=args.layout,
        run_optimize=args.run_optimize,
        shape=args.shape,
    )
    SizeRequest(Workload(0), **options)  # validates the design options
    return options


def _print_sizes(
    release: Release, note: str | None, result: SizeResult, row: dict[str, Any]
) -> None:
    """The text output: release, design, entries, each size column with its bytes per entry,
    then the design's details."""
    from trackerlab.sizing.request import SIZE_COLUMNS

    print(f"pulsar_version     {release.label} (structures and defaults assumed)")
    if note:
        print(f"note               {note}")
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
        if key != "pulsar_version":  # printed first
            print(f"{key:18s} {value}")


def run(args: argparse.Namespace) -> int:
    from trackerlab.catalog import CATALOG, size
    from trackerlab.catalog import versioned as cv
    from trackerlab.core.budget import check as check_budget
    from trackerlab.core.errors import UsageError
    from trackerlab.experiments.costs import size_estimate
    from trackerlab.models import pulsar_releases
    from trackerlab.sizing.request import SizeRequest
    from trackerlab.workloads.delay_spec import DelaySpec
    from trackerlab.workloads.stream import PatternSpec, Workload

    buildable = CATALOG.names("build")
    if args.list or not args.design:
        return _print_catalog(buildable, args.list)
    release = pulsar_releases.resolve(args.pulsar_version)
    _fill_release_defaults(args, cv.request_defaults(release))
    # the options first, with their flag names, then the design
    messages, rate, batch, epl, start_ledger, seed = _workload_numbers(args)
    options = _design_options(args)
    delay, pattern = DelaySpec.parse(args.delay), PatternSpec.parse(args.pattern)
    tracker = cv.TRACKER_ALIASES.get(args.design)
    if tracker is None:
        CATALOG.check(args.design, buildable)
    check_budget(size_estimate(args.design, messages), args.allow_large)
    workload = Workload(
        messages,
        rate,
        entries_per_ledger=epl,
        start_ledger=start_ledger,
        batch_size=batch,
        delay=delay,
        pattern=pattern,
        seed=seed,
    )
    request = SizeRequest(workload, **options)
    note = None
    if tracker is not None:
        choice, result = cv.size_for_version(tracker, release, request)
        if result is None:
            why = choice.missing or f"{choice.evidence}: {choice.source}"
            raise UsageError(
                f"{release.label} {tracker}: {choice.design or 'no catalog design'} ({why})"
            )
    else:
        result = cv.annotate(size(args.design, request), None, release, request)
        note = cv.version_note(args.design, release)
    row = result.as_dict()
    if args.json:
        print(strict_json.dumps(row))
        return 0
    _print_sizes(release, note, result, row)
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
            print(strict_json.dumps(row))
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
