"""``trackerlab bench <model>``: performance benchmarks that print measured times.

Benchmarks are sub-subcommands listed in :data:`BENCHMARKS`; goals are printed next to
the measurement, never asserted in tests.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _add_receiver_queue(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rate", type=float, default=20_000.0, help="msg/s (default 20000)")
    p.add_argument("--duration-s", type=float, default=60.0, help="simulated s (default 60)")
    p.set_defaults(func=run_receiver_queue)


BENCHMARKS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None]], ...] = (
    (
        "receiver-queue",
        "wall time of the receiver-queue simulator (goal: 1.2 M msgs < 10 s)",
        _add_receiver_queue,
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    from trackerlab.commands.simulate import add_model_commands

    add_model_commands(
        subparsers, "bench", "run a benchmark", "Run a benchmark and print its timings.", BENCHMARKS
    )


def run_receiver_queue(args: argparse.Namespace) -> int:
    from trackerlab.experiments.bench_receiver_queue import format_bench, run_bench
    from trackerlab.params import check_positive

    rate = check_positive("--rate", args.rate)
    duration = check_positive("--duration-s", args.duration_s)
    print(format_bench(run_bench(rate, duration)))
    return 0
