"""``trackerlab broker run nack --smoke`` on a real broker (the CI release, 4.2.4).

The run starts a standalone in ``BrokerHost`` (about 20-60 s on two cores), produces 60 s of
messages with the Java client (20% delayed, uniform 0-5 s) to one Shared consumer that nacks
10% of them (2 s redelivery delay), and measures the consumer's ``NegativeAcksTracker`` with
JOL in the client's JVM. It skips only when Java, ``mvn`` or Maven Central is missing (the one
line naming which); a client that does not compile or start, a broker that does not start,
a consumer that never keeps up or a plan off by more than 5% fails.
"""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq

from tests.broker.conftest import VERSION, running_brokers
from tests.conftest import run_cli
from trackerlab.experiments.real_broker import nack


def test_smoke_measured_tracker_matches_the_plan(tmp_path, available):
    before = set(running_brokers())
    out = tmp_path / "out"
    result = run_cli("broker", "run", "nack", "--smoke", "--pulsar-version", VERSION,
                     "--out", str(out), timeout=600)  # fmt: skip
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert re.search(r"worst error of the plan against the measured deep size: \d+\.\d\d%",
                     result.stdout), result.stdout  # fmt: skip
    assert set(running_brokers()) == before, "broker run left a broker running"
    (w,) = nack.SMOKE
    table = pq.read_table(out / f"nack-{w.name}-{VERSION}-smoke.parquet")
    (row,) = table.to_pandas().itertuples()
    assert row.verdict == "within" and abs(row.error) <= nack.TOLERANCE, row
    assert row.samples >= 2 and row.design == "nack-time-buckets"
    # 4.2.4's second map, empty (no tracing, no chunks): JOL's size of the default fastutil map
    assert row.nacked_ids_bytes == 496
    # 10% of 1,000/s held for about the 2 s delay (keys floored to 256 ms buckets)
    assert 0.7 * row.plan_entries <= row.measured_entries <= 1.3 * row.plan_entries, row
    meta = json.loads(table.schema.metadata[b"trackerlab"])
    assert meta["experiment"] == "nack" and meta["pulsar_version"] == VERSION
    assert meta["client"] == f"pulsar-client-original {VERSION}"
    assert meta["run_seconds"] > w.seconds and meta["jol"]  # JOL ran with Instrumentation
    samples = pq.read_table(out / f"nack-{w.name}-{VERSION}-smoke-samples.parquet").to_pandas()
    assert samples["t_s"].is_monotonic_increasing and samples["nacked"].iloc[-1] > 0
    assert (samples["tracked"] > 0).any()
    assert not list(out.glob("*.tmp*")), "a temporary file was left"


def test_unknown_workload_is_a_one_line_usage_error():
    result = run_cli("broker", "run", "nack", "--smoke", "--workload", "nope")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--workload nope" in result.stderr
    assert "10pct-2s-delayed" in result.stderr
