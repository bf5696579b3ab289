"""The massive_delayed report's frames and figures on hand-built summaries: every expected
number is written out (and derived) by hand below."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from trackerlab.experiments import massive_report as mr

MIB, GIB = 1024**2, 1024**3
DESIGNS = ["triple-heap", "time-buckets", "pip195-buckets", "delay-level-topics"]


def summary(memory_mib, retention_h, recovery, extra_mib=(0, 0, 0, 0), storage_gib=(1, 1, 1, 1),
            amplification=(1.0, 1.0, 1.0, 2.0)):  # fmt: skip
    return pd.DataFrame({
        "memory_steady_bytes": [m * MIB for m in memory_mib],
        "retention_max_h": list(retention_h),
        "recovery_indexes": list(recovery),
        "extra_writes_bytes": [e * MIB for e in extra_mib],
        "storage_end_bytes": [s * GIB for s in storage_gib],
        "write_amplification": list(amplification),
    }, index=DESIGNS)  # fmt: skip


def test_pick_prefers_retention_and_restart_then_memory():
    # retention 720, 720, 720, 24 h: only levels are within 1.5 x 24 + 1 = 37 h
    s = summary((400, 300, 30, 50), (720, 720, 720, 24), (8e6, 8e6, 1e4, 1e3))
    assert mr.pick(s) == "delay-level-topics"
    # equal retention; restart bound 10 x 1,000 + 100,000 = 101,000 excludes the heap and
    # time buckets: PIP-195 (30 MiB) beats the levels (50 MiB)
    s = summary((400, 300, 30, 50), (24, 24, 24, 24), (8e6, 8e6, 1e4, 1e3))
    assert mr.pick(s) == "pip195-buckets"
    # every design qualifies: the least memory wins
    s = summary((1, 2, 3, 4), (24, 24, 24, 24), (0, 0, 0, 0))
    assert mr.pick(s) == "triple-heap"


def test_choice_and_by_profile_tables():
    results = {
        "fixed:1d": summary((400, 300, 30, 50), (24, 24, 24, 24), (8e6, 8e6, 1e4, 1e3),
                            amplification=(1, 1, 1, 2.0)),
        "fixed:30s": summary((1, 2, 3, 4), (1, 1, 1, 1), (0, 0, 0, 0), amplification=(1, 1, 1, 1.0)),
    }  # fmt: skip
    choice = mr.choice_table(results)
    assert choice.index.name == "delay profile"
    assert choice.to_dict("index") == {
        "fixed:1d": {"pick": "pip195-buckets", "least memory": "pip195-buckets",
                     "write amplification of levels": 2.0},
        "fixed:30s": {"pick": "triple-heap", "least memory": "triple-heap",
                      "write amplification of levels": 1.0},
    }  # fmt: skip
    memory = mr.by_profile(results, "memory_steady_bytes", MIB)
    assert (
        memory.loc["fixed:1d", "time-buckets"] == 300
        and memory.loc["fixed:30s", "delay-level-topics"] == 4
    )


def test_figures_by_hand():
    s12 = summary((416, 290, 64, 0), (24, 24, 24, 0), (0, 0, 0, 0), extra_mib=(0, 0, 12.5, 0))
    sm = summary((10, 20, 5, 0.5), (720, 744, 768, 48), (9e6, 8e6, 2e5, 3e3),
                 storage_gib=(30, 31, 32, 2))  # fmt: skip
    f = mr.figures(s12, sm)
    assert (f.heap_mib, f.pip_mib, f.time_buckets_mib, f.levels_n12_mib) == (416, 64, 290, 0)
    assert f.pip_snapshots_mib == 12.5
    assert f.single_days == 32.0  # 768 h / 24, PIP-195's; the levels' 48 h are not single-topic
    assert f.single_storage_gib == 32 and f.levels_storage_gib == 2
    assert f.levels_days == 2.0 and f.levels_mib == 0.5
    assert (f.heap_recovery, f.pip_recovery, f.levels_recovery) == (9e6, 2e5, 3e3)
    without = sm.drop(index="delay-level-topics")
    with pytest.raises(KeyError):  # the conclusions name the levels: they must have run
        mr.figures(s12, without)


def test_speed_table():
    run = SimpleNamespace(
        scenario=SimpleNamespace(days=2.0), seconds=4.0, simulated_days_per_second=0.5
    )
    table = mr.speed_table({"N12": run})
    assert table.to_dict("records") == [
        {
            "scenario": "N12",
            "simulated days": 2.0,
            "wall time (s)": 4.0,
            "simulated days per second": 0.5,
        }
    ]


def test_figures_reject_a_cell_that_is_not_a_number():
    s12 = summary((416, 290, 64, 0), (24, 24, 24, 0), (0, 0, 0, 0))
    s12["memory_steady_bytes"] = s12["memory_steady_bytes"].astype(object)
    s12.loc["triple-heap", "memory_steady_bytes"] = "416 MiB"
    with pytest.raises(TypeError, match="triple-heap memory_steady_bytes"):
        mr.figures(s12, s12)


SMALL = {"rate_per_s": 100.0, "batch_size": 1, "subscriptions": 1, "step_s": 1.0, "samples": 4}


def test_run_simulates_the_delay_with_the_common_settings():
    result = mr.run("fixed:30s", 0.02, SMALL)
    assert (result.scenario.delay, result.scenario.days, result.scenario.rate_per_s) == (
        "fixed:30s",
        0.02,
        100.0,
    )
    # 100 entries/s held 30 s, less the tick (1 s) by which they may leave early: 2,900
    assert result.summary().loc["triple-heap", "indexed_entries_end"] == 2900
    runs = mr.profile_runs(["fixed:30s", "fixed:10s"], 0.02, SMALL)
    assert list(runs) == ["fixed:30s", "fixed:10s"]
    assert runs["fixed:10s"].summary().loc["triple-heap", "indexed_entries_end"] == 900
