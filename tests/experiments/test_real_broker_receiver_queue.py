"""The receiver-queue experiment's bookkeeping, on hand-made series (no broker)."""

from __future__ import annotations

import itertools
from collections import Counter

import pandas as pd
import pytest

from trackerlab.commands.broker_rq import queue_rows
from trackerlab.experiments.real_broker import receiver_queue_live as rq


def _series(rows, run_id="r1", run_s=120.0):
    frame = pd.DataFrame(rows, columns=["row_id", "client", "consumer", "t_ms", "size"])
    frame.insert(0, "run_id", run_id)
    frame.insert(1, "pulsar_version", "2.11.0")
    frame["source"] = "sampled"
    frame["run_s"] = run_s
    return frame


def test_outcomes_read_each_partition_at_each_snapshot():
    s = _series([
        ("N54", "go", "partition-0", -2000, 1), ("N54", "go", "partition-1", -2000, 1),
        ("N54", "go", "partition-2", -2000, 1),
        ("N54", "go", "partition-0", 100, 2), ("N54", "go", "partition-0", 29_999, 4),
        ("N54", "go", "partition-1", 30_001, 2), ("N54", "go", "partition-2", 70_000, 8),
        ("N54", "java", "partition-0", -50, 1), ("N54", "java", "parent", -50, 3),
        ("N54", "java", "parent", 10, 6),
    ])  # fmt: skip
    t = rq.outcomes(s).set_index(["client", "t_s"])
    assert t.loc[("go", 30.0), "outcome"] == "1,1,4"  # 30,001 ms is after the 30 s snapshot
    assert t.loc[("go", 60.0), "outcome"] == "1,2,4"
    assert t.loc[("go", 120.0), ["outcome", "total"]].tolist() == ["2,4,8", 14]
    # Java's multi-topics parent is a queue of its own, not a partition
    assert t.loc[("java", 120.0), ["outcome", "parent"]].tolist() == ["1", 6]


def test_a_short_run_is_read_at_its_end_and_not_past_it():
    s = _series([("N48", "go", "topic", -10, 1), ("N48", "go", "topic", 50, 2)], run_s=20.0)
    t = rq.outcomes(s)
    assert t["t_s"].tolist() == [20.0] and t["outcome"].tolist() == ["2"]


def test_distribution_and_its_description():
    t = pd.DataFrame({
        "row_id": ["N53"] * 4, "client": ["go"] * 4, "t_s": [60.0] * 4,
        "outcome": ["2,2,2", "2,2,4", "2,2,2", "2,2,2"],
    })  # fmt: skip
    d = rq.distribution(t, "N53", "go", 60.0)
    assert d == Counter({"2,2,2": 3, "2,2,4": 1})
    assert rq.describe(d) == "2,2,2 in 3/4, 2,2,4 in 1/4"
    assert rq.describe(Counter()) == "no runs"


def test_waves_put_the_slow_rows_together_and_each_fast_row_alone():
    rows = queue_rows()
    assert [[r.id for r in w] for w in rq.waves(rows)] == [[r.id] for r in rows]  # the default
    assert [[r.id for r in w] for w in rq.waves(rows, 100)] == [
        ["N46", "N47", "N48", "N49", "N52", "N53", "N54"], ["N50"], ["N51"], ["N55"], ["N56"],
        ["N57"]]  # fmt: skip
    # the published table's rates and partitions (seed 004)
    assert [(r.rate_per_s, r.partitions) for r in rows[:2]] == [(1, 1), (5, 1)]
    assert (rows[-1].rate_per_s, rows[-1].partitions) == (20_000, 3)


def _row_run(row_id: str) -> rq.RowRun:
    (row,) = queue_rows([row_id])
    series = pd.DataFrame({"client": ["go", "java"], "consumer": ["topic", "topic"],
                           "t_ms": [5, 7], "size": [2, 2], "source": ["debug log", "sampled"]})  # fmt: skip
    return rq.RowRun(row, f"rq-{row_id.lower()}-x", series, 1200, 1190, 1200, 1_700_000_000_000)


