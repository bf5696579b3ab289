"""``trackerlab simulate <model>``: run one simulator and print a summary.

Each simulation is a sub-subcommand registered from :data:`SIMULATIONS`: a name, a help
line and a function that adds its arguments and sets ``func``. Adding one (``simulate
delayed``) is a new ``_add_<name>`` function and one entry in the tuple.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from trackerlab.workloads.units import duration_in

#: Stated ranges of the simulations' rates (msg/s) and durations (s); the cost guard
#: (trackerlab.core.budget) bounds what is practical within them.
MAX_RATE_PER_S = 1e9
MAX_DURATION_S = 1e7


def _add_traffic_and_queue(p: argparse.ArgumentParser) -> None:
    """The traffic (rate, partitions, client, duration, payload) and the consumer's queue,
    memory limit and application."""
    p.add_argument("--rate", required=True, help="producer rate, produce -r: e.g. 20k/s (>= 1/s)")
    p.add_argument("--partitions", type=int, default=1, help="partitions (>= 1, default 1)")
    p.add_argument("--client", default="go", help="go or java (default go)")
    p.add_argument(
        "--duration-s",
        type=duration_in("s", "--duration-s"),
        default=60.0,
        help="simulated seconds, or a duration with its unit: 90s, 2m (default 60)",
    )
    p.add_argument(
        "--queue-size",
        type=int,
        default=1000,
        help="receiverQueueSize: the auto-scaled maximum, or the fixed size (>= 1, default 1000)",
    )
    p.add_argument("--fixed", action="store_true", help="fixed-size queue (no auto-scaling)")
    p.add_argument(
        "--max-total-queue-size",
        type=int,
        default=50000,
        help="Java maxTotalReceiverQueueSizeAcrossPartitions (default 50000)",
    )
    p.add_argument("--message-bytes", type=int, default=128, help="payload bytes (default 128)")
    p.add_argument(
        "--memory-limit",
        default="0",
        help="client memoryLimit, e.g. 64MiB (default 0: none, the #976 Go client; 64MiB is "
        "the Go #991 and Java default)",
    )
    p.add_argument(
        "--app-rate",
        default=None,
        help="a rate-limited application, e.g. 100/s (default: the perf consumer's own loop)",
    )


def _add_producer_and_dispatch(p: argparse.ArgumentParser) -> None:
    """The producer's limiter and batching, the broker's dispatcher and Java's drain."""
    p.add_argument(
        "--limiter",
        default="token-bucket",
        help="producer limiter: token-bucket (#989, default) or window (before #989)",
    )
    p.add_argument(
        "--no-batching", action="store_true", help="DisableBatching: one message per entry"
    )
    p.add_argument(
        "--batching-max-messages",
        type=int,
        default=1000,
        help="producer BatchingMaxMessages: most messages per batch entry (>= 1, default "
        "1000; the 128 KiB batch limit also applies)",
    )
    p.add_argument(
        "--subscription-type",
        default="exclusive",
        help="the broker's dispatcher: exclusive (the Go perf consumer's, default; failover "
        "dispatches the same way) or shared (the consumer alone on a Shared subscription, as "
        "trackerlab plan sizes it)",
    )
    p.add_argument(
        "--java-drain",
        default="batch-receive",
        help="Java partitioned drain: batch-receive (#16336, default) or receive-async",
    )


def _add_latencies_and_output(p: argparse.ArgumentParser) -> None:
    """Open latencies (flush ticks, network), the seed and the sampled time series."""
    p.add_argument(
        "--tick-latency-us",
        type=float,
        default=None,
        help="mean delay of the producer's flush ticks, us (default 3000: the value fitted on "
        "N46-N51)",
    )
    p.add_argument(
        "--one-way-us",
        type=float,
        default=None,
        help="one-way network latency, us (> 0; default 100, declared, not fitted)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed (ticker phases, router start)")
    p.add_argument("--csv", type=Path, help="write the sampled time series to this CSV file")
    p.add_argument("--sample-ms", type=float, default=100.0, help="sampling period (default 100)")


