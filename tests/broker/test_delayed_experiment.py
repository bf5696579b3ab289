"""The delayed experiment's pieces without a broker: workloads, the plan row, the comparison
and the result files."""

from __future__ import annotations

import json
import re

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


def test_a_dispatcher_that_fell_behind_is_planned_at_its_read_lag():
    """Entries in the backlog the dispatcher has not read (backlog - delayed - unacked): 2,000
    at 1,000/s is a read lag of 2 s, above 5% of the plan's entries ("behind"); the plan is
    ``plan --read-lag 2000ms``, below the plan read as written."""
    (w,) = delayed.SMOKE
    samples = _samples(w).assign(msg_delayed=4_500, msg_backlog=6_600, deep_bytes=30_000)
    c = delayed.compare(samples, w, "4.2.4", 1000.0)
    assert list(c["read_lag_ms"]) == [2000.0, 2000.0]
    assert list(c["dispatcher"]) == ["behind", "behind"]
    lagged = delayed.plan_row(w, "4.2.4", 1000.0, 2000.0)
    assert c["plan_bytes"].iloc[0] == lagged.steady_bytes
    assert (c["plan_bytes"] < c["plan_bytes_read_as_written"]).all()
    assert "2,000ms (behind)" in format_table([_fake_result(w, c)])


def test_a_read_lag_takes_its_seconds_of_entries_but_no_heap_capacity():
    """Hand figures for fixed-20s-2k: 2,000/s x (20 s - 1 s tick - 4.683 s lag) = 28,634
    entries in 4.0.8's triple heap (measured: 28,642), whose bytes stay those of the first
    fill, read as written (38,000 entries: 1,345,272 B, measured 1,345,272); 4.2.4's time
    buckets lose about 2,000/s x 2.44 s = 4,880 entries (measured as-written 38,534 vs
    lagged 34,010 held)."""
    w = {x.name: x for x in delayed.FULL}["fixed-20s-2k"]
    heap, heap0 = (delayed.plan_row(w, "4.0.8", 2000.0, lag) for lag in (4683.0, 0.0))
    assert heap.entries == pytest.approx(28_634, abs=1) and heap0.entries == 38_000
    assert heap.steady_bytes == heap0.steady_bytes == 1_345_272
    buckets, buckets0 = (delayed.plan_row(w, "4.2.4", 2000.0, lag) for lag in (2440.0, 0.0))
    assert buckets0.entries - buckets.entries == pytest.approx(4_880, rel=0.02)
    assert buckets.steady_bytes < 0.9 * buckets0.steady_bytes


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


def test_a_mix_is_spelled_for_plan_and_java_and_waits_for_its_longest_part():
    (m,) = [w for w in delayed.FULL if w.kind == "mix"]
    assert m.plan_delay == "mix:0.5*fixed:5000ms+0.5*uniform:0ms:30000ms"
    assert m.java_delay == "mix:0.5*fixed:5000+0.5*uniform:0:30000"
    assert m.steady_from_s == 32.0 and m.mean_delay_ms == 0.5 * 5000 + 0.5 * 15_000
    with pytest.raises(ValueError, match="only a mix"):
        delayed.DelayedWorkload("x", 1, "mix", 0, 0, seconds=1)
    with pytest.raises(ValueError, match="not in BROKER_KNOBS"):
        delayed.DelayedWorkload("x", 1, "fixed", 1, 1, seconds=1, broker=(("bindAddress", "x"),))


def test_broker_settings_go_to_the_plan_with_their_units():
    """Each override names a ServiceConfiguration line at both tags, and the plan gets the
    same value: minutes as ``Nm``."""
    by_name = {w.name: w for w in delayed.FULL}
    ledger = by_name["uniform-0-30s-ledger-5k"]
    assert ledger.broker_overrides() == {
        "managedLedgerMaxEntriesPerLedger": "5000",
        "managedLedgerMinLedgerRolloverTimeMinutes": "0",
    }
    assert ledger.plan_overrides() == {"entries_per_ledger": "5000", "ledger_min_rollover": "0m"}
    timed = by_name["uniform-0-20s-ledger-1min"].plan_overrides()
    assert timed == {"ledger_min_rollover": "0m", "ledger_max_rollover": "1m"}
    for _, source in delayed.BROKER_KNOBS.values():
        assert re.search(r"ServiceConfiguration\.java:\d+ at v4\.2\.4, :\d+ at v4\.0\.8", source)


def test_the_plan_is_given_the_ledger_and_lookahead_settings():
    """Hand figures: 5,000 entries per ledger at 1,000/s roll every 5 s (min rollover 0); a
    1-minute maximum at 500/s rolls at 30,001 entries (LedgerRollover); the lookahead's pause
    ends when the first message comes due, so at steady state the default lookahead plans
    what lookahead 0 plans: 1,500/s x (40 s - 1 s tick) = 58,500 entries in the triple heap."""
    by_name = {w.name: w for w in delayed.FULL}
    from trackerlab.planner.workload import PlanWorkload

    def entries_per_ledger(w):
        return PlanWorkload.parse({
            "rate": f"{w.rate_per_s}/s", "delayed": "100%", "delay": w.plan_delay,
            "pulsar_version": "4.2.4", **w.plan_overrides(),
        }).entries_per_ledger  # fmt: skip

    assert entries_per_ledger(by_name["uniform-0-30s-ledger-5k"]) == 5000
    assert entries_per_ledger(by_name["uniform-0-20s-ledger-1min"]) == 30_001
    assert entries_per_ledger(by_name["fixed-20s"]) == 600_002  # 10 minutes at 1,000/s
    paused = delayed.plan_row(by_name["fixed-40s-lookahead-50k"], "4.0.8", 1500.0)
    free = delayed.plan_row(by_name["fixed-40s-lookahead-0"], "4.0.8", 1500.0)
    assert paused.entries == free.entries == pytest.approx(58_500, abs=1)
    assert "only until the first comes due" in paused.note and "comes due" not in free.note


