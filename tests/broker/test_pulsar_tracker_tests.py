"""Pulsar's own TestNG tracker tests from ``pulsar-broker-4.2.4-tests.jar`` (Central serves it),
run against the real classes, and their tracker-agnostic part (AbstractDeliveryTrackerTest)
against the project's SortedChunksTracker through our data provider
(trackercheck/src/pulsartests/java). Times on this 2-core shared machine: InMemory 17 tests
~12 s, Bucket 33 tests ~75 s, the adapter 7 tests ~8 s (plus ~25 s for the first build)."""

from __future__ import annotations

import pytest

from trackerlab.broker import trackercheck
from trackerlab.jvmcheck.pulsar.maven import MavenUnavailable

VERSION = "4.2.4"


@pytest.fixture(scope="module")
def tests_build() -> trackercheck.TrackerBuild:
    try:
        return trackercheck.build(VERSION, tests=True)
    except MavenUnavailable as exc:
        pytest.skip(f"Pulsar's test-jar cannot be resolved: {exc}")


def _run(classes, **kw) -> trackercheck.PulsarTestRun:
    return trackercheck.pulsar_tests(VERSION, classes, **kw)


@pytest.mark.slow
def test_in_memory_tracker_passes_pulsars_tests(tests_build):
    run = _run(trackercheck.PULSAR_TESTS[:1])
    assert run.failures == () and run.failed == 0
    assert run.total == run.passed == 17  # InMemoryDeliveryTrackerTest at v4.2.4, counted by TestNG


#: Pulsar's own trim tests, which wait on the tracker's executor with fixed timeouts: on a
#: loaded 2-core machine testTrimHandlesDeleteFailure failed in 2 of 4 runs here on 2026-11-28,
#: once with an ...OrphanedBuckets trim test beside it; each passed at once when run again.
#: Only these may fail once; the class then runs again and must pass whole.
_BUCKET_TEST = "org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTrackerTest."
TIMING_SENSITIVE = frozenset(
    _BUCKET_TEST + name
    for name in (
        "testTrimHandlesDeleteFailure",
        "testTrimRemovesOrphanedBuckets",
        "testTrimWithNoOrphanedBuckets",
    )
)


@pytest.mark.slow
def test_bucket_tracker_passes_pulsars_tests(tests_build):
    run = _run(trackercheck.PULSAR_TESTS[1:])
    if run.failures and set(run.failures) <= TIMING_SENSITIVE:
        run = _run(trackercheck.PULSAR_TESTS[1:])  # once, for Pulsar's timing-sensitive tests
    assert run.failures == () and run.failed == 0
    assert run.total == run.passed == 33  # BucketDelayedDeliveryTrackerTest at v4.2.4


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["in-memory", "bucket"])
def test_adapter_runs_pulsars_agnostic_tests_on_pulsars_classes(tests_build, kind):
    """Our data provider, given Pulsar's own trackers, passes all 7 tracker-agnostic tests:
    the adapter itself is right, so a failure on SortedChunksTracker is the tracker's."""
    run = _run(trackercheck.SORTED_CHUNKS_TESTS, adapter_kind=kind)
    assert run.failures == () and run.total == run.passed == 7


@pytest.mark.slow
def test_sorted_chunks_passes_pulsars_agnostic_tests(tests_build):
    if not tests_build.has_sorted_chunks():
        pytest.skip("trackerlab.delayed.SortedChunksTracker is not in broker/tracker/ yet")
    run = _run(trackercheck.SORTED_CHUNKS_TESTS)
    assert run.failures == () and run.total == run.passed == 7