def _add_receiver_queue(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The modelled pulsar-perf harness of Go PR #976: the Go perf producer at --rate "
        "(batches flushed every 10 ms, sticky router, a token bucket that starts full), the "
        "broker (whole entries against permits, 10 ms re-check), the consumer client and its "
        "application. Prints final sizes, peak prefetched messages and bytes per consumer, "
        "whether the application kept up, and a verdict: the client's peak in MiB and its "
        "share of memoryLimit, with a WARNING when the peak passes it. Open latencies default "
        "to the values the reproduction fitted or declared (trackerlab reproduce --only "
        "N46,...,N57)."
    )
    _add_traffic_and_queue(p)
    _add_producer_and_dispatch(p)
    _add_latencies_and_output(p)
    _add_allow_large(p)
    p.set_defaults(func=run_receiver_queue)


def _add_allow_large(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="run even when the estimated time or memory exceeds this machine",
    )


def _add_delayed(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        help="take the scenario from notebooks/profiles.yaml (smoke, default, large); "
        "options given here override it",
    )
    p.add_argument("--rate", help="publish rate with its unit, e.g. 10k/s (default 10k/s)")
    p.add_argument(
        "--delay",
        help="delay distribution: fixed:1d, uniform:0:1h, exponential:10m, "
        "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d ... (default fixed:1d)",
    )
    p.add_argument(
        "--days",
        type=duration_in("d", "--days"),
        help="simulated days, or a duration with its unit: 12h, 3d (> 0; default 2)",
    )
    p.add_argument(
        "--batch",
        type=int,
        help="messages per entry, one deliverAt each (default 1: the Java and Go clients never "
        "batch a message with a deliver-at time; the seed's scenario, --profile, uses 100)",
    )
    p.add_argument("--subscriptions", type=int, help="Shared subscriptions (default 2)")
    p.add_argument(
        "--step-s",
        type=duration_in("s", "--step-s"),
        help="time step in seconds, or with its unit: 500ms, 1m (default 60)",
    )
    p.add_argument("--samples", type=int, help="sample times for sizing (default 96)")
    p.add_argument("--tick-ms", type=int, help="delayedDeliveryTickTimeMillis (default 1000)")
    p.add_argument("--message-bytes", type=int, help="payload per message (default 1024)")
    p.add_argument(
        "--partition-by", help="delay-level topics: HOUR, DAY, MONTH or YEAR (default DAY)"
    )
    p.add_argument(
        "--max-delay", help="delay-level topics: maximum delay, e.g. 30d (default 30d; > 0)"
    )
    p.add_argument(
        "--min-rollover-minutes",
        type=float,
        help="managedLedgerMinLedgerRolloverTimeMinutes (default 10)",
    )
    p.add_argument(
        "--designs",
        help="comma-separated subset of triple-heap, time-buckets, pip195-buckets, "
        "delay-level-topics, time-buckets-long-bitmap, pip448-topic-index (default: the first "
        "four; with --pulsar-version, the designs that version ships)",
    )
    p.add_argument("--seed", type=int, help="seed of the sampled time buckets (default 0)")
    p.add_argument(
        "--pulsar-version",
        help="Pulsar version whose defaults (tick, ledger rollover, bucket settings) to assume; "
        "given, it also runs only the designs that version ships (default: the newest release "
        "for the defaults, the --designs default)",
    )
    p.add_argument("--csv", type=Path, help="also write the time series to this CSV file")
    _add_allow_large(p)
    p.set_defaults(func=run_delayed)


