"""Reproductions N01–N03, N11–N13, N44, N45 from the models, and the heap benchmark."""

from __future__ import annotations

import itertools

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.bench.heaps_bench import bench_heaps, format_rows
from trackerlab.core.errors import UsageError
from trackerlab.experiments.reproduce.number_registry import (
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
        "N12": SEED_WRONG,  # a payload called memory: the v2 queue holds 208 MiB
        "N13": REPRODUCED,
        "N44": BY_CONSTRUCTION,
        "N45": SEED_WRONG,  # a payload called memory: #15500's v1 ByteBuf holds 295.9 MiB
    }
    assert all(r.explanation and r.why for r in results.values())
    # the reasons quote the gap: 198 / 208 - 1 and 228 / 295.90 - 1, computed here by hand
    assert f"{198 / 208 - 1:+.1%}" == "-4.8%" and "-4.8%" in results["N12"].why
    assert f"{228 / (12_928_249 * 24 / MIB) - 1:+.1%}" == "-22.9%"
    assert "-22.9%" in results["N45"].why


def test_pair_map_values(results):
    """Identities for N01/N02: 32 B per bucket over the fill (0.66f) and shrink (0.15f)
    thresholds, with Java's float truncation done by hand: (int)(65536 * 0.66f) = 43,253,
    (int)(16384 * 0.15f) = 2,457."""
    assert results["N01"].jvm_model == pytest.approx(32 * 65536 / 43253, abs=0.01)
    assert results["N02"].jvm_model == pytest.approx(32 * 16384 / 2457, abs=0.1)
    assert results["N03"].jvm_model * MIB == 64 * MIB + 16 + 80 + 16 * (96 + 16)
    assert results["N03"].theory_published == pytest.approx(32e6 / MIB)


def test_triple_payload_is_three_longs(results):
    """Identity for N11/N44: one (deliverAt, ledgerId, entryId) triple is 3 Java longs."""
    assert results["N11"].theory_published == results["N44"].theory_published == 3 * 8
    assert float(results["N11"].published) == float(results["N44"].published) == 3 * 8


def test_segment_counts_by_hand(results):
    """v2 (#16490): 3 longs per entry in 2,097,152-long (16 MiB) segments.
    8,640,000 entries: ceil(25,920,000 / 2,097,152) = 13 segments = 208 MiB (N12);
    10,000,000 entries: ceil(30,000,000 / 2,097,152) = 15 segments = 240 MiB, the figure the
    blog measured with bytesCapacity() (N13)."""
    assert results["N13"].jvm_model == 15 * 16 == 240.0
    assert results["N12"].theory_corrected == 13 * 16 == 208.0
    assert results["N12"].theory_published == pytest.approx(8_640_000 * 24 / MIB)
    assert results["N45"].theory_published == pytest.approx(10_000_000 * 24 / MIB)
    # N11 and N44 (10M entries) per entry: the 15 segments by hand, plus a few heap objects
    for pid in ("N11", "N44"):
        assert results[pid].theory_corrected == pytest.approx(15 * 16 * MIB / 10_000_000)
        assert 0 < results[pid].jvm_model * 10_000_000 - 15 * 16 * MIB < 4096


def test_v1_queue_by_hand(results):
    """N45 against the queue #15500's broker ran (v1, before #16490): one ByteBuf of 24-B
    tuples from 16, doubled up to 256 then grown by half (TripleLongPriorityQueue
    increaseCapacity at v2.10.0): 16, 32, ..., 512, 768, 1152, ..., 8,618,833, 12,928,249
    tuples (the first >= 10,000,000; the chain written out by hand below)."""
    chain = [16, 32, 64, 128, 256, 512, 768, 1152, 1728, 2592, 3888, 5832, 8748, 13122]
    chain += [19683, 29524, 44286, 66429, 99643, 149464, 224196, 336294, 504441, 756661]
    chain += [1134991, 1702486, 2553729, 3830593, 5745889, 8618833, 12928249]
    assert all(b == a + (a if a <= 256 else a // 2) for a, b in itertools.pairwise(chain))
    assert chain[-2] < 10_000_000 <= chain[-1]
    n45 = results["N45"]
    assert n45.theory_corrected == pytest.approx(12_928_249 * 24 / MIB)  # 295.90 MiB
    # + the queue object (24 B) and its ByteBuf object (88 B) on the heap
    assert n45.jvm_model * MIB == pytest.approx(12_928_249 * 24 + 24 + 88, abs=1e-3)
    assert n45.values["v2_mib"] == 240.0  # what #16490's queue would hold instead


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
