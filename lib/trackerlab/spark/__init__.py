"""Spark experiment engine: the session, sweep grids, message columns, the sweep and its store.

Nothing here imports pyspark at import time; :func:`get_session` starts it on first use.
Each grid point's designs are sized from counts by their catalog entries
(:mod:`trackerlab.spark.rows`).
"""

from trackerlab.spark.grid import Grid, GridPoint, load_grid, load_profile, parse_grid
from trackerlab.spark.session import get_session, stop_session
from trackerlab.spark.store import read_sweep
from trackerlab.spark.sweep_engine import run_sweep

__all__ = [
    "Grid",
    "GridPoint",
    "get_session",
    "load_grid",
    "load_profile",
    "parse_grid",
    "read_sweep",
    "run_sweep",
    "stop_session",
]
