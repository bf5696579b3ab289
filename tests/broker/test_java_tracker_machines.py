"""Pulsar's own delayed-delivery trackers, driven in a JVM (trackerlab.broker.trackercheck),
under the rules every tracker shares (tests/models/proposals/machine.py) against the naive
index: InMemoryDelayedDeliveryTracker of 4.2.4 (time buckets, #23611) and of 4.0.8 (the triple
heap: #23611 reverted in 4.0.6), PIP-195's BucketDelayedDeliveryTracker of 4.2.4, and the
project's own SortedChunksTracker when it is compiled in. One driver JVM per release for the
whole module; each hypothesis example makes a fresh tracker in it (``new``).

Each tracker's difference from the naive index is its DeliveryWindow (tests/reference/delayed.py,
with the source lines); nothing else is relaxed.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from tests.models.proposals.machine import SETTINGS, DelayedTrackerMachine
from tests.reference.delayed import DeliveryWindow
from trackerlab.broker import trackercheck
from trackerlab.jvmcheck.pulsar.maven import MavenUnavailable

#: PIP-195 options small enough that a few messages seal buckets into snapshots of several
#: segments, merge them (more than 2 buckets) and load segments back (Trackers.Options).
SMALL_BUCKETS = {
    "minIndexCountPerBucket": 3, "timeStepPerSegmentMs": 20, "maxIndexesPerSegment": 2,
    "maxNumBuckets": 2,
}  # fmt: skip

_DRIVERS: dict[str, trackercheck.TrackerDriver] = {}


@pytest.fixture(scope="module", autouse=True)
def drivers():
    """One driver JVM per release for the module, stopped by PID at its end; skips, naming
    what is missing (Java, ``mvn``, Maven Central)."""
    try:
        for version in ("4.2.4", "4.0.8"):
            _DRIVERS[version] = trackercheck.TrackerDriver(trackercheck.build(version))
    except MavenUnavailable as exc:
        pytest.skip(f"the tracker driver cannot be built: {exc}")
    yield _DRIVERS
    for driver in _DRIVERS.values():
        driver.close()
    _DRIVERS.clear()


class JavaMachine(DelayedTrackerMachine):
    """A Java tracker of ``kind`` at ``version`` with ``options`` (``Trackers.Options``)."""

    version = "4.2.4"
    kind = "in-memory"
    options: ClassVar[dict[str, int]] = {}

    def make(self, tick, strict, delay, lookahead):
        extra = {"lookahead": lookahead} if self.kind in ("in-memory", "sorted-chunks") else {}
        return _DRIVERS[self.version].new(self.kind, tick, strict, **extra, **self.options)


class TimeBuckets424(JavaMachine):
    """#23611's time buckets as 4.2.4 ships them."""

    checks_pause = True

    def window(self, tick, strict):
        return DeliveryWindow.rounded(tick, strict)


class TimeBuckets424Fixed(TimeBuckets424):
    fixed_delay = True


class Heap408(JavaMachine):
    """The triple heap of 4.0.8."""

    version = "4.0.8"
    checks_pause = True

    def window(self, tick, strict):
        return DeliveryWindow.exact(tick, strict)


class Heap408Fixed(Heap408):
    fixed_delay = True


class Pip195Memory(JavaMachine):
    """PIP-195 at the broker's defaults: 50,000 indexes before a bucket seals, so all in memory."""

    kind = "bucket"
    checks_contains = True
    checks_pause = True
    #: no fixed-delay detection: never pauses (BucketDelayedDeliveryTracker.java:743-744 at v4.2.4)
    detects_fixed_delay = False
    ledgers = (1, 6)

    def window(self, tick, strict):
        return DeliveryWindow.exact(tick, strict)


class Pip195Snapshots(Pip195Memory):
    """PIP-195 sealing, merging and loading bucket snapshots (:data:`SMALL_BUCKETS`)."""

    options = SMALL_BUCKETS


class SortedChunks(JavaMachine):
    """The project's own tracker (trackerlab.delayed.SortedChunksTracker): due when the last
    ms of the tick, ``(tickKey << bits) | (2^bits - 1)``, is within the cutoff, ``bits =
    floor(log2 tick)`` (SortedChunksTracker.java's class comment; DeliveryWindow.whole_tick),
    replays refused (the machine's ``checks_replay``), and InMemory 4.2.4's fixed-delay pause."""

    kind = "sorted-chunks"
    checks_contains = True
    checks_pause = True

    def window(self, tick, strict):
        return DeliveryWindow.whole_tick(tick, strict, max(tick, 1).bit_length() - 1)


