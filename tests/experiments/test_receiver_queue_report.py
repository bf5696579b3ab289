"""The receiver_queue report's frames and sentences on hand-built inputs: a fit over two
candidate latencies and three rows, a reproduction table, memory runs and drains; every
expected number is written out by hand below."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from trackerlab.experiments import receiver_queue_report as rq
from trackerlab.experiments.reproduce.receiver_queue import RowPrediction, TableRow

ROWS = {
    "N51": TableRow("N51", 10000.0, 1, 1000, None),
    "N52": TableRow("N52", 1.0, 3, 4, (2, 1, 1)),
    "N54": TableRow("N54", 100.0, 3, 16, (4, 4, 8)),
}


def fake_report():
    # 4 seeds per row. At 1000 µs: N54 gives 4,4,8 in 3 seeds, N51 1000 in 1; at 3000 µs
    # (the fit): N54 4,4,8 in 1 seed, N51 1000 in 4.
    preds = {
        1000.0: {
            "N51": RowPrediction(((500,), (1000,), (500,), (500,))),
            "N52": RowPrediction(((1, 1, 2),) * 4),
            "N54": RowPrediction(((4, 4, 8), (8, 4, 4), (4, 8, 4), (8, 8, 8))),
        },
        3000.0: {
            "N51": RowPrediction(((1000,),) * 4),
            "N52": RowPrediction(((1, 2, 1),) * 4),
            "N54": RowPrediction(((4, 4, 8), (8, 8, 8), (8, 8, 8), (8, 8, 8))),
        },
    }
    return SimpleNamespace(
        fitted_us=3000.0, predictions=preds, fit_score=(5, 6), held_out_score=(4, 6),
        loo_score=(9, 12), prediction=lambda pid: preds[3000.0][pid],
    )  # fmt: skip


def repro_table():
    return pd.DataFrame({
        "id": ["N51", "N52", "N54", "N55"],
        "category": ["reproduced by construction", "reproduced", "deviates", "reproduced"],
        "role": ["fit", "held-out", "held-out", "held-out"],
        "model": [1000, 4, 24, 8], "published": [1000, 4, 16, 8],
        "partitions": [1, 3, 3, 3], "rate": [10000.0, 1.0, 100.0, 1000.0],
    })  # fmt: skip


def memory_frame():
    mib = rq.MIB
    return pd.DataFrame({
        "client": ["go", "go", "java", "java"],
        "mode": ["fixed", "auto+limit", "auto", "auto+limit"],
        "partitions": [1, 8, 1, 8],
        "message_bytes": [128, 65536, 1048576, 1048576],
        "peak_client_MiB": [0.5, 70.25, 200.0, 10.0],
        "peak_per_consumer_MiB": [0.5, 9.0, 200.0, 1.25],
        "peak_prefetched_per_consumer": [4000, 144, 200, 2],
        "under_limit": [True, False, False, True],
        "peak_client_bytes": [0.5 * mib, 70.25 * mib, 200.0 * mib, 10.0 * mib],
    })  # fmt: skip


def test_grids_by_hand():
    report = fake_report()
    grid = rq.predictions_grid(report, ROWS).set_index("id")
    assert list(grid.columns) == ["published", "role", "at 1000 µs", "at 3000 µs"]
    assert grid.at["N52", "published"] == "1,1,2" and grid.at["N52", "role"] == "held-out"
    assert grid.at["N51", "role"] == "fit"  # N46-N51 are the fitting rows
    # N51 at 1000 µs: 500 in 3 of 4 seeds; N54 at 1000 µs: 4,4,8 in 3 (sorted)
    assert grid.at["N51", "at 1000 µs"] == "500" and grid.at["N54", "at 1000 µs"] == "4,4,8"
    share = rq.published_share_grid(report, ROWS).set_index("id")
    assert share.at["N54", "at 1000 µs"] == "3/4" and share.at["N54", "at 3000 µs"] == "1/4"
    assert share.at["N52", "at 3000 µs"] == "4/4"  # 1,2,1 sorts to the published 1,1,2
    spread = rq.candidate_spread(report, ["N54"])
    assert spread.loc["N54"].tolist() == [16, 24]  # 4+4+8 at 1000 µs, 8+8+8 at 3000 µs


def test_n54_pull_and_sentence():
    report = fake_report()
    pull = rq.n54_pull(report, ROWS)
    assert pull == rq.N54Pull(1000.0, 3, "1/4")
    assert rq.n54_sentence(report, ROWS) == (
        "N54 under one latency: its published 4,4,8 is the model's most frequent outcome at "
        "1000 µs (3 of 12 seeds), but there N51's 1000 comes out in only 1/4 seeds; the fit on "
        "N46–N51 takes 3000 µs, where 4,4,8 comes out in 1/4."
    )
    assert rq.n54_headline(report, ROWS) == (
        "N54's 4,4,8 comes out most often at", "1000 µs",
        "3 of 12 seeds; there N51's 1000 comes out in 1/4, at the fit (3000 µs) in 4/4",
    )  # fmt: skip


def test_fit_sentences_by_hand():
    report, table = fake_report(), repro_table()
    assert rq.fit_sentence(report, table) == (
        "The harness modelled from the code, with one latency fitted on the non-partitioned table "
        "(3000 µs), predicts 4 of the 6 held-out 3-partition rows exactly (N52, N55 as "
        "predictions; the rest of the matches any latency gives); leave-one-out over all twelve "
        "rows predicts 9."
    )
    assert rq.category_sentence(table) == (
        "Categories: reproduced 2, reproduced by construction 1, deviates 1."
    )
    assert rq.fixed_sentence(table).startswith(
        "Rows fixed by the code whatever the latency, or fitted: N51;"
    )
    assert rq.deviation_sentence(table) == "Not reproduced: N54 (deviates: model 24 vs 16)."
    headlines = rq.fit_headlines(report)
    assert headlines[0] == (
        "tick latency fitted on N46-N51",
        "3000 µs",
        "fit 5/6; 12 seeds per row and candidate",
    )
    assert headlines[1][1] == "4 of 6" and headlines[1][2].endswith("9 of 12")


def test_memory_sentences_by_hand():
    memory, limit = memory_frame(), 64 * rq.MIB
    # limited: go 8 partitions (over: 70.25 MiB) and java 8 partitions (under)
    assert len(rq.limited_runs(memory)) == 2 and rq.over_limit(memory).client.tolist() == ["go"]
    assert rq.unlimited_over(memory).client.tolist() == ["java"]  # the unlimited 200 MiB run
    assert rq.prefetch_sentence(memory, limit) == (
        "Prefetch with batching: a partition consumer held up to 4,000 messages (200.0 MiB) in "
        "these runs, whole entries beyond its queue size. Under an enforced 64 MiB limit 1 of 2 "
        "clients still went over it (go, 8 partitions, 65,536 B: 70.2 MiB); without a limit 1 of "
        "2 did."
    )
    assert rq.memory_headline(memory, limit) == (
        "runs that went over an enforced memoryLimit", "1 of 2",
        "limit 64 MiB; without a limit 1 of 2 runs held more (largest 200.0 MiB)",
    )  # fmt: skip
    text = rq.answer_sentence(memory, limit, "W", [1, 8])
    assert text == (
        "With batching, a Go or Java consumer under a 64 MiB memoryLimit went over it in 1 of 2 "
        "runs (up to 70.2 MiB) for W on 1 or 8 partitions; without the limit a client held up to "
        "200.0 MiB, and a partition consumer up to 4,000 messages, whole entries beyond its queue "
        "of 1000"
    )
    under = memory.assign(under_limit=[True, True, False, True])
    assert "memoryLimit stays under it for W on 1 partition;" in rq.answer_sentence(
        under, limit, "W", [1]
    )
    assert " limit 0 of 2 clients still went over it; " in rq.prefetch_sentence(under, limit)


def test_drain_sentence_and_conclusions_order():
    drains = pd.DataFrame({"drain": ["batch-receive", "receive-async"], "lag_s": [0.101, 9.5]})
    assert rq.drain_sentence(drains, 20000.0) == (
        "Java partitioned drain at 20000 msg/s: batch-receive lag 0.101 s, receive-async lag 9.5 s."
    )
    report, table, memory = fake_report(), repro_table(), memory_frame()
    lines = rq.conclusions(report, ROWS, table, memory, 64 * rq.MIB, drains, 20000.0)
    assert len(lines) == 7
    assert lines[0].startswith("The harness modelled") and lines[-1].startswith("Java partitioned")


def test_sensitivity_frames_by_hand():
    sens = pd.DataFrame({
        "parameter": ["read_us"] * 4, "value": [5.0, 5.0, 500.0, 500.0],
        "id": ["N49", "N50", "N49", "N50"], "final_total_size": [8, 16, 8, 32],
    })  # fmt: skip
    # N50 moves (16 -> 32), N49 does not
    assert rq.sensitivity_headline(sens)[1] == "1 of 2"
    table = rq.sensitivity_table(sens)
    assert table.N50.tolist() == [16, 32] and table.N49.tolist() == [8, 8]


def test_open_parameters_frame_lists_every_parameter():
    frame = rq.open_parameters_frame()
    assert list(frame.columns) == ["parameter", "value", "why"]
    assert set(rq.SWEEP_RANGES_US) <= set(frame.parameter)
