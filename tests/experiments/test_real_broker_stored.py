"""Reading stored real-broker results back (``trackerlab.experiments.real_broker.stored``):
hand-made Parquet files with hand-computed errors, a damaged file, a file without provenance,
and the files the delayed experiment's own writer produces."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trackerlab.experiments.real_broker import delayed, stored

MACHINE = {"node": "box", "cpus": 2, "memory_bytes": 8 << 30, "system": "Linux-x", "java": 17}


def write(path: Path, rows: list[dict], provenance: dict | None) -> Path:
    """A Parquet file of ``rows``; ``provenance`` under the schema key ``trackerlab``."""
    table = pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False)
    if provenance is not None:
        meta = {**(table.schema.metadata or {}), b"trackerlab": json.dumps(provenance).encode()}
        table = table.replace_schema_metadata(meta)
    pq.write_table(table, path)
    return path


def row(workload, release, sub, measured, plan, error, verdict, **extra) -> dict:
    return {"workload": workload, "pulsar_version": release, "subscription": sub,
            "design": "d", "measured_deep_bytes": measured, "plan_bytes": plan,
            "error": error, "verdict": verdict, **extra}  # fmt: skip


def prov(experiment, workload, release, **extra) -> dict:
    return {"experiment": experiment, "smoke": False, "pulsar_version": release,
            "client": f"pulsar-client-original {release}", "workload": {"name": workload},
            "tolerance": 0.05, "tolerance_reason": "why 5%", "machine": MACHINE,
            "git_commit": "abcdef0123456789", "created": "2026-11-27T16:12:14Z", **extra}  # fmt: skip


@pytest.fixture
def folder(tmp_path) -> Path:
    """Three experiments, six rows. Errors by hand, (plan - measured) / measured:
    960 vs 1000 = -4%, 1030 vs 1000 = +3%, 1000 vs 2000 = -50% (broker behind: not compared),
    540 vs 500 = +8% (the worst compared), 3800 vs 4000 = -5%, 106 vs 100 = +6%."""
    write(tmp_path / "delayed-w1-4.2.4.parquet", [
        row("w1", "4.2.4", "sub-0", 1000.0, 960, -0.04, "within", metric_index_bytes=500.0),
        row("w1", "4.2.4", "sub-1", 1000.0, 1030, 0.03, "within", metric_index_bytes=500.0),
    ], prov("delayed", "w1", "4.2.4"))  # fmt: skip
    write(tmp_path / "delayed-w1-4.2.4-samples.parquet", [
        {"t_s": 10.0, "subscription": "sub-0", "deep_bytes": 100, "metric_index_bytes": 50.0},
        {"t_s": 10.0, "subscription": "sub-1", "deep_bytes": 300, "metric_index_bytes": 70.0},
        {"t_s": 20.0, "subscription": "sub-0", "deep_bytes": 1000, "metric_index_bytes": 500.0},
        {"t_s": 20.0, "subscription": "sub-1", "deep_bytes": 1000, "metric_index_bytes": None},
    ], prov("delayed", "w1", "4.2.4"))  # fmt: skip
    write(tmp_path / "delayed-w2-4.0.8.parquet", [
        row("w2", "4.0.8", "sub-0", 2000.0, 1000, -0.5, "broker behind"),
        row("w2", "4.0.8", "sub-1", 500.0, 540, 0.08, "outside"),
    ], prov("delayed", "w2", "4.0.8"))  # fmt: skip
    # no pulsar_version column: the release comes from the provenance
    nack = row("w3", "4.2.4", "sub-0", 4000.0, 3800, -0.05, "within")
    del nack["pulsar_version"]
    write(tmp_path / "nack-w3-4.2.4.parquet", [nack], prov("nack", "w3", "4.2.4"))
    # no "experiment" in the provenance: the known prefix is read whole
    write(tmp_path / "pending-acks-w4-4.2.4.parquet",
          [row("w4", "4.2.4", "sub-0", 100.0, 106, 0.06, "outside")],
          {k: v for k, v in prov("pending-acks", "w4", "4.2.4").items() if k != "experiment"})  # fmt: skip
    # a smoke run: left out unless asked for
    write(tmp_path / "delayed-w1-4.2.4-smoke.parquet",
          [row("w1", "4.2.4", "sub-0", 10.0, 20, 1.0, "outside")], prov("delayed", "w1", "4.2.4"))  # fmt: skip
    return tmp_path


def test_reads_every_experiment_and_finds_the_hand_computed_worst_error(folder):
    r = stored.read_results(folder)
    assert r.problems == []
    assert len(r.comparison) == 6 and len(r.runs) == 4 and len(r.samples) == 4
    assert sorted(r.comparison["experiment"].unique()) == ["delayed", "nack", "pending-acks"]
    assert r.comparison.loc[r.comparison.experiment == "nack", "release"].tolist() == ["4.2.4"]
    worst = stored.worst_error(r.comparison)
    # -50% is larger, but its broker fell behind; +8% is the worst the plan is held to
    assert worst == stored.WorstError("delayed", "w2", "4.0.8", "sub-1", 0.08, 500.0, 540.0)


def test_answer_leads_with_the_worst_error(folder):
    r = stored.read_results(folder)
    assert stored.answer_sentence(r) == (
        "Against Pulsar 4.0.8's and 4.2.4's brokers the planner is within 5% on 3 of 6 rows; "
        "worst: +8% (delayed w2 on 4.0.8: plan 540 B against 500 B measured); "
        "1 not compared (broker behind)."
    )
    (label, value, note), within = stored.headlines(r)
    assert (label, value) == ("worst error of the plan against the broker", "+8%")
    assert "delayed w2, Pulsar 4.0.8" in note
    assert within == ("rows within the tolerance", "3 of 6", "1 with the broker behind")


def test_one_release_reads_as_one_broker(folder):
    r = stored.read_results(folder)
    r.comparison = r.comparison[r.comparison.release == "4.2.4"]
    assert stored.answer_sentence(r).startswith(
        "Against Pulsar 4.2.4's broker the planner is within 5% on 3 of 4 rows; "
        "worst: +6% (pending-acks w4 on 4.2.4: plan 106 B against 100 B measured)."
    )


def test_summary_per_experiment_and_release(folder):
    s = stored.summary(stored.read_results(folder).comparison)
    assert s[["experiment", "release", "rows", "within", "outside", "behind"]].values.tolist() == [
        ["delayed", "4.0.8", 2, 0, 1, 1],
        ["delayed", "4.2.4", 2, 2, 0, 0],
        ["nack", "4.2.4", 1, 1, 0, 0],
        ["pending-acks", "4.2.4", 1, 0, 1, 0],
    ]
    assert s["worst_error_percent"].tolist() == pytest.approx([8.0, -4.0, -5.0, 6.0])


def test_comparison_table_orders_releases_as_versions(folder, tmp_path):
    write(folder / "delayed-w1-4.10.0.parquet",
          [row("w1", "4.10.0", "sub-0", 10.0, 10, 0.0, "within")], prov("delayed", "w1", "4.10.0"))  # fmt: skip
    t = stored.comparison_table(stored.read_results(folder).comparison, "delayed")
    assert t[["workload", "release"]].drop_duplicates().values.tolist() == [
        ["w1", "4.2.4"], ["w1", "4.10.0"], ["w2", "4.0.8"],
    ]  # fmt: skip
    assert t["error_percent"].tolist()[:2] == pytest.approx([-4.0, 3.0])


def test_time_series_is_the_mean_over_subscriptions(folder):
    ts = stored.time_series(stored.read_results(folder), "delayed-w1-4.2.4")
    deep = ts[ts.series == "deep size (JOL)"]
    assert deep[["t_s", "bytes"]].values.tolist() == [[10.0, 200.0], [20.0, 1000.0]]
    metric = ts[ts.series == "broker metric"]  # a missing value is left out of the mean
    assert metric[["t_s", "bytes"]].values.tolist() == [[10.0, 60.0], [20.0, 500.0]]
    assert stored.time_series(stored.read_results(folder), "nack-w3-4.2.4").empty


def test_story_names_releases_machine_and_commit(folder):
    story = stored.runs_story(stored.read_results(folder))
    assert "**delayed**: 2 runs, workloads `w1`, `w2` on Pulsar 4.0.8, 4.2.4" in story
    assert "Machine `box`: 2 CPUs, 8.0 GiB memory, Java 17, Linux-x; 4 runs on 2026-11-27" in story
    assert "commit abcdef0123" in story


def test_smoke_runs_only_when_asked(folder):
    assert len(stored.read_results(folder, include_smoke=True).comparison) == 7


def test_a_damaged_file_or_one_without_provenance_is_one_line_each(folder):
    (folder / "delayed-bad-4.2.4.parquet").write_bytes(b"PAR1 this is not parquet")
    write(folder / "delayed-bare-4.2.4.parquet", [row("b", "4.2.4", "s", 1.0, 1, 0.0, "within")],
          None)  # fmt: skip
    (folder / "delayed-text-4.2.4.parquet").write_bytes(b"")
    write(folder / "delayed-nojson-4.2.4.parquet",
          [row("b", "4.2.4", "s", 1.0, 1, 0.0, "within")], None)  # fmt: skip
    t = pq.read_table(folder / "delayed-nojson-4.2.4.parquet")
    pq.write_table(t.replace_schema_metadata({b"trackerlab": b"{not json"}),
                   folder / "delayed-nojson-4.2.4.parquet")  # fmt: skip
    write(folder / "nack-cols-4.2.4.parquet", [{"workload": "x", "error": 0.1}],
          prov("nack", "x", "4.2.4"))  # fmt: skip
    r = stored.read_results(folder)
    assert len(r.comparison) == 6  # the good files still read
    assert len(r.problems) == 5
    by_file = {line.split(":", 1)[0]: line for line in r.problems}
    assert set(by_file) == {
        "delayed-bad-4.2.4.parquet", "delayed-bare-4.2.4.parquet", "delayed-text-4.2.4.parquet",
        "delayed-nojson-4.2.4.parquet", "nack-cols-4.2.4.parquet",
    }  # fmt: skip
    assert "not a readable Parquet file" in by_file["delayed-bad-4.2.4.parquet"]
    assert "no provenance" in by_file["delayed-bare-4.2.4.parquet"]
    assert "not JSON" in by_file["delayed-nojson-4.2.4.parquet"]
    assert by_file["nack-cols-4.2.4.parquet"].endswith(
        "no column measured_deep_bytes, plan_bytes, verdict; left out"
    )
    assert all("\n" not in line and str(folder) not in line for line in r.problems)


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_no_results_say_how_to_get_them(tmp_path, make):
    folder = tmp_path / "broker"
    if make == "empty":
        folder.mkdir()
        (folder / "delayed-x-4.2.4-smoke.parquet").write_bytes(b"ignored: a smoke run")
    r = stored.read_results(folder)
    assert r.empty and r.problems == []
    sentence = stored.answer_sentence(r)
    assert sentence.startswith("No stored real-broker results in ")
    assert sentence.endswith(": run `trackerlab broker run all`.")
    assert stored.headlines(r) == [
        ("stored real-broker results", "none", "run `trackerlab broker run all`")
    ]
    assert stored.worst_error(r.comparison) is None and stored.summary(r.comparison).empty


def test_every_row_behind_is_said(folder):
    r = stored.read_results(folder)
    r.comparison = r.comparison.assign(verdict=stored.BEHIND)
    assert stored.worst_error(r.comparison) is None
    assert stored.answer_sentence(r).endswith(
        "within 5% on 0 of 6 rows; none compared: the broker fell behind on all 6."
    )


def test_worst_error_tie_takes_the_first_row():
    frame = pd.DataFrame([
        {"experiment": "e", "workload": "b", "release": "1", "subscription": "s",
         "measured_deep_bytes": 1.0, "plan_bytes": 0.9, "error": -0.1, "verdict": "within"},
        {"experiment": "e", "workload": "a", "release": "1", "subscription": "s",
         "measured_deep_bytes": 1.0, "plan_bytes": 1.1, "error": 0.1, "verdict": "within"},
    ])  # fmt: skip
    assert stored.worst_error(frame).workload == "a"


def test_results_folder_is_relative_to_the_repository():
    from trackerlab.core.paths import repo_root

    assert stored.results_folder("data/broker") == repo_root() / "data" / "broker"
    assert stored.results_folder("/x/y") == Path("/x/y")


def test_reads_what_the_delayed_experiment_writes(tmp_path):
    """The writer's file names and provenance are what the reader expects."""
    (w,) = delayed.SMOKE
    comparison = pd.DataFrame([
        {**row(w.name, "4.2.4", s, 40_000.0, 41_000, 0.025, "within"), "metric_index_bytes": 1.0}
        for s in w.subscription_names()
    ])  # fmt: skip
    samples = pd.DataFrame([
        {"t_s": t, "subscription": s, "deep_bytes": 40_000, "metric_index_bytes": 20_000,
         "broker_heap_used_bytes": 100 << 20}
        for t in (20.0, 24.0) for s in w.subscription_names()
    ])  # fmt: skip
    result = delayed.DelayedResult(w, "4.2.4", "4.2.4", samples, comparison, 20.0, 80.0, 1000.0,
                                   500 << 20, 100 << 20, "jol")  # fmt: skip
    delayed.write_results([result], tmp_path, smoke=False)
    r = stored.read_results(tmp_path)
    assert r.problems == [] and len(r.comparison) == 2 and len(r.samples) == 4
    assert r.runs[["experiment", "workload", "release", "tolerance"]].values.tolist() == [
        ["delayed", w.name, "4.2.4", delayed.TOLERANCE]
    ]
    assert stored.worst_error(r.comparison).error == pytest.approx(0.025)
    assert set(stored.time_series(r, f"delayed-{w.name}-4.2.4")["bytes"]) == {40_000, 20_000}


