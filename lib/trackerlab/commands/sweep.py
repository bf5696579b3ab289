"""``trackerlab sweep``: run a parameter grid on Spark (embedded ``local[*]`` or a cluster).

The same entry point runs under ``spark-submit`` (``lib/trackerlab/commands/spark_submit.py``).
"""

from __future__ import annotations

import argparse

EPILOG = """\
Grid files: see lib/trackerlab/spark/grid.py; profiles (smoke, default, large) are in
lib/trackerlab/spark/profiles.yaml. Results: one Parquet file per grid point under
--out (default data/sweeps/NAME); a re-run skips the points already there.
On a cluster: PYSPARK_PYTHON=.venv/bin/python .venv/bin/spark-submit --master URL \\
    lib/trackerlab/commands/spark_submit.py --profile default
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="Spark sweeps: exact time-bucket and heap sizes over a parameter grid",
        description=(
            "Generate every grid point's messages in Spark, derive the exact Roaring container "
            "composition of every (bucket, ledger) bitmap, and write JVM-model and Python-model "
            "bytes per design to Parquet, one file per point (resumable)."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--grid", metavar="FILE.yaml", help="a grid file")
    source.add_argument("--profile", metavar="NAME", help="a named grid: smoke, default, large")
    p.add_argument("--out", metavar="DIR", help="results folder (default data/sweeps/NAME)")
    p.add_argument("--master", metavar="URL", help="Spark master (default: configured or local[*])")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="validate the grid and list its points (done or to do) and the estimated cost, "
        "without Spark",
    )
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="run even when the estimated time or memory exceeds this machine",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from trackerlab.core.errors import UsageError
    from trackerlab.core.params import check_text
    from trackerlab.core.paths import data_dir
    from trackerlab.spark.grid import load_grid, load_profile
    from trackerlab.spark.store import SweepStore, expected_identities

    for flag in ("grid", "profile", "out", "master"):
        if getattr(args, flag) is not None:  # '' is a mistake, never "the default"
            check_text(f"--{flag}", getattr(args, flag))
    if args.master is not None and args.master.strip().startswith("local"):
        from trackerlab.spark.session import check_master

        check_master(args.master)  # even when every point is done already
    grid = load_grid(args.grid) if args.grid is not None else load_profile(args.profile)
    out = args.out or str(data_dir() / "sweeps" / grid.name)
    if args.dry_run:
        from trackerlab.spark.sweep_engine import estimate_sweep

        store = SweepStore(out)
        store.check_out()
        if Path(out).exists() and not Path(out).is_dir():  # a dry run only reads the folder
            raise UsageError(f"--out {out} exists and is not a folder")
        done = store.completed(
            (p.key for p in grid.points), expect=expected_identities(grid.points)
        )
        for p in grid.points:
            state = "done" if p.key in done else "todo"
            print(f"{p.grid_row:4d} {state} {p.block}: {p.label()}")
        cost = estimate_sweep(grid).text()
        print(
            f"{len(grid.points)} points, {grid.messages:,} messages, {len(done)} done in {out}; "
            f"all of it: {cost} on this machine"
        )
        return 0
    from trackerlab.spark.sweep_engine import run_sweep

    run_sweep(grid, out, master=args.master, allow_large=args.allow_large)
    return 0
