"""``trackerlab jvm-check``: the JVM layout model against real Java objects."""

from __future__ import annotations

import argparse
import sys

from trackerlab.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "jvm-check",
        help="compare the JVM layout model with real Java objects (needs Java 17+ and javac)",
        description=(
            "Build each case (TreeMap, RoaringBitmap, Roaring64Bitmap, Roaring64NavigableMap, "
            "fastutil maps, the time-bucket tracker, the design lab's proposals) in a HotSpot JVM "
            "started through pyspark, "
            "measure its deep heap size and print model bytes, measured bytes, the difference "
            "and OK/FAIL (2%% band). Exits 1 if a case fails."
        ),
    )
    p.add_argument(
        "--only",
        nargs="+",
        metavar="CASE",
        help="case names or globs, e.g. roaring64-* 'navmap-keys-*' (default: all; see --list)",
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--exact",
        dest="how",
        action="store_const",
        const="exact",
        help="measure with the Instrumentation agent (exact deep size; the default)",
    )
    how.add_argument(
        "--estimator",
        dest="how",
        action="store_const",
        const="estimator",
        help="measure with Spark's SizeEstimator (samples arrays of more than 400 elements)",
    )
    p.add_argument(
        "--uncompressed-oops",
        action="store_true",
        help="start the JVM with -XX:-UseCompressedOops (8-byte references, heaps >= 32 GB)",
    )
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.set_defaults(func=run, how="exact")


def run(args: argparse.Namespace) -> int:
    from trackerlab.jvmcheck.cases import CASES as LAYOUT_CASES
    from trackerlab.jvmcheck.cases import GROUPS, select_cases
    from trackerlab.models.proposals.jvm_cases import CASES as PROPOSAL_CASES

    CASES = LAYOUT_CASES + PROPOSAL_CASES
    patterns = [s.strip() for item in args.only or [] for s in item.split(",") if s.strip()]
    try:
        cases = select_cases(patterns, CASES)
    except ValueError as exc:
        groups = ", ".join(f"{g}-*" for g in GROUPS)
        raise UsageError(
            f"jvm-check: --only: no case matches {exc.args[0]!r}; use case names or globs like "
            f"{groups} (trackerlab jvm-check --list shows all {len(CASES)})"
        ) from None
    if args.list:
        width = max(len(c.name) for c in cases)
        for case in cases:
            print(f"{case.name:<{width}}  {case.description}")
        return 0
    return _check(cases, args.how, args.uncompressed_oops)


def _check(cases, how: str, uncompressed_oops: bool) -> int:
    from trackerlab.javacheck import JavaMissing
    from trackerlab.jvmcheck.cases import TOLERANCE, run_cases
    from trackerlab.jvmcheck.probe import ProbeUnavailable, get_probe
    from trackerlab.log4j import py4j_messages_to

    try:
        probe = get_probe(uncompressed_oops)
    except (JavaMissing, ProbeUnavailable) as exc:
        print(f"trackerlab: jvm-check: {exc}", file=sys.stderr)
        return 1
    if probe.log is not None:  # the command line's run only: a library user keeps its logging
        py4j_messages_to(probe.log)
    method = {
        "exact": "exact deep size (Instrumentation agent)",
        "estimator": "Spark SizeEstimator",
    }[how]
    lay = probe.layout
    print(
        f"jvm-check: {method}; Java {probe.java_version}, {lay.name} "
        f"(header {lay.header} B, reference {lay.ref} B); model within ±{TOLERANCE:.0%}"
    )
    results, seconds = run_cases(probe, cases, how)
    width = max(len(r.name) for r in results)
    print(f"{'case':<{width}}  {'model B':>10}  {'measured B':>10}  {'diff %':>7}  verdict")
    for r in results:
        measured = f"{r.measured:>10,}" if r.measured is not None else f"{'-':>10}"
        diff = f"{100 * r.diff:>+7.2f}" if r.diff is not None else f"{'-':>7}"
        note = f"  ({r.skipped})" if r.skipped else ""
        print(f"{r.name:<{width}}  {r.model:>10,}  {measured}  {diff}  {r.verdict}{note}")
    counts = {v: sum(r.verdict == v for r in results) for v in ("OK", "FAIL", "SKIP")}
    print(
        f"{len(results)} cases: {counts['OK']} OK, {counts['FAIL']} FAIL, {counts['SKIP']} skipped"
        f" (JVM start {probe.started_seconds:.1f} s, cases {seconds:.2f} s)"
    )
    return 1 if counts["FAIL"] else 0
