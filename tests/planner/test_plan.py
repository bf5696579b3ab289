"""``trackerlab plan``: the answer, its defaults, its consistency with ``reproduce``, bad input."""

from __future__ import annotations

import json

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.catalog import CATALOG
from trackerlab.experiments.reproduce import reproduce
from trackerlab.planner.memory_plan import delayed_stream, nack_stream, plan
from trackerlab.planner.snapshot import fast_counts
from trackerlab.planner.workload import FIELDS, PlanWorkload
from trackerlab.sizing.jvm import COMPRESSED

WHY = [
    "--rate",
    "20k/s",
    "--nacked",
    "2%",
    "--delayed",
    "30%",
    "--delay",
    "uniform:0:1h",
    "--subscriptions",
    "4",
]


def test_the_issues_workload_in_one_command(cli):
    """20,000 msg/s, 2% nacked, 30% delayed uniformly over 0-1 h, 4 Shared subscriptions."""
    result = cli("plan", *WHY, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    rows = {(r["tracker"], r["design"]): r for r in doc["rows"]}
    delayed = rows["delayed-delivery index", "time-buckets"]
    assert delayed["default"] and delayed["side"] == "broker"
    # 6,000 delayed msg/s x E[delay] 30 min = 10.8M entries per subscription
    assert delayed["entries"] == pytest.approx(10.8e6, rel=0.01)
    assert delayed["per_topic"] == 4 * delayed["per_subscription"]
    assert 1.1 * 2**30 < delayed["per_topic"] < 1.5 * 2**30  # about 1.3 GiB
    heap = rows["delayed-delivery index", "triple-heap"]
    assert heap["steady_bytes"] == 256 * 2**20 + heap["steady_bytes"] % (256 * 2**20)
    # 4.2.4 hands a bucket out once its last ms is due (getBucketCutoffTime): one tick early
    assert delayed["early_ms"] == 1000
    nack = rows["negative-ack tracker", "nack-time-buckets"]
    assert nack["early_ms"] == 255 and nack["side"] == "client"
    assert "nack_precision_bits" in doc["assumed"] and doc["assumed"]["tick"] == "1s"
    assert "delayed index 1.32 GiB" in doc["answer"]


@pytest.mark.parametrize(
    ("version", "delayed", "nack", "pending", "label"),
    [
        ("2.10", "triple-heap", "nack-hash-map", "pending-acks-pair-hash", "2.10"),
        ("3.0", "triple-heap", "nack-pair-map", "pending-acks-pair-hash", "3.0.x"),
        ("4.0.3", "time-buckets", "nack-time-buckets", "pending-acks-rb-pairs", "4.0.3 (line"),
        ("4.0.7", "triple-heap", "nack-time-buckets", "pending-acks-rb-pairs", "4.0.7 (line"),
        ("4.1", "time-buckets", "nack-time-buckets", "pending-acks-rb-pairs", "4.1.x"),
        ("master", None, "nack-time-buckets", "pending-acks-packed-avl", "master"),
    ],
)
def test_each_release_marks_its_own_designs(version, delayed, nack, pending, label):
    """The release table (trackerlab.models.pulsar_releases) decides which row is Pulsar's; a release whose
    delayed design cannot be sized from counts (master: form c) says so instead of guessing."""
    from trackerlab.planner.plan_report import answer

    w = PlanWorkload.parse({**_WHY_VALUES, "pulsar_version": version})
    p = plan(w)
    own = {r.tracker: r.design for r in p.rows if r.default}
    assert own.get("delayed-delivery index") == delayed
    assert own["negative-ack tracker"] == nack and own["pending acks"] == pending
    text = answer(p)
    assert f"Pulsar {label}" in text
    if delayed is None:
        assert "delayed index not sized (Pulsar master runs time-buckets-long-bitmap" in text
    heap = next(r for r in p.rows if r.design == "triple-heap")
    buckets = next(r for r in p.rows if r.design == "time-buckets")
    assert heap.steady_bytes > 0 and buckets.steady_bytes > 0  # every design is still listed
    proposals = {n for n in CATALOG.names() if CATALOG[n].proposal}  # sized by design_lab
    assert proposals >= {"time-buckets-flat", "time-buckets-hier"}
    assert proposals.isdisjoint(r.design for r in p.rows)


_WHY_VALUES = {
    "rate": "20k/s",
    "nacked": "2%",
    "delayed": "30%",
    "delay": "uniform:0:1h",
    "subscriptions": 4,
}


def test_a_release_without_nack_precision_refuses_to_tune_it(cli):
    assert_one_line_error(
        cli(
            "plan",
            "--rate",
            "20k/s",
            "--nacked",
            "2%",
            "--pulsar-version",
            "3.0",
            "--budget",
            "1MiB",
        ),
        "tune negativeAckPrecisionBitCnt, which Pulsar 3.0.x does not have",
    )
    assert_one_line_error(
        cli(*("plan", *WHY, "--pulsar-version", "master", "--max-early", "2s")),
        "Pulsar master runs time-buckets-long-bitmap, which the planner cannot size",
    )
    help_text = " ".join(cli("plan", "--help").stdout.split())
    assert "default: 4.2.x, the newest release" in help_text
    w = PlanWorkload.parse({"rate": "1k/s", "pulsar_version": "3.0"})
    assert w.defaults.has_nack_precision is False and w.values["nack_precision_bits"] == 8


def test_batching_overshoots_the_receiver_queue_by_one_entry():
    """Permits count messages, and a Shared dispatch (the plan's subscriptions) gives a
    consumer ceil(permits / batch) whole entries (getMaxEntriesInThisBatch). So it ends at
    most batch - 1 past its permits, not min(queue, 100) entries as an Exclusive read would
    (tests/planner/test_receiver_queue_row.py simulates both)."""
    from trackerlab.planner.memory_plan import batched_queue_peak

    assert batched_queue_peak(1000, 1) == 1000
    assert batched_queue_peak(1000, 10) == 1000 + 9
    assert batched_queue_peak(50, 10) == 50 + 9
    w = PlanWorkload.parse({"rate": "20k/s", "batch": 10, "message_size": "1KiB"})
    queue = next(r for r in plan(w).rows if r.tracker == "receiver queue")
    assert queue.peak_bytes == 1009 * 1024 and "peak 1,009 messages" in queue.note


def test_terminal_table_lists_assumptions_and_units(cli):
    result = cli("plan", *WHY)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(  # the workload in the user's words, then the answer
        "A topic publishing 20k/s to 4 subscriptions, 30% of messages delayed (uniform:0:1h), "
        "2% nacked, on Pulsar 4.2.x, needs per topic: delayed index 1.32 GiB"
    )
    assert "Assumed (Pulsar's defaults for 4.2.x): " in out and "tick 1s" in out
    assert "per topic" in out and "entries/GiB" in out and "MiB" in out


def test_workload_file_and_flags_share_one_vocabulary(tmp_path, cli):
    path = tmp_path / "w.yaml"
    path.write_text(
        "rate: 20k/s\nnacked: 2%\ndelayed: 30%\ndelay: uniform:0:1h\nsubscriptions: 2\n"
    )
    from_file = json.loads(
        cli("plan", "--workload", str(path), "--subscriptions", "4", "--json").stdout
    )
    from_flags = json.loads(cli("plan", *WHY, "--json").stdout)
    assert from_file["rows"] == from_flags["rows"]  # the flag overrides the file


def test_budget_and_precision_recommendations():
    """The README's example with ``--budget 512MiB``: memory changes only where the bucket width
    does (powers of two), so the candidates are the powers of two; the least early tick within
    the budget is 2,048 ms (428 MiB), not the 5 s of the old fixed list (272 MiB). 4.2.4 hands a
    bucket out when its last ms is due, so a tick is at most its own length early (2,048 ms,
    not the key rule's 4,095), and ``--max-early 1s`` keeps the release's 1 s tick: 9 bits, the
    least memory of the ticks up to 1 s."""
    w = PlanWorkload.parse(
        {"rate": "20k/s", "delayed": "30%", "delay": "uniform:0:1h", "subscriptions": 4}
    )
    budget = plan(w, budget_bytes=512 * 2**20).choices[0]
    fits = [row for row in budget.table if row["per_broker_bytes"] <= 512 * 2**20]
    best = min(fits, key=lambda row: row["early_ms"])
    assert budget.value == best["tick_ms"] == 2048
    assert best["early_ms"] == 2048
    assert "within 512 MiB" in budget.reason and "up to 2048ms early" in budget.reason
    # each bucket width's smallest and largest tick that deliver earlier than the longest
    # delay (1 h), and the release's 1 s
    ticks = {row["tick_ms"] for row in budget.table}
    assert {1 << k for k in range(21)} | {1000, 511, 1023} <= ticks
    early = plan(w, max_early_ms=1000).choices[0]
    assert early.value == 1000 and "up to 1000ms early" in early.reason
    assert all(row["early_ms"] == row["tick_ms"] for row in early.table)


def test_equal_memory_goes_to_the_default_then_fewer_wakeups():
    """On the triple heap (4.0.7) every tick up to the bound costs the same memory: the tie
    goes to the release's 1 s tick, not to the 1 ms tick with a thousand wake-ups a second."""
    w = PlanWorkload.parse(
        {"rate": "20k/s", "delayed": "30%", "delay": "uniform:0:1h", "pulsar_version": "4.0.7"}
    )
    choice = plan(w, max_early_ms=1000).choices[0]
    assert choice.design == "triple-heap" and choice.value == 1000


def test_nothing_fits_says_what_would():
    w = PlanWorkload.parse({"rate": "20k/s", "delayed": "30%", "delay": "uniform:0:1h"})
    choice = plan(w, budget_bytes=1024).choices[0]
    assert choice.value is None
    assert "nothing fits --budget 1 KiB" in choice.reason and "brokers" in choice.reason


def test_pip393_and_blog_scenarios_agree_with_reproduce():
    """The planner's counts sized by the catalog give reproduce's JVM values: the TimeBucket
    blog's maps (N14-N16, AVL/AVL shape, 1e7 entries held) within 0.3%; PIP-393's test (N09:
    1e6 nacks at 50 msg/ms, 10 bits) within 4% (the test's first and last buckets are partial
    and start aligned; a steady state holds the same number of entries at other phases)."""
    reps = {r.id: r for r in reproduce(["N09", "N14", "N15", "N16"])}
    for pid, x in (("N14", 1), ("N15", 4), ("N16", 8)):
        w = PlanWorkload.parse(
            {
                "rate": f"{x}k/s",
                "delayed": "100%",
                "delay": f"{10_000_000 // x}ms",
                "tick": "1024ms",
                "ledger_min_rollover": "0",
                # the blog fed the tracker directly: no dispatcher, no lookahead pause
                "fixed_delay_lookahead": 0,
            }
        )
        size = CATALOG["time-buckets"].from_counts(
            fast_counts(delayed_stream(w))[0], "avl-avl", COMPRESSED
        )
        mib_per_1e7 = size.jvm_bytes / 2**20 * 1e7 / size.entries
        assert mib_per_1e7 == pytest.approx(reps[pid].jvm_model, rel=0.003), pid
    w = PlanWorkload.parse(
        {
            "rate": "50k/s",
            "nacked": "100%",
            "nack_delay": "20s",
            "nack_precision_bits": 10,
            "ledger_min_rollover": "0",
        }
    )
    size = CATALOG["nack-time-buckets"].from_counts(
        fast_counts(nack_stream(w))[0], None, COMPRESSED
    )
    assert size.jvm_bytes / size.entries == pytest.approx(reps["N09"].jvm_model, rel=0.04)


def test_every_command_help_shows_defaults(cli):
    out = " ".join(cli("plan", "--help").stdout.split())
    for f in FIELDS:
        assert f.flag in out
    assert "default: 1s (Pulsar 4.2.x)" in out and "default: required" in out
    assert "e.g. 20k/s" in out


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--rate", "0/s"], ["--rate: the rate must be > 0"]),
        (["--rate=-5/s"], ["--rate: the rate must be > 0, got '-5/s'"]),
        (["--rate", "20000"], ["--rate", "e.g. 20000/s"]),
        ([], ["--rate is required"]),
        (["--rate", "1k/s", "--nacked", "120%"], ["--nacked must be a share in 0..1"]),
        (
            ["--rate", "1k/s", "--delayed=-1%"],
            ["--delayed must be a share in 0..1 (0%..100%), got '-1%'"],
        ),
        (["--rate", "1k/s", "--delayed", "30%"], ["--delay is required when --delayed is above 0"]),
        (
            ["--rate", "1k/s", "--delayed", "30%", "--delay", "uniform:0:3600"],
            ["'3600' needs a unit"],
        ),
        (
            ["--rate", "1k/s", "--delayed", "30%", "--delay", "uniform:0:1h", "--horizon", "30m"],
            ["--delay", "longer than --horizon 30m"],
        ),
        (
            ["--rate", "1k/s", "--pulsar-version", "9.9"],
            ["unknown --pulsar-version '9.9'", "4.2.x", "master"],
        ),
        (
            ["--rate", "1k/s", "--designs", "heap"],
            ["unknown design 'heap'; did you mean 'triple-heap'?"],
        ),
        (["--rate", "1k/s", "--budget", "1GiB"], ["--budget and --max-early tune"]),
        (["--rate", "1k/s", "--tick", "0.5ms"], ["--tick must be a whole number of ms in 1ms..1d"]),
        (["--rate", "1k/s", "--batch", "0"], ["--batch must be in 1..100,000, got 0"]),
        (["--rate", "1k/s", "--workload", "/nope.yaml"], ["--workload: file /nope.yaml not found"]),
        (
            ["--rate", "1k/s", "--nacked", "2%", "--nack-delay", "empirical:/nope.csv"],
            ["/nope.csv not found"],
        ),
    ],
)
def test_bad_input_is_one_line(cli, args, needles):
    assert_one_line_error(cli("plan", *args), *needles)


