"""PendingAcksMap JVM sizes: the layout model against objects built in a real JVM.

The probe JVM (trackerlab.jvmcheck.probe, OpenJDK 17 here) measures the deep size the way
JOL's GraphLayout does. TreeMap-of-TreeMaps uses real ``Long.valueOf`` boxing, so the shared
``Long`` cache instances show; the #26024 buckets use field-exact stand-ins
(java/PendingAcksProbe.java) with the real java.util.BitSet; the packed layouts use the real
fastutil classes.
"""

import numpy as np
import pytest

from tests.conftest import require_fastutil
from trackerlab.models.pending_acks.layouts import Dataset, build

pytestmark = pytest.mark.spark


def _cross(ledgers: int, entries: int):
    led = np.repeat(np.arange(ledgers), entries)
    ent = np.tile(np.arange(entries), ledgers)
    return led, ent, np.ones(led.size, dtype=np.int64), ent


@pytest.mark.parametrize(("ledgers", "entries"), [(1, 100), (5, 10_000), (20, 2500), (100, 10)])
def test_treemap_with_shared_long_cache(probe, ledgers, entries):
    real = probe.exact(
        probe.builders.treeMapOfTreeMaps(probe.seq(0, ledgers), probe.seq(0, entries))
    )
    assert build("pending-acks-treemap", *_cross(ledgers, entries)).jvm_bytes() == real


@pytest.mark.parametrize("layout", ["pending-acks-open-hash", "pending-acks-open-hash-bitset"])
@pytest.mark.parametrize(("n", "ledgers"), [(100, 1), (1000, 1), (50_000, 5), (1000, 100)])
def test_open_hash_layouts(probe, layout, n, ledgers):
    led, ent, rem, hsh = Dataset(n, ledgers).arrays()
    java = probe.jvm.trackerlab.probe.PendingAcksProbe.openHash(
        probe.longs(led), probe.longs(ent), layout == "pending-acks-open-hash-bitset"
    )
    assert build(layout, led, ent, rem, hsh).jvm_bytes() == probe.exact(java)


def test_open_hash_index_disabled_keeps_its_words(probe):
    ent = np.array([*range(300), (1 << 20) + 1])
    led = np.zeros(ent.size, dtype=np.int64)
    java = probe.jvm.trackerlab.probe.PendingAcksProbe.openHash(
        probe.longs(led), probe.longs(ent), True
    )
    model = build("pending-acks-open-hash-bitset", led, ent, np.ones(ent.size, np.int64), ent)
    assert model.jvm_bytes() == probe.exact(java)


@pytest.mark.parametrize(
    ("layout", "inner"),
    [
        ("pending-acks-packed-rb", "Long2LongRBTreeMap"),
        ("pending-acks-packed-avl", "Long2LongAVLTreeMap"),
    ],
)
@pytest.mark.parametrize(("n", "ledgers"), [(100, 1), (10_000, 5), (1000, 100)])
def test_packed_layouts_with_real_fastutil(probe, layout, inner, n, ledgers):
    require_fastutil(probe)
    led, ent, rem, hsh = Dataset(n, ledgers).arrays()
    java = probe.jvm.trackerlab.probe.PendingAcksProbe.packedSorted(
        inner, probe.longs(led), probe.longs(ent)
    )
    assert build(layout, led, ent, rem, hsh).jvm_bytes() == probe.exact(java)


def test_empty_tree_map_grows_by_its_cached_entry_set_view(probe):
    """N43's 64 B: an emptied TreeMap is 48 B, 64 B once ``entrySet()`` cached its view."""
    tm = probe.jvm.java.util.TreeMap()
    assert probe.exact(tm) == 48
    tm.entrySet()
    assert probe.exact(tm) == 64