def test_committed_results_read_without_a_broker():
    """``make report`` on a fresh clone: the full-run results under data/broker/ are tracked
    and every one reads with its provenance; smoke outputs and temporary files stay ignored."""
    import subprocess

    from tests.conftest import REPO

    folder = REPO / "data" / "broker"
    r = stored.read_results(folder)
    assert r.problems == [] and not r.empty
    assert len(r.samples["run"].unique()) == len(r.runs)  # every run has its time series

    def ignored(name: str) -> bool:
        check = ["git", "-C", str(REPO), "check-ignore", "-q", "--no-index", f"data/broker/{name}"]
        return subprocess.run(check).returncode == 0

    assert not ignored("delayed-w-4.2.4.parquet") and not ignored("nack-w-4.2.4-samples.parquet")
    assert ignored("delayed-w-4.2.4-smoke.parquet") and ignored(
        "delayed-w-4.2.4-smoke-samples.parquet"
    )
    assert ignored(".delayed-w-4.2.4.parquet.123.tmp")


def test_a_nack_runs_samples_have_no_subscription_and_are_read(tmp_path):
    """``broker run nack`` samples one consumer: its samples file has no ``subscription``
    column, and is read (filed under one consumer), not left out."""
    rows = [{"t_s": 2.0, "deep_bytes": 3_000}, {"t_s": 4.0, "deep_bytes": 3_500}]
    write(tmp_path / "nack-2pct-1s-4.2.4-samples.parquet", rows, prov("nack", "2pct-1s", "4.2.4"))
    results = stored.read_results(tmp_path)
    assert results.problems == []
    assert list(results.samples["subscription"]) == ["consumer", "consumer"]


