"""``trackerlab broker run trackers --smoke`` on a real broker (4.2.4's time buckets, 1,000
msg/s for 30 s of uniform 0-1h delays; about 90 s with the broker's start). Run it under
``flock /tmp/trackerlab-broker.lock``. Skips only when Java, ``mvn`` or Maven Central is
missing.

Checked against independent figures: the whole-graph walk (``TrackerGraph``, JOL's
``VM.sizeOf`` per object) against JOL's own ``GraphLayout`` of the index alone (the graph holds
the index plus the tracker's few fields); the tracker's count against the broker's
``msgDelayed``; the metric (Σ ``Roaring64Bitmap.getLongSizeInBytes``, the serialized size) at
most the index's heap; the allocation over the publish window from the live threads'
``ThreadMXBean`` counters against the heap's own account in the GC log (within a factor of 2:
over a whole run the live threads' sum misses what ended threads allocated: measured 524 MB
counted against 825 MB freed by young pauses)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

from tests.broker.conftest import running_brokers
from tests.conftest import run_cli


def test_smoke_time_buckets(tmp_path, available):
    before = set(running_brokers())
    out = tmp_path / "out"
    r = run_cli("broker", "run", "trackers", "--smoke", "--out", str(out), timeout=600)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert set(running_brokers()) == before, "broker run left a broker running"
    stem = out / "trackers-time-buckets-uniform-0-1h-smoke"
    summary = pq.read_table(f"{stem}.parquet")
    meta = json.loads(summary.schema.metadata[b"trackerlab"])
    assert meta["experiment"] == "trackers" and meta["tracker"]["version"] == "4.2.4"
    row = summary.to_pylist()[0]
    samples = pq.read_table(f"{stem}-samples.parquet").to_pandas()
    gc = pq.read_table(f"{stem}-gc.parquet").to_pandas()
    pub = samples[samples.phase == "publish"]
    assert len(pub) >= 3
    # every message is delayed 0-1h: after 30 s almost all are pending (under 1% came due)
    assert 0.95 * 30_000 <= row["pending_entries"] <= 30_100
    for s in pub.itertuples():
        assert s.tracker_class == "InMemoryDelayedDeliveryTracker"
        # the index is walked apart (JOL GraphLayout), a moment later: a few hundred entries
        # more, ~400 B each at 10k entries in fresh buckets (measured: 87,808 B, 2.2%)
        assert abs(s.jol_bytes - s.jol_index_bytes) <= 0.05 * s.jol_bytes, s
        # msgDelayed is read after the walks: at most 2 s of 1,000/s later (measured: 848)
        assert -50 <= s.msg_delayed - s.tracker_entries <= 2_000, s
        # the serialized size of the bitmaps: under their heap, above 1 B per entry
        assert s.tracker_entries < s.metric_index_bytes < s.jol_index_bytes, s
    # consumers gone, nothing read or sent: the graph is the index plus the tracker's fields
    idle = samples[samples.phase == "disconnected"].iloc[0]
    assert idle.jol_index_bytes <= idle.jol_bytes <= idle.jol_index_bytes + 16_384, idle
    # 1 s buckets over an hour: up to 3,600 maps and bitmaps; per entry between 16 B and 2 KiB
    assert 16 < row["jol_bytes_per_entry"] < 2048
    # GC: pauses logged, each freeing no more than it held
    assert len(gc) > 0 and (gc.before_bytes >= gc.after_bytes - 2**20).all()
    # allocation over the publish window, two ways: the live threads' counters
    # (ThreadMXBean) and the heap's own account from the GC log (heap in use at the first
    # sample, each pause's before minus the previous after, up to the heap in use at the last)
    a, b = pub.iloc[0], pub.iloc[-1]
    window = gc[(gc.t_s > a.jvm_uptime_ms / 1000) & (gc.t_s <= b.jvm_uptime_ms / 1000)]
    assert len(window) > 0, "no GC pause while publishing"
    held = a.broker_heap_used_bytes
    from_log = 0
    for p in window.itertuples():
        from_log += p.before_bytes - held
        held = p.after_bytes
    from_log += b.broker_heap_used_bytes - held
    counted = b.alloc_bytes - a.alloc_bytes
    assert 0.5 * from_log <= counted <= 2.0 * from_log, (counted, from_log)
    assert row["alloc_bytes_per_s"] > 0
    assert samples.alloc_bytes.is_monotonic_increasing or samples.alloc_bytes.iloc[-1] > 0
    # the reconnect and the unload: the tracker rebuilt within the wait
    assert 0 <= row["reconnect_ms"] < 180_000
    assert 0 < row["rebuild_ms"] < 180_000
    assert 0 <= row["machine_busy_share"] <= 1
    # the dispatcher read the whole backlog at 1,000/s: its tracker holds nearly every message
    # sent and not yet received (under 1% come due in 30 s), independently of msgDelayed
    assert 0.95 <= row["tracked_share"] <= 1.01 and not row["behind"]
    assert (pub.sent - pub.received >= pub.tracker_entries - 50).all()
