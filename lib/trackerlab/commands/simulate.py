"""``trackerlab simulate <model>``: run one simulator and print a summary.

Each simulation is a sub-subcommand registered from :data:`SIMULATIONS`: a name, a help
line and a function that adds its arguments and sets ``func`` (the same layout as the
``queue`` branch's ``simulate receiver-queue``, so the two tuples merge).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence


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
        "--designs", help="comma-separated subset of heap,time-buckets,pip195,levels (default all)"
    )
    p.add_argument("--seed", type=int, help="seed of the sampled time buckets (default 0)")
    p.add_argument("--csv", help="also write the time series to this CSV file")
    p.set_defaults(func=run_delayed)


#: ``(name, help, add_arguments)`` for every ``trackerlab simulate`` model.
SIMULATIONS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None]], ...] = (
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


def run_delayed(args: argparse.Namespace) -> int:
    from pathlib import Path

    from trackerlab.errors import UsageError
    from trackerlab.experiments.massive_delayed import DelayedScenario, profile_options, simulate

    options: dict[str, object] = profile_options(args.profile) if args.profile else {}
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
    out = None
    if args.csv:
        try:
            out = Path(args.csv)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.open("w").close()
        except OSError as exc:
            raise UsageError(f"--csv: cannot write {args.csv}: {exc.strerror}") from None
    result = simulate(scenario)
    print(result.format_summary())
    if out is not None:
        result.series().to_csv(out, index=False)
    return 0