def test_a_paused_backlog_is_read_back_before_steady_state():
    """The lookahead row (reads paused until 40 s, settle 20 s: steady from 62 s) on 4.0.8's
    second run: at 65 s 23,733 of 58,587 backlog entries were still unread (40%), at 70 s
    1,017 (1.7%); the steady samples start at 70 s and compare every entry in flight."""
    w = {x.name: x for x in delayed.FULL}["fixed-40s-lookahead-50k"]
    rows = []
    for t, delayed_, backlog, bytes_ in ((60.0, 29_244, 58_522, 1_345_272),
                                         (65.0, 34_807, 58_587, 1_345_272),
                                         (70.0, 57_482, 58_547, 2_017_784),
                                         (75.0, 58_496, 58_543, 2_017_784)):  # fmt: skip
        for sub in w.subscription_names():
            rows.append({"t_s": t, "subscription": sub, "tracker": "T", "root": "T.q",
                         "deep_bytes": bytes_, "metric_index_bytes": bytes_ - 240,
                         "tracker_delayed": delayed_, "msg_delayed": delayed_,
                         "msg_backlog": backlog, "unacked": 48})  # fmt: skip
    samples = pd.DataFrame(rows)
    assert sorted(set(delayed.steady(samples, w)["t_s"])) == [70.0, 75.0]
    c = delayed.compare(samples, w, "4.0.8", 1500.0)
    assert (c["measured_deep_bytes"] == 2_017_784).all() and list(c["verdict"]) == ["within"] * 2
    unpaused = {x.name: x for x in delayed.FULL}["fixed-40s-lookahead-0"]
    assert sorted(set(delayed.steady(samples, unpaused)["t_s"])) == [60.0, 65.0]  # 42-66 s


def test_simulate_delayed_figure_is_per_subscription():
    """simulate delayed's triple heap for 20 s fixed at 1,000/s, one subscription: the
    plan's figure for one subscription within 0.1% (both size the heap's capacity for about
    19,000 entries; the live runs are the independent check); a design without a model says
    so."""
    w = {x.name: x for x in delayed.FULL}["fixed-20s"]
    simulated, note = delayed.simulate_bytes(w, "triple-heap", 1000.0)
    plan = delayed.plan_row(w, "4.0.8", 1000.0).steady_bytes
    assert note == "" and simulated == pytest.approx(plan, rel=1e-3)
    nan, why = delayed.simulate_bytes(w, "pending-acks-treemap", 1000.0)
    assert nan != nan and "no pending-acks-treemap model" in why


def test_broker_compare_derives_the_stored_comparison_again(tmp_path):
    """``broker compare`` on a copy of the stored fixed-20s-2k runs (real brokers: 4.0.8's
    dispatcher read 4.7 s behind, 4.2.4's 2.4 s): both within 5% at their read lags, the
    files rewritten with the samples' provenance plus ``compared``; an empty folder is one
    line and exit 2."""
    import shutil

    from tests.conftest import run_cli
    from trackerlab.core.paths import data_dir
    from trackerlab.experiments.real_broker import stored

    for version in ("4.0.8", "4.2.4"):
        for suffix in ("", "-samples"):
            name = f"delayed-fixed-20s-2k-{version}{suffix}.parquet"
            shutil.copy(data_dir() / "broker" / name, tmp_path / name)
    res = run_cli("broker", "compare", "--results", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("(behind)") == 4 and "outside" not in res.stdout
    frame, meta = stored.read_result_file(tmp_path / "delayed-fixed-20s-2k-4.0.8.parquet")
    assert meta["compared"]["from"] == "delayed-fixed-20s-2k-4.0.8-samples.parquet"
    assert meta["pulsar_version"] == "4.0.8" and (frame["verdict"] == "within").all()
    assert frame["read_lag_ms"].between(4_000, 5_500).all()
    before = (tmp_path / "delayed-fixed-20s-2k-4.0.8.parquet").read_bytes()  # read first
    (tmp_path / "delayed-fixed-20s-2k-4.2.4-samples.parquet").write_bytes(b"damaged")
    res = run_cli("broker", "compare", "--results", str(tmp_path))
    assert res.returncode == 2 and "nothing was rewritten" in res.stderr
    assert (tmp_path / "delayed-fixed-20s-2k-4.0.8.parquet").read_bytes() == before
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run_cli("broker", "compare", "--results", str(empty))
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "--results" in res.stderr and "delayed-*-samples.parquet" in res.stderr
