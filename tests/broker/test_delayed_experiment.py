"""The delayed experiment's pieces without a broker: workloads, the plan row, the comparison
and the result files."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from trackerlab.broker import host
from trackerlab.broker.loadgen import LoadSpec
from trackerlab.broker.versions import select_release
from trackerlab.commands.broker_run import format_table
from trackerlab.experiments.real_broker import delayed


def test_workload_spells_its_delay_for_plan_and_java():
    w = delayed.DelayedWorkload("u", 1000, "uniform", 0, 15_000, seconds=36)
    assert (w.plan_delay, w.java_delay) == ("uniform:0ms:15000ms", "uniform:0:15000")
    f = delayed.DelayedWorkload("f", 1000, "fixed", 20_000, 20_000, seconds=50)
    assert (f.plan_delay, f.java_delay) == ("fixed:20000ms", "fixed:20000")
    assert f.steady_from_s == 22.0
    assert w.subscription_names() == ("sub-0", "sub-1")


def test_every_workload_leaves_steady_samples():
    for w in (*delayed.SMOKE, *delayed.FULL):
        assert w.seconds >= w.steady_from_s + w.sample_every_s, w


def test_load_spec_arguments():
    spec = LoadSpec("t", ("a", "b"), 500, 10, "fixed:100")
    assert spec.args("pulsar://127.0.0.1:1") == [
        "service=pulsar://127.0.0.1:1", "topic=t", "subscriptions=a,b", "consumers=1",
        "rate=500", "seconds=10", "delay=fixed:100", "seed=1", "size=64",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("version", "design"), [("4.2.4", "time-buckets"), ("4.0.8", "triple-heap")]
)
def test_plan_row_is_the_release_default(version, design):
    (w,) = delayed.SMOKE
    row = delayed.plan_row(w, version, 1000.0)
    assert row.design == design and row.default and row.steady_bytes > 0


def _samples(w: delayed.DelayedWorkload) -> pd.DataFrame:
    rows = []
    for t in (4.0, 20.0, 24.0, 36.0):
        for sub in w.subscription_names():
            rows.append({"t_s": t, "subscription": sub, "tracker": "InMemoryDelayedDeliveryTracker",
                         "root": "InMemoryDelayedDeliveryTracker.delayedMessageMap",
                         "deep_bytes": 1000 if t < 10 else 37_280, "metric_index_bytes": 15_000,
                         "tracker_delayed": 6_500, "msg_delayed": 6_500, "msg_backlog": 6_600,
                         "unacked": 100, "classes": "x"})  # fmt: skip
    return pd.DataFrame(rows)


def test_compare_uses_the_steady_samples_only():
    (w,) = delayed.SMOKE
    c = delayed.compare(_samples(w), w, "4.2.4", 1000.0)
    assert list(c["samples"]) == [3, 3]
    assert (c["measured_deep_bytes"] == 37_280).all()
    plan = delayed.plan_row(w, "4.2.4", 1000.0).steady_bytes
    assert c["error"].iloc[0] == pytest.approx((plan - 37_280) / 37_280)
    assert list(c["verdict"]) == ["within", "within"] and (c["unread_backlog"] == 0).all()
    assert "time-buckets" in format_table([_fake_result(w, c)])


def test_compare_marks_a_dispatcher_that_fell_behind():
    """Entries in the backlog the dispatcher has not read (backlog - delayed - unacked) above
    5% of the plan's entries: the row is "broker behind", not an error of the plan."""
    (w,) = delayed.SMOKE
    samples = _samples(w).assign(msg_delayed=1_000, msg_backlog=30_000, deep_bytes=5_000)
    c = delayed.compare(samples, w, "4.2.4", 1000.0)
    assert list(c["verdict"]) == ["broker behind", "broker behind"]
    assert "broker behind (28,900 unread)" in format_table([_fake_result(w, c)])


def _fake_result(w, comparison):
    return delayed.DelayedResult(w, "4.2.4", "4.2.4", _samples(w), comparison, 20.0, 80.0,
                                 1000.0, 500 << 20, 100 << 20, "jol")  # fmt: skip


def test_results_are_parquet_with_provenance(tmp_path):
    (w,) = delayed.SMOKE
    c = delayed.compare(_samples(w), w, "4.2.4", 1000.0)
    paths = delayed.write_results([_fake_result(w, c)], tmp_path, smoke=True)
    assert [p.name for p in paths] == [
        "delayed-uniform-0-15s-4.2.4-smoke.parquet",
        "delayed-uniform-0-15s-4.2.4-smoke-samples.parquet",
    ]
    meta = json.loads(pq.read_schema(paths[0]).metadata[b"trackerlab"])
    assert meta["pulsar_version"] == "4.2.4" and meta["run_seconds"] == 80.0
    assert meta["client"] == "pulsar-client-original 4.2.4"
    assert {"node", "cpus", "memory_bytes", "system", "java"} <= set(meta["machine"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)


def test_host_build_dir_follows_the_shared_harness_sources():
    """The host compiles jvm-check's Measure and Reflect: their bytes are in its fingerprint."""
    names = [p.name for p in host._sources()]
    assert {"Measure.java", "Reflect.java", "BrokerHost.java", "DelayedLoad.java"} <= set(names)
    assert host.build_dir(select_release("4.2.4")).name.startswith("broker-host-4.2.4-")
