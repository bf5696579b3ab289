"""``notebooks/real_broker.ipynb`` renders from stored results alone (no broker): on
hand-made results with a damaged file among them, and on an empty folder."""

from __future__ import annotations

import json

import pytest

from tests.experiments.test_real_broker_stored import prov, row, write
from trackerlab.reporting.runner import run_report


def _render(tmp_path, folder):
    out = tmp_path / "reports"
    result = run_report("smoke", ["real_broker"], out, overrides=[f"results_dir={folder}"],
                        log=lambda msg: None)  # fmt: skip
    assert not result.failures, result.failures
    meta = json.loads((out / "real_broker.json").read_text())
    return meta, (out / "real_broker.html").read_text()


@pytest.mark.slow
def test_renders_stored_results_and_names_the_damaged_file(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    # (plan - measured) / measured by hand: 960 vs 1000 = -4%, 1100 vs 1000 = +10% (outside),
    # 500 vs 1000 = -50% (broker behind: not compared)
    write(folder / "delayed-w1-4.2.4.parquet", [
        row("w1", "4.2.4", "sub-0", 1000.0, 960, -0.04, "within", metric_index_bytes=500.0),
        row("w1", "4.2.4", "sub-1", 1000.0, 1100, 0.10, "outside", metric_index_bytes=500.0),
    ], prov("delayed", "w1", "4.2.4"))  # fmt: skip
    write(folder / "delayed-w1-4.2.4-samples.parquet", [
        {"t_s": t, "subscription": s, "deep_bytes": 100.0 * t, "metric_index_bytes": 40.0 * t,
         "broker_heap_used_bytes": (100 + t) * 2**20}
        for t in (5.0, 10.0, 15.0) for s in ("sub-0", "sub-1")
    ], prov("delayed", "w1", "4.2.4"))  # fmt: skip
    write(folder / "nack-w2-4.0.8.parquet", [row("w2", "4.0.8", "sub-0", 1000.0, 500, -0.5,
          "broker behind")], prov("nack", "w2", "4.0.8"))  # fmt: skip
    (folder / "pending-acks-w3-4.2.4.parquet").write_bytes(b"damaged")
    meta, html = _render(tmp_path, folder)
    assert meta["answer"] == (
        "Against Pulsar 4.0.8's and 4.2.4's brokers the planner is within 5% on 1 of 3 rows; "
        "worst: +10% (delayed w1 on 4.2.4: plan 1.1 KiB against 1,000 B measured); "
        "1 not compared (broker behind)."
    )
    assert meta["headlines"][0]["label"] == "worst error of the plan against the broker"
    assert meta["headlines"][0]["value"] == "+10%"
    assert meta["figures_checked"] >= 2 and meta["figure_defects"] == []
    assert "pending-acks-w3-4.2.4.parquet: not a readable Parquet file" in html
    assert "Machine <code>box</code>: 2 CPUs" in html or "Machine `box`: 2 CPUs" in html
    assert "error (%)" in html and "measured (B)" in html


@pytest.mark.slow
def test_renders_a_clear_answer_without_results(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    meta, html = _render(tmp_path, folder)
    assert meta["answer"].startswith("No stored real-broker results in ")
    assert meta["answer"].endswith("run `trackerlab broker run all`.")
    assert meta["headlines"] == [
        {"label": "stored real-broker results", "value": "none",
         "note": "run `trackerlab broker run all`"}
    ]  # fmt: skip
    assert "No stored results in" in html
