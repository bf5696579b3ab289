"""The planner's exact snapshot folded on Spark equals the single-process fold."""

from __future__ import annotations

import pytest

from trackerlab.planner.memory_plan import delayed_stream, nack_stream
from trackerlab.planner.snapshot import exact_counts
from trackerlab.planner.workload import PlanWorkload


@pytest.mark.spark
@pytest.mark.parametrize(
    "raw",
    [
        {
            "rate": "2k/s",
            "delayed": "100%",
            "delay": "uniform:0:5m",
            "entries_per_ledger": 20000,
            "ledger_min_rollover": "0",
        },
        {
            "rate": "5k/s",
            "nacked": "20%",
            "nack_delay": "fixed:30s",
            "entries_per_ledger": 7000,
            "ledger_min_rollover": "0",
        },
    ],
)
def test_spark_fold_equals_single_process(spark, raw):
    w = PlanWorkload.parse(raw)
    stream = delayed_stream(w) if w.values["delayed"] > 0 else nack_stream(w)
    local, t_local = exact_counts(stream, seed=3)
    on_spark, t_spark = exact_counts(stream, seed=3, spark=spark)
    assert t_local == t_spark
    assert dict(on_spark.totals) == dict(local.totals)
    assert on_spark.aggregates.bitmap_bytes == local.aggregates.bitmap_bytes
    assert on_spark.aggregates.ledger_counts.tolist() == local.aggregates.ledger_counts.tolist()
    assert on_spark.aggregates.bucket_counts.tolist() == local.aggregates.bucket_counts.tolist()
    assert local.totals["entries"] > 1000
