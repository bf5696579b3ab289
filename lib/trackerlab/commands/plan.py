"""``trackerlab plan``: a workload in a Pulsar user's terms in; memory per tracker out."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from trackerlab.planner.defaults import defaults_for
from trackerlab.planner.workload import FIELDS, REQUIRED

if TYPE_CHECKING:
    from trackerlab.planner.memory_plan import Plan
    from trackerlab.planner.verify import Verified

DESCRIPTION = """\
Plan the memory of Pulsar's message trackers for a workload: the delayed-delivery index and
the pending acks on the broker, the negative-ack tracker and the receiver queue on the
client. Every design of each tracker is sized at steady state (the release's own marked),
per unit and per subscription, topic and broker, with the precision it pays. Values carry
units (20k/s, 500ms, 1h, 512MiB, 2%); a value left out takes Pulsar's default for
--pulsar-version, and the output lists every default it assumed. Give the workload as flags
or as a YAML file of the same keys (--workload my.yaml; flags override it)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "plan",
        help="memory per tracker, design and precision for a workload (capacity planner)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_workload_flags(p)
    _add_planning_flags(p)
    _add_fleet_and_format_flags(p)
    p.set_defaults(func=run)


def _add_workload_flags(p: argparse.ArgumentParser) -> None:
    """``--workload FILE`` and one flag per workload field, with the default release's value."""
    p.add_argument(
        "--workload", metavar="FILE", help="YAML file of workload keys (e.g. rate: 20k/s)"
    )
    defaults = defaults_for(None)
    for f in FIELDS:
        default = "required" if f.name in REQUIRED else f.default_text(defaults)
        text = f"{f.help} (e.g. {f.example}; default: {default})"
        p.add_argument(f.flag, dest=f.name, help=text.replace("%", "%%"))


def _add_planning_flags(p: argparse.ArgumentParser) -> None:
    """How to plan: budget, early delivery, designs, --exact and its Spark master, seed,
    --verify."""
    p.add_argument(
        "--budget",
        help="memory budget to fit: the delayed index per broker, "
        "else the nack trackers per topic (e.g. 512MiB; default: none)",
    )
    p.add_argument("--max-early", help="largest acceptable early delivery (e.g. 1s; default: none)")
    p.add_argument(
        "--designs",
        help="comma-separated catalog designs to show besides each release's own "
        "(default: every design that can be sized from counts)",
    )
    p.add_argument(
        "--exact",
        action="store_true",
        help="size a message-level snapshot instead of closed forms (default: off)",
    )
    p.add_argument(
        "--master",
        help="with --exact: the Spark master to fold the messages on (default: Spark local[*] "
        "above 5e7 entries, this process below); with --topics FILE: the fleet's (default: "
        "Spark local[*] above 400 plans)",
    )
    p.add_argument(
        "--seed", default="0", help="seed of the sampled buckets and messages (default: 0)"
    )
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="with --exact: run even when the estimated time or memory exceeds this machine",
    )
    p.add_argument(
        "--verify",
        action="store_true",
        help="also build the planned steady state in Pulsar's own tracker classes (the "
        "release's jars from Maven Central, measured with JOL) and print real bytes beside the "
        "planned ones, up to 2,000,000 entries per tracker (default: off)",
    )