#: ``(name, help, add_arguments)`` for every ``trackerlab simulate`` model.
SIMULATIONS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None]], ...] = (
    (
        "receiver-queue",
        "auto-scaled consumer receiver queue (PIP-74), Go or Java rules",
        _add_receiver_queue,
    ),
    (
        "delayed",
        "massive delayed messages: heap, time buckets, PIP-195 buckets, delay-level topics",
        _add_delayed,
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    add_model_commands(
        subparsers,
        "simulate",
        "run a simulator and print a summary",
        "Run one of the toolkit's simulators; see `trackerlab simulate MODEL -h`.",
        SIMULATIONS,
    )


def add_model_commands(
    subparsers: argparse._SubParsersAction,
    command: str,
    help_text: str,
    description: str,
    models: Sequence[tuple[str, str, Callable[[argparse.ArgumentParser], None]]],
) -> None:
    """``trackerlab COMMAND MODEL``: one sub-subcommand per ``(name, help, add_arguments)``.

    Without a model the command fails with a one-line error listing the models.
    """
    p = subparsers.add_parser(command, help=help_text, description=description)
    sub = p.add_subparsers(dest="model", metavar="MODEL", parser_class=type(p))
    for name, text, add in models:
        add(sub.add_parser(name, help=text, description=text))
    names = ", ".join(name for name, _, _ in models)

    def missing(args: argparse.Namespace) -> int:
        from trackerlab.core.errors import UsageError

        raise UsageError(f"{command}: choose a model: {names}")

    p.set_defaults(func=missing)


def run_receiver_queue(args: argparse.Namespace) -> int:
    from trackerlab.core.budget import check as check_budget
    from trackerlab.core.params import check_float, check_seed
    from trackerlab.experiments.costs import receiver_queue_estimate
    from trackerlab.experiments.reproduce.receiver_queue import FITTED_TICK_LATENCY_US
    from trackerlab.models.receiver_queue import HarnessConfig, simulate
    from trackerlab.models.receiver_queue.memory_limit import memory_verdict
    from trackerlab.workloads.units import parse_bytes, parse_rate_per_ms

    rate = parse_rate_per_ms(args.rate, "--rate") * 1000
    app_rate = parse_rate_per_ms(args.app_rate, "--app-rate") * 1000 if args.app_rate else None
    memory_limit = parse_bytes(args.memory_limit, "--memory-limit")
    check_seed("--seed", args.seed)
    options = dict(
        client=args.client,
        rate=rate,
        partitions=args.partitions,
        duration_s=args.duration_s,
        receiver_queue_size=args.queue_size,
        auto_scale=not args.fixed,
        max_total_receiver_queue_size_across_partitions=args.max_total_queue_size,
        message_bytes=args.message_bytes,
        memory_limit_bytes=memory_limit or None,
        app_rate=app_rate,
        app_burst_s=1.0 if app_rate is not None and args.client == "java" else 0.0,
        limiter=args.limiter,
        batching=not args.no_batching,
        batching_max_messages=args.batching_max_messages,
        subscription_type=args.subscription_type,
        java_drain=args.java_drain,
        tick_latency_us=(
            FITTED_TICK_LATENCY_US if args.tick_latency_us is None else args.tick_latency_us
        ),
        seed=args.seed,
        sample_ms=args.sample_ms,
    )
    if args.one_way_us is not None:
        options["one_way_us"] = args.one_way_us
    cfg = _validated(HarnessConfig(**options))
    check_float("--sample-ms", cfg.sample_ms, 0.001, cfg.duration_s * 1000)
    check_budget(
        receiver_queue_estimate(rate, cfg.duration_s, cfg.partitions, cfg.sample_ms),
        args.allow_large,
    )
    out = _check_csv(args.csv) if args.csv else None  # after validation
    result = simulate(cfg)
    summary = result.summary()
    width = max(len(k) for k in summary)
    print(f"{'tick_latency_us':<{width}}  {cfg.tick_latency_us:g}")
    for key, value in summary.items():
        print(f"{key:<{width}}  {value}")
    for line in memory_verdict(result.peak_client_bytes, cfg.memory_limit_bytes):
        print(line)
    if out is not None:
        _write_csv(out, result.frame())
    return 0


def _validated(cfg):
    """Validate, naming the CLI flag rather than the field in the one-line error."""
    from trackerlab.core.errors import UsageError

    try:
        return cfg.validated()
    except UsageError as exc:
        text = str(exc)
        for field, flag in _FLAGS.items():
            if text.startswith(field + " "):
                raise UsageError(flag + text[len(field) :]) from None
            if "_" in field and text.startswith(f"unknown {field} "):
                raise UsageError(text.replace(field, flag, 1)) from None
        raise


#: HarnessConfig field -> the ``simulate receiver-queue`` flag that sets it.
_FLAGS = {
    "rate": "--rate (msg/s)",
    "partitions": "--partitions",
    "duration_s": "--duration-s",
    "receiver_queue_size": "--queue-size",
    "max_total_receiver_queue_size_across_partitions": "--max-total-queue-size",
    "message_bytes": "--message-bytes",
    "memory_limit_bytes": "--memory-limit",
    "app_rate": "--app-rate (msg/s)",
    "limiter": "--limiter",
    "batching_max_messages": "--batching-max-messages",
    "subscription_type": "--subscription-type",
    "java_drain": "--java-drain",
    "tick_latency_us": "--tick-latency-us",
    "one_way_us": "--one-way-us",
    "seed": "--seed",
    "sample_ms": "--sample-ms",
    "client": "--client",
}


def _check_csv(path: Path) -> Path:
    """Check before simulating that ``--csv`` can be written (its folder made, a probe file
    created there and removed), without touching an existing file: the series replaces it
    atomically at the end (:func:`_write_csv`), so an interrupted run keeps the old one."""
    from trackerlab.core.durable import tmp_name
    from trackerlab.core.errors import UsageError

    try:
        if path.is_dir():
            raise UsageError(f"--csv: {path} is a folder, not a file")
        if path.exists() and not path.is_file():  # a device: never replace it
            raise UsageError(f"--csv: {path} is not a regular file (a device, pipe or socket)")
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = tmp_name(path)
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"--csv: cannot write {path}: {exc.strerror}") from None
    return path


def _write_csv(path: Path, frame) -> None:
    """Write the series durably and atomically (trackerlab.core.durable); one line if it fails."""
    from trackerlab.core.durable import atomic_write_bytes
    from trackerlab.core.errors import UsageError

    try:
        atomic_write_bytes(path, frame.to_csv(index=False).encode())
    except OSError as exc:
        raise UsageError(f"--csv: cannot write {path}: {exc.strerror}") from None
    print(f"time series: {path}", file=sys.stderr)


def _profile_options(name: str) -> dict[str, object]:
    """The seed scenario of the ``massive_delayed`` notebook under report profile ``name``:
    the notebook's parameter defaults overlaid with ``notebooks/profiles.yaml``."""
    from trackerlab.core.paths import notebooks_dir
    from trackerlab.experiments.massive_delayed import NOTEBOOK, PROFILE_PARAMETERS
    from trackerlab.reporting.profiles import notebook_values

    values = notebook_values(notebooks_dir(), name, NOTEBOOK)
    return {field: values[param] for param, field in PROFILE_PARAMETERS.items() if param in values}


def run_delayed(args: argparse.Namespace) -> int:
    from trackerlab.core.budget import check as check_budget
    from trackerlab.core.params import check_float, check_seed, check_text
    from trackerlab.experiments.costs import delayed_estimate
    from trackerlab.experiments.massive_delayed import DelayedScenario, simulate
    from trackerlab.workloads.units import parse_rate_per_ms

    if args.designs is not None:
        check_text("--designs", args.designs)
    rate_per_s = None
    if args.rate is not None:
        rate_per_s = parse_rate_per_ms(args.rate, "--rate") * 1000
        check_float("--rate (msg/s)", rate_per_s, 0, MAX_RATE_PER_S, lo_open=True)
    if args.seed is not None:
        check_seed("--seed", args.seed)

    # ProducerImpl.canAddToBatch refuses a message with a deliver-at time (Java), as the Go
    # producer does: outside the seed's scenario (--profile), one message per entry
    options: dict[str, object] = _profile_options(args.profile) if args.profile else {}
    options.setdefault("batch_size", 1)
    given = {
        "rate_per_s": rate_per_s,
        "delay": args.delay,
        "days": args.days,
        "batch_size": args.batch,
        "subscriptions": args.subscriptions,
        "step_s": args.step_s,
        "samples": args.samples,
        "tick_ms": args.tick_ms,
        "message_bytes": args.message_bytes,
        "partition_by": args.partition_by,
        "max_delay": args.max_delay,
        "min_rollover_minutes": args.min_rollover_minutes,
        "designs": args.designs,
        "seed": args.seed,
    }
    options.update({k: v for k, v in given.items() if v is not None})
    if "max_delay" in options and "max_delay_s" in options:
        options.pop("max_delay_s")
    from trackerlab.experiments.pulsar_versions import scenario_options, version_block

    release, version_options = scenario_options(args.pulsar_version, options)
    scenario = DelayedScenario.from_options(**version_options)
    check_budget(delayed_estimate(scenario.rate_per_s, scenario.days), args.allow_large)
    out = _check_csv(args.csv) if args.csv else None
    result = simulate(scenario)
    print(result.format_summary())
    print(version_block(release, scenario))
    if out is not None:
        _write_csv(out, result.series())
    return 0
