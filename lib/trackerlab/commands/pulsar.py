"""``trackerlab pulsar fetch|facts``: Pulsar's released jars from Maven Central, per line."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "pulsar",
        help="resolve Pulsar's released jars per line (Maven) and read release facts from them",
        description=(
            "fetch: resolve pulsar-broker, pulsar-client-original and pulsar-common of each "
            "release line from Maven Central into ~/.m2 and compile trackerlab's harness "
            "against them. facts: read each release's configuration defaults and tracker "
            "forms from its classes and compare them with data/pulsar_releases.yaml."
        ),
    )
    sub = p.add_subparsers(dest="pulsar_command", metavar="ACTION", required=True)
    for name, text in (
        ("fetch", "resolve and compile against each release (cached in ~/.m2 and the cache)"),
        ("facts", "measure each release's defaults and tracker forms; compare with the table"),
    ):
        q = sub.add_parser(name, help=text, description=text)
        q.add_argument(
            "--pulsar-version",
            default="all",
            metavar="V",
            help="a resolved release (2.10.5, 4.2.4...), a line (4.0) or all",
        )
        if name == "facts":
            q.add_argument(
                "--write",
                action="store_true",
                help="record the measurements in data/pulsar_measured.yaml",
            )
        q.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from trackerlab.jvmcheck.pulsar import lines

    builds = lines.select_builds(args.pulsar_version)
    if args.pulsar_command == "fetch":
        return _fetch(builds)
    return _facts(builds, args.write)


def _fetch(builds) -> int:
    from trackerlab.jvmcheck.pulsar import maven

    failed = 0
    for b in builds:
        try:
            cp = maven.build(b.version, b.client_only)
        except (maven.MavenUnavailable, maven.HarnessBuildFailed) as exc:
            failed += 1
            print(f"trackerlab: pulsar fetch: {exc}", file=sys.stderr)
            continue
        how = f"resolved and compiled in {cp.seconds:.0f} s" if cp.seconds else "cached"
        scope = "client and common jars only" if b.client_only else "broker, client and common"
        print(f"{b.version:<8} {len(cp.jars):>4} jars ({scope}), {how}")
    return 1 if failed else 0


def _facts(builds, write: bool) -> int:
    from trackerlab.experiments.real_pulsar import facts
    from trackerlab.jvmcheck.pulsar import harness_runner, maven

    records = {}
    for b in builds:
        try:
            cp = maven.build(b.version, b.client_only)
            run = harness_runner.facts(cp)
        except (
            maven.MavenUnavailable,
            maven.HarnessBuildFailed,
            harness_runner.HarnessFailed,
        ) as exc:
            print(f"trackerlab: pulsar facts: {exc}", file=sys.stderr)
            return 1
        records[b.version] = rec = facts.measure(b, cp, run)
        print(f"{b.version} ({b.line}): " + ", ".join(
            f"{t}={f['design']}" + (f"/{f['shape']}" if f.get("shape") else "")
            + (f" {f['variant']}" if f.get("variant") else "")
            for t, f in rec["trackers"].items()))  # fmt: skip
    if write:
        print(f"wrote {facts.write(records)}")
    problems = facts.disagreements(records)
    for line in problems:
        print(f"table differs: {line}")
    if problems:
        print(
            f"trackerlab: pulsar facts: data/pulsar_releases.yaml differs from the jars in "
            f"{len(problems)} places (listed above); correct the table",
            file=sys.stderr,
        )
        return 1
    print(f"data/pulsar_releases.yaml agrees with the jars of {len(records)} releases")
    return 0