def _add_fleet_and_format_flags(p: argparse.ArgumentParser) -> None:
    """A fleet's brokers and Parquet output, and the output format (JSON or CSV)."""
    p.add_argument(
        "--brokers",
        default="1",
        help="with --topics FILE: brokers the fleet spreads over, evenly (default: 1)",
    )
    p.add_argument(
        "--out",
        metavar="FILE.parquet",
        help="with --topics FILE: also write the per-topic table as Parquet with provenance "
        "(default: none)",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print one JSON document")
    fmt.add_argument("--csv", action="store_true", help="print the rows as CSV")


def run(args: argparse.Namespace) -> int:
    from trackerlab.core.errors import UsageError
    from trackerlab.core.params import MAX_SEED
    from trackerlab.planner.inputs import parse_budget, parse_max_early
    from trackerlab.planner.memory_plan import plan
    from trackerlab.planner.workload import PlanWorkload
    from trackerlab.workloads.units import parse_count

    given = {f.name: getattr(args, f.name) for f in FIELDS}
    if _fleet_file(given["topics"]):
        return _fleet(args, given)
    for flag, value in (("--brokers", args.brokers != "1"), ("--out", args.out)):
        if value:
            raise UsageError(f"{flag}: only a fleet takes it; add --topics FILE")
    if given["pulsar_version"] is not None and "," in str(given["pulsar_version"]):
        return _compare(args, given)
    if args.workload:
        workload = PlanWorkload.from_file(args.workload, given)
    else:
        workload = PlanWorkload.parse({k: v for k, v in given.items() if v is not None})
    budget = parse_budget(args.budget)
    max_early = parse_max_early(args.max_early)
    seed = parse_count(args.seed, "--seed", 0, MAX_SEED)
    designs = _designs(args.designs)
    _check_master_flag(args.master, args.exact)
    if args.exact:
        from trackerlab.core.budget import check as check_budget

        check_budget(_exact_estimate(workload, seed), args.allow_large)
    result = plan(
        workload,
        exact=args.exact,
        budget_bytes=budget,
        max_early_ms=max_early,
        seed=seed,
        designs=designs,
        master=args.master,
    )
    checked = None
    if args.verify:
        if args.json or args.csv:
            raise UsageError("--verify prints a table: drop --json/--csv")
        checked = _verify(workload, result, seed)
    _print_plan(args, result, checked)
    return 0


def _designs(text: str | None) -> tuple[str, ...] | None:
    """``--designs`` as a tuple of names (None: every catalog design); empty is an error."""
    from trackerlab.core.errors import UsageError

    if text is None:
        return None
    designs = tuple(d.strip() for d in text.split(",") if d.strip())
    if not designs:
        raise UsageError("--designs: give at least one catalog design (see trackerlab designs)")
    return designs


def _check_master_flag(master: str | None, exact: bool) -> None:
    """``--master`` only with ``--exact`` (a fleet is handled earlier); a local master is
    checked before any work."""
    from trackerlab.core.errors import UsageError

    if master is None:
        return
    if not exact:
        raise UsageError(
            "--master: only --exact or a fleet (--topics FILE) runs on Spark; add one or "
            "drop --master"
        )
    if master.strip().startswith("local"):
        from trackerlab.spark.session import check_master

        check_master(master)


def _print_plan(
    args: argparse.Namespace, result: Plan, checked: tuple[str, list[Verified], str] | None
) -> None:
    """The plan as JSON, CSV or a table, then the ``--verify`` report when there is one."""
    from trackerlab.planner.plan_report import as_csv, as_json, table

    if args.json:
        print(as_json(result))
    elif args.csv:
        print(as_csv(result), end="")
    else:
        print(table(result))
    if checked is not None:
        from trackerlab.planner.verify import report

        print(report(*checked, exact=args.exact))


def _fleet_file(value: object) -> bool:
    """``--topics`` names a fleet file (CSV or YAML) rather than a count."""
    from pathlib import Path

    if value is None:
        return False
    text = str(value).strip()
    return Path(text).suffix.lower() in (".csv", ".yaml", ".yml") or (
        not text.replace(",", "").replace("_", "").isdigit() and Path(text).is_file()
    )


def _fleet(args: argparse.Namespace, given: dict) -> int:
    """``--topics FILE``: a fleet of topics (trackerlab.planner.fleet)."""
    from trackerlab.core.errors import UsageError
    from trackerlab.core.params import MAX_SEED
    from trackerlab.planner import fleet as fl
    from trackerlab.workloads.units import parse_count

    for flag, value in (("--workload", args.workload), ("--budget", args.budget),
                        ("--max-early", args.max_early), ("--designs", args.designs),
                        ("--exact", args.exact), ("--verify", args.verify),
                        ("--json", args.json)):  # fmt: skip
        if value:
            raise UsageError(f"{flag}: a fleet (--topics) takes none; plan one topic for it")
    brokers = parse_count(args.brokers, "--brokers", 1, 1_000_000)
    seed = parse_count(args.seed, "--seed", 0, MAX_SEED)
    if args.master is not None and args.master.strip().startswith("local"):
        from trackerlab.spark.session import check_master

        check_master(args.master)
    if given.get("pulsar_version") and "," in str(given["pulsar_version"]):
        raise UsageError("--pulsar-version: a fleet is planned for one release")
    path = given.pop("topics")
    topics = fl.read_fleet(path, given)
    result = fl.plan_fleet(topics, brokers=brokers, seed=seed, master=args.master)
    if args.csv:
        print(fl.frame(result).to_csv(index=False), end="")
    else:
        print(fl.table(result))
    if args.out:
        print(f"wrote {fl.write_parquet(result, args.out, path)}")
    return 0


def _compare(args: argparse.Namespace, given: dict) -> int:
    """``--pulsar-version A,B,C``: one table across releases (trackerlab.planner.compare)."""
    from trackerlab.core.errors import UsageError
    from trackerlab.core.params import MAX_SEED
    from trackerlab.planner.compare import compare, parse_versions, table
    from trackerlab.planner.workload import PlanWorkload
    from trackerlab.workloads.units import parse_count

    versions = parse_versions(str(given.pop("pulsar_version")))
    for flag, value in (("--budget", args.budget), ("--max-early", args.max_early),
                        ("--designs", args.designs), ("--master", args.master)):  # fmt: skip
        if value:
            raise UsageError(f"{flag}: a release comparison takes none; plan one release for it")
    if args.verify or args.json or args.csv:
        raise UsageError("--pulsar-version A,B: a comparison prints one table; drop "
                         "--verify/--json/--csv")  # fmt: skip
    values = {k: v for k, v in given.items() if v is not None}
    if args.workload:
        raw = PlanWorkload.read_file(args.workload)
        raw.pop("pulsar_version", None)
        values = raw | values
    seed = parse_count(args.seed, "--seed", 0, MAX_SEED)
    print(table(compare(values, versions, exact=args.exact, seed=seed)))
    return 0


def _verify(workload, result, seed: int):
    """``--verify``'s real-class run; Maven or Java missing is one line, exit 1."""
    import sys

    from trackerlab.core.java_runtime import JavaMissing
    from trackerlab.jvmcheck.pulsar import HarnessBuildFailed, HarnessFailed, MavenUnavailable
    from trackerlab.planner.verify import verify

    try:
        return verify(workload, result, seed)
    except (JavaMissing, MavenUnavailable, HarnessBuildFailed, HarnessFailed) as exc:
        print(f"trackerlab: plan --verify: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


#: ``plan --exact`` generates and folds every entry of its snapshots with the sweeps'
#: reducer: the sweep engine's measured random-delay rate per core (spark/sweep.py).
EXACT_ENTRIES_PER_S_PER_CORE = 2.5e6


def _exact_estimate(workload, seed: int):
    """The cost guard's estimate of ``plan --exact``: the entries of the delayed and nack
    snapshots (trackerlab.core.budget); memory stays bounded by the reducer's pieces."""
    from trackerlab.core.budget import Estimate, machine_cores
    from trackerlab.core.errors import UsageError
    from trackerlab.planner.memory_plan import delayed_stream, nack_stream
    from trackerlab.workloads.stream import MAX_MESSAGES

    entries = 0
    for key, make in (("delayed", delayed_stream), ("nacked", nack_stream)):
        if workload.values[key] > 0:
            stream = make(workload)
            try:
                entries += stream.workload(stream.steady_time_ms(), seed)[0].messages
            except UsageError:
                raise UsageError(
                    f"plan --exact: the {key} snapshot holds more than {MAX_MESSAGES:,} "
                    "entries, beyond any machine; plan without --exact sizes it in closed form"
                ) from None
    seconds = 10 + entries / (EXACT_ENTRIES_PER_S_PER_CORE * machine_cores())
    return Estimate(f"plan --exact ({entries:,} entries to generate)", seconds, 2 << 30)
