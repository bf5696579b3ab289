"""The seeds' formulas reproduce the seeds' own arithmetic; the bounds match anchors.md §2."""

import math

import pytest

from trackerlab.sizing import theory as t


def test_pip393_open_addressing_range():
    best, worst = t.pip393_open_addressing_bytes_per_entry()
    assert round(best) == 48 and round(worst) == 213  # N01, N02


@pytest.mark.parametrize(
    ("m", "expected"),
    [
        (1024, 4.0),
        (4096, 4.0),
        (4097, 8192 / 4097),
        (8192, 1.0),
        (50_000, 8192 / 50_000),
        (51_200, 0.16384),
        (512_000, 0.16384),
    ],
)
def test_pip393_three_regimes(m, expected):
    assert t.pip393_bytes_per_entry(m) == pytest.approx(expected)


def test_pip393_x_y_swap_as_printed():
    assert t.pip393_messages_per_bucket(1, 10) == 1024  # the PIP's own example
    assert t.pip393_messages_per_bucket_as_printed(1, 10) == 20  # "M=2**x*y"
    assert t.pip393_messages_per_bucket(50, 10) == 51_200


def test_pip393_predicted_total_n07():
    # x=1, y=10, 1e6 entries: "4*1000000/1024/1024 = 3.81MB"
    m = t.pip393_messages_per_bucket(1, 10)
    assert t.pip393_bytes_per_entry(m) * 1_000_000 / 2**20 == pytest.approx(3.81, abs=0.005)


def test_pip393_bucket_formula():
    assert t.pip393_ledgers_per_bucket(51_200) == 2
    assert t.pip393_bucket_bytes(51_200, 8192) == 8 + 16 + 2 * 8192


@pytest.mark.parametrize(
    ("rate", "bits", "mib"),
    [(1, 10, 19.1), (4, 10, 19.1), (8, 10, 9.53), (8, 15, 1.55)],  # blog §3.3 theory column
)
def test_timebucket_theory_totals_for_1e7_messages(rate, bits, mib):
    m = t.pip393_messages_per_bucket(rate, bits)
    assert t.timebucket_bytes_per_entry(m) * 10_000_000 / 2**20 == pytest.approx(mib, abs=0.03)


def test_timebucket_tes_and_bounds():
    assert t.timebucket_total_entry_size(1024) == 16 + 2048
    assert t.timebucket_total_entry_size(100_000) == 8 + 16 + 2 * 8192
    assert t.triple_bytes_per_entry() == 24
    assert t.one_bit_lower_bound_bytes_per_entry() == 0.125


def test_corrected_payload_rules():
    assert t.corrected_array_bytes_per_entry() == 2
    assert t.container_payload_bytes(4096) == 8192  # array and bitset meet at 4096
    assert t.container_payload_bytes(4097) == 8192
    assert t.container_payload_bytes(100, runs=1) == 4  # run only when smaller
    assert t.container_payload_bytes(2, runs=1) == 4  # [1, 2]: array of 4 B is not beaten
    assert t.consecutive_payload_bytes(50_000) == 8192
    assert t.consecutive_payload_bytes(50_000, run_optimize=True) == 4
    assert t.consecutive_payload_bytes(70_000, run_optimize=True) == 8


@pytest.mark.parametrize(
    ("u", "n", "bits_per_value"),
    [
        (50_000, 100, 10.36),
        (50_000, 1_000, 7.07),
        (50_000, 4_096, 4.99),
        (50_000, 10_000, 3.61),
        (50_000, 25_000, 2.00),
        (65_536, 4_096, 5.39),
        (65_536, 25_000, 2.51),
    ],
)
def test_entropy_bound_matches_anchors_table(u, n, bits_per_value):
    assert t.entropy_bits(u, n) / n == pytest.approx(bits_per_value, abs=0.006)


def test_entropy_edges_and_interval():
    assert t.entropy_bits(10, 0) == 0 and t.entropy_bits(10, 10) == 0
    assert t.entropy_bits(4, 2) == pytest.approx(math.log2(6))
    assert t.interval_bits(50_000) == pytest.approx(31, abs=1)
    with pytest.raises(ValueError):
        t.entropy_bits(5, 6)
