"""trackerlab.broker.trackercheck without a JVM: JMH's JSON read into rows, bad input refused."""

from __future__ import annotations

import pytest

from trackerlab.broker import trackercheck

#: One JMH 1.37 SampleTime result with -prof gc, cut down by hand (two iterations of one fork).
RESULT = {
    "benchmark": "trackerlab.trackercheck.TrackerBench.addInOrder",
    "mode": "sample",
    "params": {"kind": "bucket", "prefill": "1000", "tickMs": "1000"},
    "primaryMetric": {
        "score": 250.5,
        "scoreUnit": "ns/op",
        "scorePercentiles": {"0.0": 40.0, "50.0": 120.0, "90.0": 300.0, "99.0": 4000.0,
                             "99.9": 50000.0, "100.0": 900000.0},
        "rawDataHistogram": [[[[100.0, 7], [200.0, 3]], [[100.0, 5]]]],
    },
    "secondaryMetrics": {"gc.alloc.rate.norm": {"score": 48.25, "scoreUnit": "B/op"}},
}  # fmt: skip


def test_row_reads_percentiles_samples_and_allocation():
    row = trackercheck._row(RESULT, "4.2.4")
    assert row["benchmark"] == "addInOrder" and row["kind"] == "bucket"
    assert (row["p50_ns"], row["p99_ns"], row["p99_9_ns"]) == (120.0, 4000.0, 50000.0)
    assert row["samples"] == 15  # 7 + 3 + 5
    assert row["alloc_bytes_per_op"] == 48.25
    assert row["prefill_messages"] == 1000 and row["tick_ms"] == 1000


def test_row_refuses_other_units():
    bad = {**RESULT, "primaryMetric": {**RESULT["primaryMetric"], "scoreUnit": "us/op"}}
    with pytest.raises(trackercheck.DriverFailed, match="expected ns/op"):
        trackercheck._row(bad, "4.2.4")


def test_run_jmh_refuses_unknown_kinds_before_building():
    with pytest.raises(ValueError, match="kinds must be among in-memory, bucket, sorted-chunks"):
        trackercheck.run_jmh("4.2.4", ("heap",))
    with pytest.raises(ValueError, match="got no kinds"):
        trackercheck.run_jmh("4.2.4", ())


def test_settings_arguments():
    args = trackercheck.JmhSettings(warmup_s=1, prefill=10).args()
    assert args[:4] == ["-f", "1", "-wi", "3"] and "1s" in args and "prefill=10" in args