def test_written_runs_read_back_and_a_damaged_file_is_named(tmp_path):
    facts = {"run_id": "20261128t000000", "pulsar_version": "2.11.0", "run_seconds": 120.0}
    paths = rq.write([_row_run("N48")], facts, tmp_path, smoke=False)
    assert sorted(p.name for p in paths) == [
        "rq-2.11.0-20261128t000000-rows.parquet", "rq-2.11.0-20261128t000000.parquet"]  # fmt: skip
    stored = rq.read_runs(tmp_path)
    assert stored.runs == 1 and not stored.problems
    assert rq.outcomes(stored.series)["outcome"].tolist() == ["2", "2", "2", "2", "2", "2"]
    # a second run whose series file is damaged: named, left out with its pair
    facts2 = {**facts, "run_id": "20261128t010000"}
    rq.write([_row_run("N48")], facts2, tmp_path, smoke=False)
    damaged = tmp_path / "rq-2.11.0-20261128t010000.parquet"
    damaged.write_bytes(damaged.read_bytes()[:100])
    stored = rq.read_runs(tmp_path)
    assert stored.runs == 1
    assert len(stored.problems) == 1 and "20261128t010000-rows.parquet" in stored.problems[0]


@pytest.mark.parametrize(
    "text, ids",
    [("N53", ["N53"]), ("n53,N54", ["N53", "N54"]), ("N55-N57", ["N55", "N56", "N57"]),
     ("N46-N47,N46", ["N46", "N47"])],
)  # fmt: skip
def test_rows_parse(text, ids):
    from trackerlab.commands.broker_rq import parse_rows

    assert parse_rows(text) == ids


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rows", "N45"], "--rows N45: N45 is not among N46-N57"),
        (["--rows", "N57-N46"], "--rows N57-N46: N57-N46 is not among N46-N57"),
        (["--runs", "0"], "--runs 0: must be in [1, 20]"),
        (["--together-up-to", "-1"], "--together-up-to -1: must be in [0, 20000] msg/s"),
        (["--seconds", "5s"], "--seconds 5s: must be in [10s, 60m]"),
        (["--seconds", "30"], "--seconds: '30' needs a unit"),
        (["--pulsar-version", "2.10.5"], "2.10"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    from trackerlab.commands.cli import main

    assert main(["broker", "receiver-queue", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_the_stored_runs_only_double_and_cover_every_row():
    """The committed runs (data/broker/receiver_queue/): every row in each run, every queue
    only grows, each Go step is one doubling capped at the maximum of 1000 (one debug line
    per doubling) and each Java step one or more (a 20 ms sample can miss some), and the
    Java consumer received every message the topic took in."""
    from trackerlab.core.paths import data_dir

    stored = rq.read_runs(data_dir() / "broker" / "receiver_queue")
    assert not stored.problems
    assert stored.runs >= 3
    assert (stored.rows.groupby("run_id")["row_id"].nunique() == 12).all()
    assert (stored.rows["java_received"] == stored.rows["messages_in"]).all()
    s = stored.series.sort_values("t_ms", kind="stable")
    for key, g in s.groupby(["run_id", "row_id", "client", "consumer"]):
        sizes = g["size"].tolist()
        doublings = (1,) if key[2] == "go" else range(1, 11)
        for a, b in itertools.pairwise(sizes):
            assert any(b == min(a * 2**k, 1000) for k in doublings), (key, sizes)


def test_cpu_shares_between_two_readings():
    # (niced, busy, total) clock ticks: 400 ticks passed, 100 busy, 30 of them niced work
    assert rq._shares((1000, 5000, 20000), (1030, 5100, 20400)) == (0.25, 0.075)
    niced, busy, total = rq.cpu_jiffies()
    assert 0 <= niced <= busy <= total