TestTimeBuckets424 = TimeBuckets424.TestCase
TestTimeBuckets424Fixed = TimeBuckets424Fixed.TestCase
TestHeap408 = Heap408.TestCase
TestHeap408Fixed = Heap408Fixed.TestCase
TestPip195Memory = Pip195Memory.TestCase
TestPip195Snapshots = Pip195Snapshots.TestCase
TestSortedChunks = SortedChunks.TestCase
MACHINES = [
    TestTimeBuckets424, TestTimeBuckets424Fixed, TestHeap408, TestHeap408Fixed,
    TestPip195Memory, TestPip195Snapshots, TestSortedChunks,
]  # fmt: skip
for _case in MACHINES:
    _case.settings = SETTINGS
del _case


def test_sorted_chunks_present():
    """The build compiled the project's own tracker in (``broker/tracker/``)."""
    assert trackercheck.build("4.2.4").has_sorted_chunks(), "broker/tracker/ was not compiled in"
    assert _DRIVERS["4.2.4"].request("sorted-chunks") == "true"


def test_driver_answers_hand_computed():
    """The driver against a hand computation (tick 4 ms, precision 4 ms, not strict): at
    now=10000 the cutoff is 10004; 10003 is refused, 10005 and 10010 are tracked in buckets
    10004 and 10008; at now=10002 the bucket cutoff is 10006 - 4 + 1 = 10003 < 10004: nothing
    available; at now=10004 (bucket cutoff 10005) bucket 10004 goes out: (1, 2) only."""
    t = _DRIVERS["4.2.4"].new("in-memory", 4, False)
    assert [t.add_message(1, e, at, 10_000) for e, at in ((1, 10_010), (2, 10_005), (3, 10_003))] == [
        True, True, False
    ]  # fmt: skip
    assert t.number_of_delayed_messages() == 2
    assert not t.has_message_available(10_002)
    assert t.get_scheduled_messages(10, 10_004) == [(1, 2)]
    assert t.get_scheduled_messages(10, 10_010) == [(1, 1)]
    assert t.number_of_delayed_messages() == 0


@pytest.mark.parametrize("strict", [False, True])
def test_sorted_chunks_refuses_a_replay_of_what_it_handed_out(strict):
    """The replay loop through the driver (as tests/models/proposals/test_sorted_chunks.py):
    tick 1000 ms (bits 9), deliverAt 5200 in tick 10 = [5120, 5631] ms. Under the old rule
    (due at ``10 << 9 = 5120 <= cutoff``) it went out at cutoff 5120 and its replay at the
    same now was accepted (5200 > 5120). Now it goes out first when the cutoff reaches 5631
    (now 4631, or 5631 strict), and a replay at that now is refused; one ms before, nothing."""
    if _DRIVERS["4.2.4"].request("sorted-chunks") != "true":
        pytest.fail("broker/tracker/ was not compiled in")
    t = _DRIVERS["4.2.4"].new("sorted-chunks", 1000, strict)
    due_now = 5631 if strict else 4631
    assert t.add_message(1, 1, 5200, 0)
    assert not t.has_message_available(due_now - 1)
    assert t.get_scheduled_messages(10, due_now - 1) == []
    assert t.get_scheduled_messages(10, due_now) == [(1, 1)]
    assert not t.add_message(1, 1, 5200, due_now), "handed out, then accepted again"
    assert t.number_of_delayed_messages() == 0 and not t.contains_message(1, 1)


def test_driver_refuses_bad_requests():
    driver = _DRIVERS["4.2.4"]
    with pytest.raises(trackercheck.DriverFailed, match="kind must be"):
        driver.new("heap", 4, False)
    with pytest.raises(trackercheck.DriverFailed, match="unknown request"):
        driver.request("bogus")
    t = driver.new("in-memory", 4, False)
    with pytest.raises(trackercheck.DriverFailed, match="has no containsMessage"):
        t.contains_message(1, 1)
