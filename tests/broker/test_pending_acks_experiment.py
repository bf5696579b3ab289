"""The pending-acks experiment's pieces without a broker: workloads, the plan row, the
steady window, the comparison (on a hand-made frame with hand-computed values) and the
result files."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from tests.conftest import run_cli
from trackerlab.broker import host
from trackerlab.broker.loadgen import PendingSpec
from trackerlab.commands.broker_run import format_pending_table
from trackerlab.experiments.real_broker import pending_acks_live as pa

#: PIP-379's PendingAcksMap (4.0-4.2) on one ledger, compressed oops, by hand: the outer and
#: the inner Long2ObjectRBTreeMap are 416 B each (object 24 + boolean[64] 80 + Entry[64] 272
#: + the tree's fields), the outer entry 40 B, and each pending ack an inner entry (40 B) and
#: an IntIntPair (24 B).
RB_PAIRS_FIXED_BYTES = 416 + 40 + 416
RB_PAIRS_PER_ACK_BYTES = 40 + 24


def test_modes_spell_as_pending_load_reads_them():
    subs = (pa.PendingSub("a", "ack", 5000), pa.PendingSub("n", "never"),
            pa.PendingSub("k", "nack", 1000, 0.2))  # fmt: skip
    assert [s.java_mode for s in subs] == ["ack:5000", "never", "nack:0.2:1000"]
    spec = PendingSpec("t", ("a", "n"), ("ack:5000", "never"), 1000, 30, nack_delay_ms=10_000)
    assert spec.args("pulsar://127.0.0.1:1") == [
        "service=pulsar://127.0.0.1:1", "topic=t", "subscriptions=a,n", "modes=ack:5000,never",
        "rate=1000", "seconds=30", "nackdelay=10000", "groupms=100", "size=64",
    ]  # fmt: skip
    assert spec.main_class == host.PENDING_LOAD_CLASS == "trackerlab.pulsar.PendingLoad"


def test_every_workload_leaves_steady_samples_and_sets_its_cap():
    for w in (*pa.SMOKE, *pa.FULL):
        for sub in w.subscriptions:
            assert w.seconds >= w.steady_from_s(sub) + w.sample_every_s, (w.name, sub)
        if any(s.mode == "never" for s in w.subscriptions):
            assert w.broker_properties() == {"maxUnackedMessagesPerConsumer": str(w.max_unacked)}
    (full_hold, _) = pa.FULL
    assert full_hold.broker_properties() == {}  # the release's 50,000


@pytest.mark.parametrize("version", ["4.2.4", "4.0.8"])
def test_plan_row_is_the_hand_computed_rb_pairs_size(version):
    """Hold 2 s + half the 100 ms group time at 500 msg/s: 1,025 entries; never acking at a
    2,000 cap: 2,000 entries; 20% nacked with a 10 s delay at 1,000 msg/s and 1 s hold:
    1,050 + 2,000."""
    (smoke,) = pa.SMOKE
    hold, never = smoke.subscriptions
    full = pa.FULL[0]
    nack = full.subscriptions[1]
    for w, sub, rate, entries in ((smoke, hold, 500.0, 1025), (smoke, never, 500.0, 2000),
                                  (full, nack, 1000.0, 3050)):  # fmt: skip
        row = pa.plan_row(w, sub, version, rate)
        assert row.design == "pending-acks-rb-pairs" and row.default
        assert row.entries == entries
        assert row.steady_bytes == RB_PAIRS_FIXED_BYTES + RB_PAIRS_PER_ACK_BYTES * entries


def _frame() -> pd.DataFrame:
    """The smoke workload's samples: the client slow for its first seconds (1,293 sent at
    4 s of 2,000 due), on schedule from 8 s, all 15,000 sent at 30 s; the 2 s consumer lifted by the catch-up burst
    until 12 s, then 1,040 entries of 67,432 B (872 + 64 x 1,040); the never-acking consumer
    at the 2,000 cap from 8 s."""
    rows = []
    for t, sent in ((4.0, 1293), (8.0, 4000), (12.0, 6000), (16.0, 8000), (20.0, 10000),
                    (24.0, 12000), (28.0, 14000), (30.0, 15000)):  # fmt: skip
        burst = t <= 12.0
        hold = (1331, 200_000, True) if burst else (1040, 67_432, False)
        never = (1000, 64_872, False) if t < 8 else (2000, 128_888, True)
        for sub, (entries, deep, blocked) in (("hold-2s", hold), ("never", never)):
            rows.append({"t_s": t, "subscription": sub, "consumer": "c", "sent": sent,
                         "received": sent, "acked": 0, "root": "PendingAcksMap.pendingAcks",
                         "deep_bytes": deep, "entries": entries, "unacked": entries,
                         "blocked": blocked, "walk_ms": 1})  # fmt: skip
    return pd.DataFrame(rows)


def test_steady_window_starts_after_the_client_caught_up():
    """On schedule: sent >= 500 x (t - 0.5) - 0.5 (capped at the 15,000 of the run); 1,293 <
    1,749.5 at 4 s. The 2 s consumer settles 2 s + 100 ms + 2 s after the client caught up
    (8 s): from 12.1 s. The never-acking one: 2 s after the client had sent the 2,000 cap (8 s)."""
    (w,) = pa.SMOKE
    f = _frame()
    assert pa.on_schedule(f, w).tolist() == [False] + [True] * 7
    hold, never = w.subscriptions
    assert pa.steady_times(f, w, hold) == [16.0, 20.0, 24.0, 28.0, 30.0]
    assert pa.steady_times(f, w, never) == [12.0, 16.0, 20.0, 24.0, 28.0, 30.0]
    late = f.assign(sent=f["sent"].where(f["t_s"] != 20.0, 8000))  # behind again at 20 s
    # 16 s stays; caught up again at 24 s, so steady from 28.1 s: 28 s is out
    assert pa.steady_times(late, w, hold) == [16.0, 30.0]


def test_compare_against_hand_computed_errors():
    (w,) = pa.SMOKE
    c = pa.compare(_frame(), w, "4.2.4", 500.0).set_index("subscription")
    hold, never = c.loc["hold-2s"], c.loc["never"]
    assert hold["samples"] == 5 and never["samples"] == 6  # 16..30 s; 12..30 s
    assert hold["measured_deep_bytes"] == 67_432 and hold["plan_bytes"] == 66_472
    assert hold["error"] == pytest.approx((66_472 - 67_432) / 67_432)  # -1.42%
    assert never["error"] == pytest.approx((128_872 - 128_888) / 128_888)  # -0.01%
    assert (hold["measured_entries"], hold["plan_entries"]) == (1040, 1025)
    assert (hold["blocked_share"], never["blocked_share"]) == (0.0, 1.0)
    assert list(c["verdict"]) == ["within", "within"]
    table = format_pending_table([_fake_result(w, c.reset_index())])
    assert "-1.42%" in table and "2,000/2,000" in table and "yes" in table


def test_compare_flags_a_plan_off_by_more_than_the_tolerance():
    (w,) = pa.SMOKE
    f = _frame()
    f.loc[(f["subscription"] == "hold-2s") & (f["t_s"] > 12), "deep_bytes"] = 80_000
    c = pa.compare(f, w, "4.2.4", 500.0).set_index("subscription")
    assert c.loc["hold-2s", "error"] == pytest.approx((66_472 - 80_000) / 80_000)  # -16.9%
    assert c.loc["hold-2s", "verdict"] == "outside"


def test_compare_without_steady_samples_says_so():
    (w,) = pa.SMOKE
    f = _frame()
    with pytest.raises(RuntimeError, match="hold-2s: no sample at steady state"):
        pa.compare(f[f["t_s"] < 12.5], w, "4.2.4", 500.0)


def _fake_result(w, comparison) -> pa.PendingResult:
    return pa.PendingResult(w, "4.2.4", "4.2.4", _frame(), comparison, 20.0, 90.0, 500.0,
                            600 << 20, 200 << 20, "jol")  # fmt: skip


def test_write_results_writes_parquet_with_provenance(tmp_path):
    (w,) = pa.SMOKE
    c = pa.compare(_frame(), w, "4.2.4", 500.0)
    paths = pa.write_results([_fake_result(w, c)], tmp_path, smoke=True)
    assert [p.name for p in paths] == [
        f"pending-acks-{w.name}-4.2.4-smoke.parquet",
        f"pending-acks-{w.name}-4.2.4-smoke-samples.parquet",
    ]
    table = pq.read_table(paths[0])
    meta = json.loads(table.schema.metadata[b"trackerlab"])
    assert meta["experiment"] == "pending-acks" and meta["smoke"] is True
    assert meta["broker_properties"] == {"maxUnackedMessagesPerConsumer": "2000"}
    assert meta["machine"]["cpus"] >= 1 and meta["tolerance"] == pa.TOLERANCE
    assert table.to_pandas()["subscription"].tolist() == ["hold-2s", "never"]
    assert not list(tmp_path.glob("*.tmp*"))


def test_unknown_workload_is_a_usage_error():
    result = run_cli("broker", "run", "pending-acks", "--smoke", "--workload", "nope")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "trackerlab: --workload nope: not in this set (hold-2s-and-never-cap-2k)"
    ]
