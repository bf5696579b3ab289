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

#: Stated ranges of the simulations' rates (msg/s) and durations (s); the cost guard
#: (trackerlab.budget) bounds what is practical within them.
MAX_RATE_PER_S = 1e9
MAX_DURATION_S = 1e7


def _add_receiver_queue(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rate", type=float, required=True, help="application rate, msg/s (> 0)")
    p.add_argument("--partitions", type=int, default=1, help="partitions (>= 1, default 1)")
    p.add_argument("--client", default="go", help="go or java (default go)")
    p.add_argument(
        "--latency-ms",
        type=float,
        default=None,
        help="refill latency: Flow sent to first message back (default: the fitted harness)",
    )
    p.add_argument("--duration-s", type=float, default=60.0, help="simulated time (default 60)")
    p.add_argument(
        "--queue-size",
        type=int,
        default=1000,
        help="receiverQueueSize: the auto-scaled maximum, or the fixed size (>= 1)",
    )
    p.add_argument("--fixed", action="store_true", help="fixed-size queue (no auto-scaling)")
    p.add_argument(
        "--max-total-queue-size",
        type=int,
        default=50000,
        help="Java maxTotalReceiverQueueSizeAcrossPartitions (default 50000)",
    )
    p.add_argument(
        "--producer-rate",
        type=float,
        default=None,
        help="producer rate, msg/s (default: the rate, i.e. supply matches demand)",
    )
    p.add_argument(
        "--backlog", action="store_true", help="the broker always has messages (no producer)"
    )
    p.add_argument("--message-bytes", type=int, default=128, help="message size (default 128)")
    p.add_argument(
        "--memory-limit-bytes",
        type=int,
        default=None,
        help="client memory limit (default 64 MiB, the Go default); 0 for none",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for Poisson arrivals")
    p.add_argument("--poisson", action="store_true", help="Poisson producer instead of paced")
    p.add_argument("--csv", type=Path, help="write the sampled time series to this CSV file")
    p.add_argument("--sample-ms", type=float, default=100.0, help="sampling period (default 100)")
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
    p.add_argument("--rate", type=float, help="messages per second (> 0; default 10000)")
    p.add_argument(
        "--delay",
        help="delay distribution: fixed:1d, uniform:0:1h, exponential:10m, "
        "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d ... (default fixed:1d)",
    )
    p.add_argument("--days", type=float, help="simulated days (> 0; default 2)")
    p.add_argument("--batch", type=int, help="messages per entry, one deliverAt each (default 100)")
    p.add_argument("--subscriptions", type=int, help="Shared subscriptions (default 2)")
    p.add_argument("--step-s", type=float, help="time step in seconds (default 60)")
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
        "delay-level-topics (default all)",
    )
    p.add_argument("--seed", type=int, help="seed of the sampled time buckets (default 0)")
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
        from trackerlab.errors import UsageError

        raise UsageError(f"{command}: choose a model: {names}")

    p.set_defaults(func=missing)


def run_receiver_queue(args: argparse.Namespace) -> int:
    from trackerlab.budget import check as check_budget
    from trackerlab.errors import UsageError
    from trackerlab.experiments.costs import receiver_queue_estimate
    from trackerlab.experiments.reproduce.receiver_queue import harness_for
    from trackerlab.models.receiver_queue.simulator import CLIENTS, ReceiverQueueConfig, simulate
    from trackerlab.params import check_choice, check_float, check_int, check_positive, check_seed

    client = check_choice("client", args.client, CLIENTS)
    rate = check_float("--rate", args.rate, 0, MAX_RATE_PER_S, lo_open=True)
    check_int("--partitions", args.partitions, 1, 1000)
    check_int("--queue-size", args.queue_size, 1, 10_000_000)
    check_float("--duration-s", args.duration_s, 0, MAX_DURATION_S, lo_open=True)
    check_float("--sample-ms", args.sample_ms, 0.001, args.duration_s * 1000)
    check_int("--message-bytes", args.message_bytes, 1, 1 << 31)
    check_seed("--seed", args.seed)
    if args.producer_rate is not None:
        check_float("--producer-rate", args.producer_rate, 0, MAX_RATE_PER_S, lo_open=True)
    if args.backlog and args.producer_rate is not None:
        raise UsageError("--backlog and --producer-rate exclude each other")
    fastest = max(rate, args.producer_rate or 0.0)
    check_budget(
        receiver_queue_estimate(fastest, args.duration_s, args.partitions, args.sample_ms),
        args.allow_large,
    )
    timing = harness_for(client).timing()
    if args.latency_ms is not None:
        check_float("--latency-ms", args.latency_ms, timing["dispatch_ms"], None, lo_open=True)
        timing["refill_latency_ms"] = args.latency_ms
    if args.memory_limit_bytes is not None:
        check_int("--memory-limit-bytes", args.memory_limit_bytes, 0, 1 << 50)
    cfg = ReceiverQueueConfig(
        client=client,
        rate=rate,
        partitions=args.partitions,
        auto_scale=not args.fixed,
        receiver_queue_size=args.queue_size,
        max_total_receiver_queue_size_across_partitions=check_int(
            "--max-total-queue-size", args.max_total_queue_size, 1, 100_000_000
        ),
        **timing,
        producer_rate=None
        if args.backlog
        else (
            rate
            if args.producer_rate is None
            else check_positive("--producer-rate", args.producer_rate)
        ),
        arrivals="poisson" if args.poisson else "paced",
        message_bytes=args.message_bytes,
        memory_limit_bytes=(
            ReceiverQueueConfig.memory_limit_bytes
            if args.memory_limit_bytes is None
            else (args.memory_limit_bytes or None)
        ),
        duration_s=args.duration_s,
        sample_ms=args.sample_ms,
        seed=args.seed,
    )
    out = _open_csv(args.csv) if args.csv else None  # after validation: no truncated file
    result = simulate(cfg)
    width = max(len(k) for k in result.summary())
    print(f"{'refill_latency_ms':<{width}}  {cfg.refill_latency_ms:g}")
    for key, value in result.summary().items():
        print(f"{key:<{width}}  {value}")
    if out is not None:
        with out:
            result.frame().to_csv(out, index=False)
        print(f"time series: {args.csv}", file=sys.stderr)
    return 0


def _open_csv(path: Path):
    """Open the CSV before simulating, so an unwritable path fails fast."""
    from trackerlab.errors import UsageError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open("w", newline="")
    except OSError as exc:
        raise UsageError(f"--csv: cannot write {path}: {exc.strerror}") from None


def _profile_options(name: str) -> dict[str, object]:
    """The seed scenario of the ``massive_delayed`` notebook under report profile ``name``:
    the notebook's parameter defaults overlaid with ``notebooks/profiles.yaml``."""
    from trackerlab.experiments.massive_delayed import NOTEBOOK, PROFILE_PARAMETERS
    from trackerlab.paths import notebooks_dir
    from trackerlab.reporting.profiles import notebook_values

    values = notebook_values(notebooks_dir(), name, NOTEBOOK)
    return {field: values[param] for param, field in PROFILE_PARAMETERS.items() if param in values}


def run_delayed(args: argparse.Namespace) -> int:
    from trackerlab.budget import check as check_budget
    from trackerlab.experiments.costs import delayed_estimate
    from trackerlab.experiments.massive_delayed import DelayedScenario, simulate
    from trackerlab.params import check_float, check_seed, check_text

    if args.designs is not None:
        check_text("--designs", args.designs)
    if args.rate is not None:
        check_float("--rate", args.rate, 0, MAX_RATE_PER_S, lo_open=True)
    if args.seed is not None:
        check_seed("--seed", args.seed)

    options: dict[str, object] = _profile_options(args.profile) if args.profile else {}
    given = {
        "rate_per_s": args.rate,
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
    scenario = DelayedScenario.from_options(**options)
    check_budget(delayed_estimate(scenario.rate_per_s, scenario.days), args.allow_large)
    out = _open_csv(args.csv) if args.csv else None
    result = simulate(scenario)
    print(result.format_summary())
    if out is not None:
        with out:
            result.series().to_csv(out, index=False)
        print(f"time series: {args.csv}", file=sys.stderr)
    return 0