def test_malformed_workload_files(tmp_path, cli):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("rate: [20k/s\n")
    assert_one_line_error(cli("plan", "--workload", str(bad_yaml)), "bad.yaml", "not valid YAML")
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("rate: 20k/s\ncolour: red\n")
    assert_one_line_error(cli("plan", "--workload", str(unknown)), "unknown workload key 'colour'")
    listed = tmp_path / "list.yaml"
    listed.write_text("- rate\n")
    assert_one_line_error(cli("plan", "--workload", str(listed)), "maps keys to values")
    csv = tmp_path / "d.csv"
    csv.write_text("soon,later\n")
    assert_one_line_error(
        cli("plan", "--rate", "1k/s", "--delayed", "1%", "--delay", f"empirical:{csv}"),
        "is not a column of numbers",
    )


def test_a_bucket_is_due_by_its_key_before_4_2_4_and_whole_after():
    """Up to 4.2.3 a time bucket is handed out when its key ``<= now + tick`` (up to
    tick + 2^bits - 1 ms early); 4.2.4's ``getBucketCutoffTime`` waits for its last ms, so the
    index holds 2^bits - 1 ms more of entries: at 1,000/s with a fixed 20 s delay and tick 1 s
    (9 bits, 512 ms buckets) that is 511 entries more (the broker held 19,306 on average,
    data/broker/delayed-fixed-20s-4.2.4.parquet)."""
    from trackerlab.planner.memory_plan import plan
    from trackerlab.planner.workload import PlanWorkload

    rows = {}
    for version in ("4.1.3", "4.2.4"):
        w = PlanWorkload.parse(
            {"rate": "1k/s", "delayed": "100%", "delay": "fixed:20s", "pulsar_version": version}
        )
        rows[version] = next(r for r in plan(w).rows if r.design == "time-buckets")
    assert rows["4.1.3"].early_ms == 1000 + 511
    assert rows["4.2.4"].early_ms == 1000
    # 20 s of entries less what is due: key <= now + 1000 (4.1) or key <= now + 1000 - 511
    # (4.2.4); with keys floored to 512 ms, on average 20,000 - 1,000 - 256 and 511 more
    assert rows["4.1.3"].entries == pytest.approx(20_000 - 1_000 - 255.5, abs=30)
    assert rows["4.2.4"].entries - rows["4.1.3"].entries == pytest.approx(511, abs=30)