# --------------------------------------------------------------------------- the notebook's parts


def test_data_notes_name_left_out_files_then_the_data(folder):
    (folder / "delayed-bad-4.2.4.parquet").write_bytes(b"PAR1 this is not parquet")
    notes = stored.data_notes(stored.read_results(folder))
    assert len(notes) == 2  # one file left out, then the data; no "no results" note
    assert notes[0].startswith("> **Left out:** delayed-bad-4.2.4.parquet: not a readable")
    assert notes[1].startswith("*Data: `") and "**delayed**: 2 runs" in notes[1]


def test_data_notes_without_results_say_how_to_run(tmp_path):
    notes = stored.data_notes(stored.read_results(tmp_path / "none"))
    assert len(notes) == 2
    assert (
        notes[0].startswith("> **No stored results in `")
        and "`trackerlab broker run all`" in notes[0]
    )
    assert notes[1].endswith("No stored results in `" + notes[1].split("`")[1] + "`.")
    assert stored.experiments(stored.read_results(tmp_path / "none")) == []


def test_run_panels_title_each_run_and_say_why_one_is_not_compared(folder):
    r = stored.read_results(folder)
    assert stored.experiments(r) == ["delayed", "nack", "pending-acks"]
    panels = stored.run_panels(r, "delayed")
    # one panel per run (w1 has two subscriptions); w2's sub-0 fell behind (hand-made verdict)
    assert panels["title"].tolist() == [
        "w1 on Pulsar 4.2.4",
        "w2 on Pulsar 4.0.8 (broker behind: not compared)",
    ]
    assert panels["plan_bytes"].tolist() == [960, 1000]


