"""Reproductions N01–N03, N11–N13, N44, N45 from the models, and the heap benchmark."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.bench.heaps import bench_heaps, format_rows
from trackerlab.errors import UsageError
from trackerlab.experiments.reproduce.registry import (
    BY_CONSTRUCTION,
    REPRODUCED,
    SEED_WRONG,
    reproduce,
)

MIB = 2**20
IDS = ["N01", "N02", "N03", "N11", "N12", "N13", "N44", "N45"]


@pytest.fixture(scope="module")
def results():
    return {r.id: r for r in reproduce(IDS)}


def test_categories(results):
    assert {i: r.verdict for i, r in results.items()} == {
        "N01": BY_CONSTRUCTION,  # the fill points that define them
        "N02": BY_CONSTRUCTION,
        "N03": REPRODUCED,
        "N11": BY_CONSTRUCTION,  # 3 longs = 24 B
        "N12": SEED_WRONG,  # a payload called memory: the queue holds 208 MiB
        "N13": REPRODUCED,
        "N44": BY_CONSTRUCTION,
        "N45": SEED_WRONG,
    }
    assert all(r.explanation and r.why for r in results.values())
    assert "-4.8%" in results["N12"].why and "-5.0%" in results["N45"].why


def test_pair_map_values(results):
    assert results["N01"].jvm_model == pytest.approx(32 * 65536 / 43253, abs=0.01)
    assert results["N02"].jvm_model == pytest.approx(32 * 16384 / 2457, abs=0.1)
    assert results["N03"].jvm_model * MIB == 64 * MIB + 16 + 80 + 16 * (96 + 16)
    assert results["N03"].theory_published == pytest.approx(32e6 / MIB)


def test_heap_values(results):
    assert results["N13"].jvm_model == 240.0  # 15 segments of 16 MiB
    assert results["N12"].theory_corrected == 208.0  # 13 segments; payload 197.75
    assert results["N12"].theory_published == pytest.approx(197.75, abs=0.01)
    assert results["N45"].theory_published == pytest.approx(228.88, abs=0.01)
    assert results["N11"].theory_corrected == pytest.approx(251_658_240 / 1e7)
    assert results["N44"].jvm_model == results["N11"].jvm_model


def test_bench_small_run():
    rows = bench_heaps(messages=2000, loop_messages=200)
    assert [r.case for r in rows] == [
        "pair-map bulk (unique keys)",
        "pair-map bulk (repeat search)",
        "triple-heap bulk (in deliverAt order)",
        "triple-heap bulk (shuffled)",
    ]
    assert rows[0].jvm_bytes == rows[1].jvm_bytes == 16 + 24 + 96 + 16 + 32 * 4096
    assert rows[2].jvm_bytes == rows[3].jvm_bytes
    assert "ratio" in format_rows(rows)
    with pytest.raises(UsageError, match="--loop-messages"):
        bench_heaps(messages=10, loop_messages=0)


def test_bench_cli_errors(cli):
    assert_one_line_error(cli("bench"), "TARGET", "heaps")
    assert_one_line_error(cli("bench", "heaps", "--messages", "0"), "--messages", "1..")
