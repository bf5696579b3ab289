"""Comparing two sweeps' results: every column but the provenance ones."""

from __future__ import annotations

import pandas as pd

from trackerlab.spark.sweep_engine import PROVENANCE_COLUMNS


def result_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows sorted, without the provenance columns (which may differ between runs)."""
    keep = [c for c in frame.columns if c not in PROVENANCE_COLUMNS]
    out = frame[keep].sort_values(["point_id", "design", "shape"], na_position="first")
    return out.reset_index(drop=True)


def assert_same_results(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Same rows, same result columns, same values (uninterrupted, resumed, any master)."""
    assert len(got) == len(want) > 0
    pd.testing.assert_frame_equal(result_columns(got), result_columns(want), check_dtype=False)