def test_run_panels_name_a_lagging_dispatcher(folder):
    write(folder / "nack-w9-4.2.4.parquet",
          [row("w9", "4.2.4", "sub-0", 10.0, 10, 0.0, "within", dispatcher="behind")],
          prov("nack", "w9", "4.2.4"))  # fmt: skip
    titles = stored.run_panels(stored.read_results(folder), "nack")["title"].tolist()
    assert titles == ["w3 on Pulsar 4.2.4", "w9 on Pulsar 4.2.4 (behind: planned at its read lag)"]


def test_heap_series_takes_one_sample_per_time_in_mib(folder):
    assert stored.heap_series(stored.read_results(folder)).empty  # no heap column stored
    write(folder / "delayed-w2-4.0.8-samples.parquet", [
        {"t_s": 5.0, "subscription": "sub-0", "deep_bytes": 1, "broker_heap_used_bytes": 3 << 20},
        {"t_s": 5.0, "subscription": "sub-1", "deep_bytes": 1, "broker_heap_used_bytes": 9 << 20},
        {"t_s": 9.0, "subscription": "sub-0", "deep_bytes": 1, "broker_heap_used_bytes": 1 << 19},
    ], prov("delayed", "w2", "4.0.8"))  # fmt: skip
    heap = stored.heap_series(stored.read_results(folder))
    heap = heap[heap.run == "delayed-w2-4.0.8"]
    assert heap[["t_s", "heap_mib"]].values.tolist() == [[5.0, 3.0], [9.0, 0.5]]
    assert set(heap["label"]) == {"delayed w2 on 4.0.8"}


def test_tolerance_notes_once_per_reason(folder):
    assert stored.tolerance_notes(stored.read_results(folder)) == ["*Tolerance:* why 5%."]
    assert stored.tolerance_notes(stored.read_results(folder / "none")) == []