def test_a_read_lag_holds_its_seconds_less_and_the_heap_keeps_its_first_fill():
    """``--read-lag 2500ms``: the dispatcher reads each entry 2.5 s after it is written, so
    entries due within tick + 2.5 s of being written are never tracked and the rest are held
    2.5 s less. Hand figures at 1,000/s with a fixed 20 s delay on 4.1.3, tick 1 s, 512 ms
    buckets: 20,000 - 1,000 - 255.5 entries read as written, 2,500 fewer with the lag. The
    triple heap holds 1,000 x (20 - 1 - 2.5) = 16,500 entries but keeps the capacity of its
    first fill, read as written (``Design.keeps_capacity``); messages come up to 2.5 s late."""
    from trackerlab.planner.memory_plan import plan
    from trackerlab.planner.workload import PlanWorkload

    def rows(lag):
        w = PlanWorkload.parse({"rate": "1k/s", "delayed": "100%", "delay": "fixed:20s",
                                "pulsar_version": "4.1.3", "read_lag": lag})  # fmt: skip
        return {r.design: r for r in plan(w).rows if r.tracker == "delayed-delivery index"}

    lagged, written = rows("2500ms"), rows("0ms")
    assert written["time-buckets"].entries == pytest.approx(20_000 - 1_000 - 255.5, abs=30)
    assert written["time-buckets"].entries - lagged["time-buckets"].entries == pytest.approx(
        2_500, abs=30
    )
    assert lagged["triple-heap"].entries == pytest.approx(16_500, abs=1)
    assert lagged["triple-heap"].steady_bytes == written["triple-heap"].steady_bytes
    assert lagged["time-buckets"].steady_bytes < written["time-buckets"].steady_bytes
    assert lagged["time-buckets"].late_ms == 2500 and written["time-buckets"].late_ms == 0


def test_a_read_lag_out_of_range_is_one_line():
    from trackerlab.core.errors import UsageError
    from trackerlab.planner.workload import PlanWorkload

    for bad in ("-1s", "31d", "2"):
        with pytest.raises(UsageError, match="--read-lag"):
            PlanWorkload.parse({"rate": "1k/s", "read_lag": bad})
