"""N46–N57: the table parse, the fitted harness, verdicts and explanations."""

from __future__ import annotations

from dataclasses import replace

import pytest

from trackerlab.experiments.reproduce.receiver_queue import (
    GO_HARNESS,
    IDS,
    JAVA_HARNESS,
    fit_harness,
    reproduction_table,
    table_rows,
)
from trackerlab.experiments.reproduce.registry import EXPLAINED, REPRODUCED, reproduce


def test_table_rows_parse_rates_partitions_and_per_partition_sizes():
    rows = {r.id: r for r in table_rows()}
    assert [rows[i].rate for i in IDS[:6]] == [1, 5, 10, 100, 1000, 10000]
    assert [rows[i].rate for i in IDS[6:]] == [1, 10, 100, 1000, 10000, 20000]
    assert {rows[i].partitions for i in IDS[:6]} == {1} and {
        rows[i].partitions for i in IDS[6:]
    } == {3}
    assert rows["N54"].per_partition == (4, 8, 4) and sum(rows["N54"].per_partition) == 16
    assert rows["N46"].per_partition is None


GO_VALUES = {
    "N46": 2, "N47": 2, "N48": 2, "N49": 8, "N50": 128, "N51": 1000,
    "N52": 6, "N53": 6, "N54": 6, "N55": 96, "N56": 1536, "N57": 3000,
}  # fmt: skip


def test_reproduction_verdicts_and_values():
    results = {r.id: r for r in reproduce(IDS)}
    assert {i: int(r.jvm_model) for i, r in results.items()} == GO_VALUES
    reproduced = {i for i, r in results.items() if r.verdict == REPRODUCED}
    assert reproduced == {"N47", "N48", "N49", "N51", "N56", "N57"}
    for i, r in results.items():
        assert r.tolerance == 0.0
        assert (r.verdict == EXPLAINED) == (i not in reproduced)
    assert "cannot come out of the Go rules" in results["N46"].explanation
    assert "round-robin" in results["N52"].explanation
    assert (
        "Java rules" in results["N50"].explanation and "= published" in results["N50"].explanation
    )
    assert "32,32,32 vs 64,64,64" in results["N55"].explanation


def test_reproduction_table_has_both_clients():
    table = reproduction_table()
    assert list(table["id"]) == list(IDS)
    assert table.loc[table.id == "N56", "go_per_partition"].item() == "512,512,512"
    assert table.loc[table.id == "N50", "java"].item() == 64


@pytest.mark.slow
def test_fitted_harnesses_beat_their_neighbours():
    """Each harness is the best of a grid around it (the full grid: ``fit_harness``)."""
    for client, h in (("go", GO_HARNESS), ("java", JAVA_HARNESS)):
        grid = (
            [h]
            + [replace(h, refill_latency_ms=h.refill_latency_ms + d) for d in (-7.5, 5.0)]
            + [replace(h, dispatch_ms=1.0), replace(h, app_wakeup_us=0.0)]
        )
        fits = fit_harness(client, grid)
        assert fits[0].harness == h, [(f.matches, f.log2_error) for f in fits]
        assert fits[0].matches > fits[-1].matches
