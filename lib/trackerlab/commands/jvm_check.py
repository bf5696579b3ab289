"""``trackerlab jvm-check``: the JVM layout model against real Java objects."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from trackerlab.core.errors import UsageError, shown

if TYPE_CHECKING:
    from trackerlab.jvmcheck.pulsar.harness_runner import HarnessCase, Measured
    from trackerlab.jvmcheck.pulsar.maven import ClassPath


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
    p.add_argument(
        "--pulsar",
        metavar="V",
        help="check Pulsar's own classes instead: a resolved release (2.10.5 ... 4.2.4), a "
        "line (4.0) or all; built from the release's jars (Maven Central) and measured with "
        "JOL with Instrumentation, byte for byte against the catalog design the release runs",
    )
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.set_defaults(func=run, how="exact")


def run(args: argparse.Namespace) -> int:
    if args.pulsar is not None:
        return _check_pulsar(args)
    from trackerlab.jvmcheck.probe_cases import CASES as LAYOUT_CASES
    from trackerlab.jvmcheck.probe_cases import GROUPS, select_cases
    from trackerlab.models.proposals.jvm_cases import CASES as PROPOSAL_CASES

    CASES = LAYOUT_CASES + PROPOSAL_CASES
    patterns = _patterns(args.only)
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


def _patterns(only: list[str] | None) -> list[str]:
    """``--only`` values split at commas; an empty one (``--only ''``) is refused, not
    read as "every case". O(len(only))."""
    patterns = [s.strip() for item in only or [] for s in item.split(",") if s.strip()]
    if only is not None and not patterns:
        raise UsageError(
            f"jvm-check: --only needs case names or globs (trackerlab jvm-check --list), "
            f"got {shown(','.join(only))}"
        )
    return patterns


def _check(cases, how: str, uncompressed_oops: bool) -> int:
    from trackerlab.core.java_runtime import JavaMissing
    from trackerlab.core.log4j import py4j_messages_to
    from trackerlab.jvmcheck.probe import ProbeUnavailable, get_probe
    from trackerlab.jvmcheck.probe_cases import SOURCES, TOLERANCE, run_cases

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
    print(
        "objects: JDK, RoaringBitmap and fastutil classes (library), or trackerlab's stand-ins "
        "for Pulsar structures no release has; Pulsar's own classes: jvm-check --pulsar all"
    )
    print(
        f"{'case':<{width}}  {'model B':>10}  {'measured B':>10}  {'diff %':>7}  verdict  objects"
    )
    group = {c.name: c.group for c in cases}
    for r in results:
        measured = f"{r.measured:>10,}" if r.measured is not None else f"{'-':>10}"
        diff = f"{100 * r.diff:>+7.2f}" if r.diff is not None else f"{'-':>7}"
        note = f"  ({r.skipped})" if r.skipped else ""
        source = SOURCES.get(group[r.name], "library")
        print(
            f"{r.name:<{width}}  {r.model:>10,}  {measured}  {diff}  {r.verdict:<7}  {source}{note}"
        )
    counts = {v: sum(r.verdict == v for r in results) for v in ("OK", "FAIL", "SKIP")}
    print(
        f"{len(results)} cases: {counts['OK']} OK, {counts['FAIL']} FAIL, {counts['SKIP']} skipped"
        f" (JVM start {probe.started_seconds:.1f} s, cases {seconds:.2f} s)"
    )
    return 1 if counts["FAIL"] else 0


def _measure_on(classpath: ClassPath, cases: list[HarnessCase]) -> Sequence[Measured]:
    """The rows ``cases`` measure in one harness JVM on ``classpath`` (one JVM start)."""
    from trackerlab.jvmcheck.pulsar import harness_runner

    return harness_runner.run(classpath, cases).measured


def _check_pulsar(args: argparse.Namespace) -> int:
    """Real Pulsar classes per release: real bytes, model bytes, difference, verdict."""
    from trackerlab.experiments.real_pulsar import release_cases as real
    from trackerlab.jvmcheck.pulsar import harness_runner, lines, maven

    if args.how != "exact" or args.uncompressed_oops:
        raise UsageError(
            "jvm-check: --pulsar measures with JOL and Instrumentation under compressed oops; "
            "it takes neither --estimator nor --uncompressed-oops"
        )
    builds = lines.select_builds(args.pulsar)
    patterns = _patterns(args.only)
    try:
        cases = real.select(patterns)
    except ValueError as exc:
        raise UsageError(
            f"jvm-check: --only: no Pulsar case matches {exc.args[0]!r}; cases: "
            + ", ".join(c.name for c in real.CASES)
        ) from None
    if args.list:
        width = max(len(c.name) for c in cases)
        for case in cases:
            print(f"{case.name:<{width}}  {case.tracker:<13} {case.description}")
        return 0
    print(
        "jvm-check --pulsar: Pulsar's own classes from each release's jars (Maven Central), "
        "deep size by JOL GraphLayout with Instrumentation, against the catalog design the "
        "release table names"
    )
    header = (
        f"{'release':<8} {'case':<20} {'design':<34} {'real B':>10} {'model B':>10} "
        f"{'diff B':>7} {'direct real/model B':>21} {'metric real/model B':>21}  verdict"
    )
    print(header)
    results, problems = [], 0
    for b in builds:
        try:
            cp = maven.build(b.version, b.client_only)
            rows = real.run_build(b, cases, functools.partial(_measure_on, cp))
        except (
            maven.MavenUnavailable,
            maven.HarnessBuildFailed,
            harness_runner.HarnessFailed,
        ) as exc:
            print(f"{b.version:<8} skipped: {exc}")
            problems += 1
            continue
        for r in rows:
            results.append(r)
            print(_row(r))
    exact = sum(r.verdict == "exact" for r in results)
    print(
        f"{len(results)} cases on real Pulsar classes: {exact} byte-exact, "
        f"{len(results) - exact} not; {problems} release(s) not checked"
    )
    return 0 if exact == len(results) and not problems else 1


def _pair(real: int | None, model: int | None) -> str:
    def show(v: int | None) -> str:
        return "-" if v is None else f"{v:,}"

    return f"{show(real)} / {show(model)}"


def _row(r) -> str:
    diff = "-" if r.heap_diff_bytes is None else f"{r.heap_diff_bytes:+,}"
    real = "-" if r.real_heap_bytes is None else f"{r.real_heap_bytes:,}"
    model = "-" if r.model_heap_bytes is None else f"{r.model_heap_bytes:,}"
    line = (
        f"{r.version:<8} {r.case:<20} {r.design[:34]:<34} {real:>10} {model:>10} {diff:>7} "
        f"{_pair(r.real_direct_bytes, r.model_direct_bytes):>21} "
        f"{_pair(r.real_metric_bytes, r.model_metric_bytes):>21}  {r.verdict}"
    )
    return line + (f" ({r.error})" if r.error else "")
