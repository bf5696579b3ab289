"""N46–N57 under the modelled harness: the table parse, the fit and its scores, verdicts."""

from __future__ import annotations

import pytest

from trackerlab.experiments.reproduce.receiver_queue import (
    CANDIDATES_US,
    FIT_IDS,
    FITTED_TICK_LATENCY_US,
    HELD_OUT_IDS,
    IDS,
    fit_report,
    reproduction_table,
    table_rows,
)
from trackerlab.experiments.reproduce.registry import (
    BY_CONSTRUCTION,
    DEVIATES,
    REPRODUCED,
    SEED_WRONG,
    reproduce,
)


def test_table_rows_parse_rates_partitions_and_per_partition_sizes():
    rows = {r.id: r for r in table_rows()}
    assert [rows[i].rate for i in IDS[:6]] == [1, 5, 10, 100, 1000, 10000]
    assert [rows[i].rate for i in IDS[6:]] == [1, 10, 100, 1000, 10000, 20000]
    assert {rows[i].partitions for i in IDS[:6]} == {1}
    assert {rows[i].partitions for i in IDS[6:]} == {3}
    assert rows["N54"].per_partition == (4, 8, 4) and sum(rows["N54"].per_partition) == 16
    assert rows["N46"].per_partition is None


@pytest.fixture(scope="module")
def report():
    return fit_report()


@pytest.fixture(scope="module")
def results(report):
    return {r.id: r for r in reproduce(IDS)}


@pytest.mark.slow
def test_fit_scores_and_the_recorded_fitted_value(report):
    assert report.fitted_us == FITTED_TICK_LATENCY_US
    assert set(report.predictions) == set(CANDIDATES_US)
    assert report.fit_score == (5, 6)
    assert report.held_out_score == (4, 6)
    assert report.loo_score == (8, 12)
    assert "held-out N52-N57 4/6, leave-one-out 8/12" in report.describe()


@pytest.mark.slow
def test_categories_and_values(results):
    got = {i: (r.verdict, int(r.jvm_model)) for i, r in results.items()}
    assert got == {
        "N46": (SEED_WRONG, 2),
        "N47": (BY_CONSTRUCTION, 2),
        "N48": (BY_CONSTRUCTION, 2),
        "N49": (BY_CONSTRUCTION, 8),
        "N50": (BY_CONSTRUCTION, 64),
        "N51": (BY_CONSTRUCTION, 1000),
        "N52": (BY_CONSTRUCTION, 4),
        "N53": (DEVIATES, 6),
        "N54": (DEVIATES, 24),
        "N55": (REPRODUCED, 192),
        "N56": (REPRODUCED, 1536),
        "N57": (REPRODUCED, 3000),
    }


@pytest.mark.slow
def test_verdicts_are_no_more_generous_than_the_fit(report, results):
    for pid, rep in results.items():
        assert rep.tolerance == 0.0 and rep.why and rep.explanation
        if rep.verdict == REPRODUCED:
            assert pid in HELD_OUT_IDS and report.matches(pid)
            assert not report.matched_by_all(pid)
        if pid in FIT_IDS:
            assert rep.verdict != REPRODUCED
        if report.matched_by_all(pid) and pid != "N46":
            assert rep.verdict == BY_CONSTRUCTION
    assert "default_router.go" in results["N52"].why  # the sticky router, not the fit
    assert "consumer_test.go" in results["N46"].explanation
    assert "leave-one-out" in results["N50"].why


@pytest.mark.slow
def test_reproduction_table(report):
    table = reproduction_table(report)
    assert list(table["id"]) == list(IDS)
    assert set(table["role"]) == {"fit", "held-out"}
    n55 = table[table.id == "N55"].iloc[0]
    assert (n55.model_per_partition, n55.category) == ("64,64,64", "reproduced")


def test_fit_cache_round_trip(tmp_path, monkeypatch):
    """The content-keyed cache returns what a fresh simulation gives (cheap rows only)."""
    from trackerlab.experiments.reproduce import receiver_queue as rq

    monkeypatch.setenv("TRACKERLAB_CACHE", str(tmp_path))
    rows = [r for r in table_rows() if r.id in ("N46", "N52")]
    fresh = rq._predictions(rows, (0.0, 3000.0), cache=True)  # miss: simulated, written
    assert len(list((tmp_path / "receiver-queue").glob("fit-*.json"))) == 1
    again = rq._predictions(rows, (0.0, 3000.0), cache=True)  # hit
    assert again == fresh
    assert rq._predictions(rows, (0.0, 3000.0), cache=False) == fresh
    assert fresh[3000.0]["N52"].totals == (4, 4, 4)
