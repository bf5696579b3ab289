"""``trackerlab reproduce``: every published number against the toolkit's models."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "reproduce",
        help="recompute the seeds' published numbers and compare",
        description=(
            "For each published number (data/published/published_numbers.csv) print the "
            "published value, the JVM-model and Python-real values, the theory as published "
            "and corrected, the ratio of model to published and a verdict."
        ),
    )
    p.add_argument("--only", help="comma-separated ids, e.g. N08,N14 (default: all)")
    p.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from trackerlab.core.errors import UsageError
    from trackerlab.experiments.reproduce.number_registry import format_results, reproduce

    ids = None
    if args.only is not None:
        ids = [s.strip() for s in args.only.split(",") if s.strip()]
        if not ids:  # '' or ',,,' is a mistake, never "all of them"
            raise UsageError(f"--only must name published ids (e.g. N08,N14), got {args.only!r}")
    print(format_results(reproduce(ids), args.format))
    return 0
