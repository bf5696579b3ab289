"""The JVM layout model against real Java objects (OpenJDK 17 via pyspark's launcher, the
RoaringBitmap 1.6.10 jar pyspark ships, Debian's fastutil jar): every case of
``trackerlab jvm-check`` within 2%, plus what SizeEstimator gets wrong.

One probe JVM per test process and layout (module-scoped fixtures); its start takes 2-3 s, the
cases about one second."""

from __future__ import annotations

import array

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, BitMap64

from tests.conftest import jvm_probe, require_fastutil
from trackerlab.jvmcheck.probe import fastutil_jar
from trackerlab.jvmcheck.probe_cases import CASES, TOLERANCE, run_case
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import UNCOMPRESSED, UNCOMPRESSED_OOPS

pytestmark = pytest.mark.spark

BY_NAME = {c.name: c for c in CASES}


@pytest.fixture(scope="module")
def probe_uncompressed():
    return jvm_probe(True)


def _case(name: str, probe):
    case = BY_NAME[name]
    if case.needs_fastutil:
        require_fastutil(probe)
    return case


def test_required_cases_exist():
    required = [
        "treemap-of-treemaps-1", "treemap-of-treemaps-100", "treemap-of-treemaps-1000",
        "roaring-array-1000", "roaring-bitmap", "roaring-run", "roaring-keys-1000",
        "roaring64-array-1000", "roaring64-bitmap", "roaring64-run-1000", "roaring64-1",
        "roaring64-keys-2", "roaring64-keys-100", "roaring64-keys-1000",
        "fastutil-l2o-avltree-1000", "fastutil-l2o-rbtree-1000", "fastutil-l2o-openhash-1000",
        "fastutil-l2l-openhash-1000", "fastutil-l2l-avltree-1000", "fastutil-l2l-rbtree-1000",
    ]  # fmt: skip
    assert set(required) <= set(BY_NAME)


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_model_within_two_percent(probe, name):
    result = run_case(probe, _case(name, probe))
    assert result.ok, f"{name}: model {result.model} vs measured {result.measured}"
    assert abs(result.diff) <= TOLERANCE


def _byte_exact_misses(probe, cases) -> dict[str, tuple[int, int]]:
    off = {}
    for case in cases:
        result = run_case(probe, case)
        if result.measured != result.model:
            off[case.name] = (result.model, result.measured)
    return off


def test_model_is_byte_exact_on_this_jdk(probe):
    """Stronger than the 2% band: the field-level model reproduces every byte (every case
    that needs no jar beyond the JDK and pyspark's RoaringBitmap)."""
    cases = [c for c in CASES if not c.needs_fastutil]
    assert len(cases) > 50
    assert _byte_exact_misses(probe, cases) == {}


def test_fastutil_models_are_byte_exact_on_this_jdk(probe):
    """The fastutil cases, checked when Debian's jar is there and skipped by name when not
    (never passed unchecked)."""
    require_fastutil(probe)
    cases = [c for c in CASES if c.needs_fastutil]
    assert cases
    assert _byte_exact_misses(probe, cases) == {}


def test_n17_blog_structure_is_measured_as_recorded(probe):
    """N17: the TimeBucket blog's exact structure (1e7 addLong, x=8, y=15) in a real JVM; the
    figure the reproduction quotes is this measurement, and the layout model agrees. The
    fixture asks for compressed oops, the layout the figure was recorded with."""
    from trackerlab.experiments.reproduce.time_buckets import N17_REAL_JVM_BYTES

    case = _case("timebuckets-blog-x8-y15", probe)
    assert probe.layout.compressed_oops
    assert probe.exact(case.build(probe)) == N17_REAL_JVM_BYTES == case.model(probe.layout)


def test_fastutil_jar_presence_is_reported(probe):
    assert probe.fastutil == (fastutil_jar() is not None)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.integers(0, (1 << 48) - 1) | st.integers(0, 600) | st.integers(1 << 40, (1 << 40) + 600),
        min_size=1,
        max_size=150,
    )
)
def test_art_replay_matches_real_roaring64(probe, keys):
    """Random high keys in random insertion order, one value each: the ART replay (node growth,
    prefix splits, shared vs own prefix arrays) is exact."""
    values = np.array(keys, dtype=np.uint64) << np.uint64(16)
    java = probe.builders.roaring64(probe.longs(values.view(np.int64)), False, False)
    order = list(dict.fromkeys(keys))
    chunks = [jr.Chunk(k, 1, 1) for k in order]
    assert probe.exact(java) == jr.roaring64_bitmap_bytes(chunks, layout=probe.layout)


