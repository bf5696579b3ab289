"""The time-bucket reproductions land where the seeds' measurements are (N04–N10, N14–N19)."""

import re

import pytest

from trackerlab.experiments.reproduce.number_registry import (
    DEVIATES,
    REPRODUCED,
    SEED_WRONG,
    reproduce,
)
from trackerlab.experiments.reproduce.time_buckets import N17_REAL_JVM_BYTES

IDS = ["N04", "N05", "N06", "N07", "N08", "N09", "N10", "N14", "N15", "N16", "N17", "N18", "N19"]


@pytest.fixture(scope="module")
def results():
    return {r.id: r for r in reproduce(IDS)}


@pytest.mark.slow
def test_categories(results):
    by = {}
    for i, r in results.items():
        by.setdefault(r.verdict, []).append(i)
    assert by == {
        REPRODUCED: ["N08", "N09", "N10", "N14", "N15", "N16"],
        # payload formulas called bytes per entry (N04, N05, N06, N18), a total predicted from
        # one (N07) and a bound that is none (N19): the seed's own arithmetic against real-JVM
        # layouts; N04 (x1.09) and N18 (x1.29) under the same rule
        SEED_WRONG: ["N04", "N05", "N06", "N07", "N18", "N19"],
        # a measurement (jmap) only our model contradicts, with no measured cause
        DEVIATES: ["N17"],
    }
    for r in results.values():
        assert r.why and (r.verdict == REPRODUCED or r.explanation)
        if r.verdict == REPRODUCED:
            assert abs(r.ratio - 1) <= 0.03


@pytest.mark.slow
def test_n05_over_its_whole_range(results):
    """8192/M across 4096 < M < 50000 (M = 5120, 8192, 16384, 32768, 49152): the structure
    holds 1.13x to 2.05x the formula; the old check looked at M = 8192 only (1.19).

    regression pin: the ratios are the layout model's output (its parts are byte-exact
    against a real JVM in tests/jvmcheck); only their order and the band are derived."""
    ratios = results["N05"].range_ratios
    expected = [1.127, 1.190, 1.355, 1.695, 2.049]
    assert list(ratios) == pytest.approx(expected, abs=0.002)


@pytest.mark.slow
def test_n17_is_the_real_jvm_figure(results):
    """The blog's structure measured in a real JVM (jvm-check, OpenJDK 17: 2,001,128 B, typed
    here from that run) equals the layout model, and the reason's gap is the published
    2.25 MiB against that real figure: 2.25 * 2^20 / 2,001,128 = 1.1789, +18%."""
    assert N17_REAL_JVM_BYTES == 2_001_128
    assert results["N17"].jvm_model * 2**20 == 2_001_128
    gap = re.search(r"jmap figure is \+(\d+)%", results["N17"].why)
    assert gap and int(gap.group(1)) == round((2.25 * 2**20 / 2_001_128 - 1) * 100) == 18


@pytest.mark.slow
def test_payload_formulas_under_one_rule(results):
    """N04 and N18 are both payload-only formulas (8192/50000 and 2 B per array value) that
    the seeds call bytes per entry: both are outside the 3% band, both seed wrong; the
    gaps, by hand from the jvm_model values pinned below: 0.163 / 0.178 - 1 = -8.4%,
    2 / 2.59 - 1 = -23%."""
    n04, n18 = results["N04"], results["N18"]
    assert n04.theory_published == pytest.approx(8192 / 50_000, abs=1e-9)
    assert n18.theory_published == 2.0
    assert n04.ratio == pytest.approx(0.178 / 0.163, rel=0.01)
    assert n18.ratio == pytest.approx(2.59 / 2, rel=0.01)
    assert n04.verdict == n18.verdict == SEED_WRONG
    assert "jvm-check:" in n04.evidence and "jvm-check:" in n18.evidence


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pid", "jvm", "rel"),
    [
        ("N08", 3.29, 0.01),  # MiB, PIP-393 measured 3.35
        ("N09", 0.331, 0.01),  # B/entry, measured 0.34
        ("N10", 0.178, 0.01),  # B/entry, measured 0.18
        ("N14", 24.70, 0.01),  # MiB, jmap 25
        ("N15", 20.35, 0.01),  # MiB, jmap 20.48
        ("N16", 10.99, 0.01),  # MiB, jmap 11
        ("N17", 1.908, 0.01),  # MiB, jmap 2.25
        ("N18", 2.59, 0.01),  # B/entry at M = 1024, blog theory 2
        ("N04", 0.178, 0.01),  # B/entry at M = 512,000, PIP theory 0.163
    ],
)
def test_jvm_model_values(results, pid, jvm, rel):
    """Against the seeds' own measurements (N08-N10: PIP-393's heap walk; N14-N16: the blog's
    jmap), each within 2% of the value pinned here. N17, N18 and N04 are regression pins:
    the layout model's output, byte-exact against a real JVM for N17 (see above)."""
    assert results[pid].jvm_model == pytest.approx(jvm, rel=rel)


@pytest.mark.slow
def test_theory_columns(results):
    assert results["N07"].theory_published == pytest.approx(3.81, abs=0.01)  # 4 B x 1e6 / 2^20
    assert results["N06"].theory_published == 4.0 and results["N18"].theory_published == 2.0
    assert results["N05"].published_value == 1.0  # 8192/M at M = 8192
    assert results["N19"].jvm_model < 0.125 / 10  # runs beat the "1 bit" bound
    # regression pin: the Python-real bytes (pympler) of the N14 structure
    assert results["N14"].python_real == pytest.approx(26.0, rel=0.05)
