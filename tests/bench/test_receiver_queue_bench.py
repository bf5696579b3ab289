"""The stored legacy run of ``trackerlab bench receiver-queue`` (issue 30): read and well formed."""

import json
import re

import pytest

from trackerlab.bench.receiver_queue_bench import (
    STORED_CASE_KEYS,
    bench_cases,
    load_stored_legacy,
    stored_legacy_path,
)


def test_stored_legacy_run_is_well_formed():
    raw = json.loads(stored_legacy_path().read_text())
    assert re.fullmatch(r"[0-9a-f]{40}", raw["commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\dZ", raw["date_utc"])
    assert "shared" in raw["note"] and "bench receiver-queue" in raw["command"]
    assert (raw["rate_msg_per_s"], raw["duration_s"]) == (20000, 60)  # the command's defaults
    assert [c["case"] for c in raw["cases"]] == [name for name, _ in bench_cases()]
    for case in raw["cases"]:
        assert set(case) == set(STORED_CASE_KEYS)
        # the stored ratio agrees with the stored wall times, which are rounded to 0.01 s
        h, legacy = case["harness_wall_s"], case["legacy_wall_s"]
        lo, hi = (legacy - 0.005) / (h + 0.005), (legacy + 0.005) / (h - 0.005)
        assert lo - 0.05 <= case["ratio_legacy_over_harness"] <= hi + 0.05, case["case"]
    total_h = sum(c["harness_wall_s"] for c in raw["cases"])
    total_legacy = sum(c["legacy_wall_s"] for c in raw["cases"])
    assert raw["all_cases"]["harness_wall_s"] == pytest.approx(total_h, abs=0.03)
    assert raw["all_cases"]["legacy_wall_s"] == pytest.approx(total_legacy, abs=0.03)


def test_load_stored_legacy_reads_the_file_and_rejects_a_missing_field(tmp_path):
    stored = load_stored_legacy()
    raw = json.loads(stored_legacy_path().read_text())
    assert stored.commit == raw["commit"]
    assert stored.ratios == {c["case"]: c["ratio_legacy_over_harness"] for c in raw["cases"]}
    assert stored.legacy_failed == {"java auto x3"}  # legacy stalled there: "legacy FAIL lag"
    del raw["cases"][0]["legacy_wall_s"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="legacy_wall_s"):
        load_stored_legacy(bad)