@pytest.mark.parametrize("run_optimize", [False, True])
def test_pyroaring_convenience_matches_java_built_from_the_same_values(probe, run_optimize):
    """A pyroaring bitmap with array, bitmap and run-friendly chunks; Java adds the same values
    in ascending order (32-bit, 64-bit and NavigableMap)."""
    rng = np.random.default_rng(3)
    values = np.unique(
        np.r_[
            rng.integers(0, 1 << 20, 3000),  # sparse: arrays
            (5 << 16) + rng.integers(0, 1 << 16, 9000),  # dense: a bitmap
            (9 << 16) + np.arange(20000),  # consecutive: run after runOptimize
            (1 << 40) + np.arange(0, 5000, 2),  # a far 64-bit key: array, no runs
        ]
    ).astype(np.uint64)
    small = values[values < (1 << 32)].astype(np.uint32)
    bm = BitMap(array.array("I", small.tobytes()))
    bm64 = BitMap64(array.array("Q", values.tobytes()))
    b, lay = probe.builders, probe.layout
    java32 = b.roaring(probe.longs(small.astype(np.int64)), run_optimize, False)
    assert probe.exact(java32) == jr.roaring_bitmap_bytes_of(
        bm, run_optimize=run_optimize, layout=lay
    )
    java_values = probe.longs(values.view(np.int64))
    java64 = b.roaring64(java_values, run_optimize, False)
    assert probe.exact(java64) == jr.roaring64_bitmap_bytes_of(
        bm64, run_optimize=run_optimize, layout=lay
    )
    nav = b.navigable(java_values, run_optimize, True)
    assert probe.exact(nav) == jr.roaring64_navigable_map_bytes_of(
        bm64, run_optimize=run_optimize, cardinalities_cached=True, layout=lay
    )


# --------------------------------------------------------------------------- SizeEstimator


@pytest.mark.parametrize(
    "name", ["treemap-of-treemaps-1000", "roaring-run", "roaring64-keys-100", "navmap-keys-100"]
)
def test_estimator_equals_exact_without_large_object_arrays(probe, name):
    built = BY_NAME[name].build(probe)
    assert probe.estimate(built) == probe.exact(built)


def test_estimator_samples_object_arrays_over_400(probe):
    """Roaring64Bitmap with 1000 keys: Container[1066] holds 66 nulls; SizeEstimator samples
    100 slots twice and scales, so its estimate is off (85,232 vs 89,024 on OpenJDK 17)."""
    built = BY_NAME["roaring64-keys-1000"].build(probe)
    assert probe.exact(built) == 89_024
    assert probe.estimate(built) != 89_024


def test_estimator_misses_cross_class_field_packing(probe):
    """fastutil Long2LongAVLTreeMap.Entry: BasicEntry{long key, long value} + left, right, info.
    JDK 15+ puts a 4-byte field in the gap after the 12-byte header: 40 B. SizeEstimator lays
    out each class separately (BasicEntry 32, then 44 -> 48): 8 B too much per entry."""
    case = _case("fastutil-l2l-avltree-1000", probe)
    built = case.build(probe)
    assert probe.exact(built) == case.model(probe.layout) == 40_128
    assert probe.estimate(built) - probe.exact(built) == 8 + 1000 * 8


# --------------------------------------------------------------------------- uncompressed oops


@pytest.mark.slow
def test_uncompressed_oops_model_and_estimator(probe_uncompressed):
    """-XX:-UseCompressedOops: references 8 B, but JDK 15+ keeps compressed class pointers, so
    the header stays 12 B (UNCOMPRESSED_OOPS). SizeEstimator assumes a 16 B header then: its
    numbers are those of the UNCOMPRESSED layout (header 16 B), not of this JVM."""
    p = probe_uncompressed
    assert p.layout == UNCOMPRESSED_OOPS
    failures = []
    for case in CASES:
        if case.needs_fastutil and not p.fastutil:
            continue  # the fastutil cases: test_fastutil_models_are_byte_exact_on_this_jdk
        result = run_case(p, case)
        if not result.ok:
            failures.append((case.name, result.model, result.measured))
    assert failures == []
    case = BY_NAME["treemap-of-treemaps-1000"]
    built = case.build(p)
    assert p.exact(built) == case.model(UNCOMPRESSED_OOPS) == 104_240
    assert p.estimate(built) == case.model(UNCOMPRESSED) == 112_248


# --------------------------------------------------------------------------- CLI


def test_cli_output_in_process(probe, capsys):
    """``trackerlab jvm-check`` in this process reuses the probe JVM of the fixture."""
    from trackerlab.commands.cli import main

    code = main(["jvm-check", "--only", "roaring64-keys-*", "treemap-of-treemaps-1000"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0].startswith("jvm-check: exact deep size (Instrumentation agent); Java ")
    rows = [x.split() for x in lines]
    assert ["roaring64-keys-1000", "89,024", "89,024", "+0.00", "OK", "library"] in rows
    assert "stand-ins for Pulsar structures no release has" in lines[1]
    assert lines[-1].startswith("12 cases: 12 OK, 0 FAIL, 0 skipped")
    code = main(["jvm-check", "--estimator", "--only", "roaring64-keys-1000", "roaring64-1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "2 cases: 1 OK, 1 FAIL, 0 skipped" in out
