"""Python-real bytes against what glibc's allocator really holds (mallinfo2 deltas)."""

import array
import random
import tracemalloc

import pytest
from pyroaring import BitMap, BitMap64

from trackerlab.sizing import allocator
from trackerlab.sizing.python import (
    bitmap_bytes,
    croaring_bytes,
    exact_walk_available,
    plain_asizeof,
    python_real_bytes,
)

pytestmark = pytest.mark.skipif(not allocator.available(), reason="mallinfo2 needs glibc >= 2.33")


def _allocator_truth(make, copies):
    """C heap per bitmap, from one mallinfo2 delta over many constructions.

    A warm-up batch fills glibc's tcache first: chunks parked there count as in use, so
    without it the first measurement would include them.
    """
    warm = [make() for _ in range(min(copies, 50))]
    del warm
    holder = [None] * copies
    with allocator.HeapDelta() as delta:
        for i in range(copies):
            holder[i] = make()
    return delta.bytes / copies, holder


def _maker(cls, typecode, values):
    """A constructor of ``cls`` from a prebuilt sorted ``array.array`` (the bulk fast path)."""
    arr = array.array(typecode, values)
    return lambda: cls(arr)


RNG = random.Random(7)
SPARSE = array.array("I", sorted(set(RNG.sample(range(2**32), 100_000))))
CASES = {
    # name: (constructor, copies)
    "32-bit empty": (lambda: BitMap(), 2000),
    "32-bit 1 value (array)": (_maker(BitMap, "I", [5]), 2000),
    "32-bit 1000 values (array)": (_maker(BitMap, "I", range(0, 3000, 3)), 2000),
    "32-bit bitset": (_maker(BitMap, "I", range(0, 65536, 2)), 200),
    "32-bit run, range(1e6)": (lambda: BitMap(range(10**6)), 1000),
    "32-bit 51k sparse array containers": (lambda: BitMap(SPARSE), 3),
    "64-bit empty": (lambda: BitMap64(), 2000),
    "64-bit 1 high key, 1 value": (_maker(BitMap64, "Q", [5]), 2000),
    "64-bit 1000 values (array)": (_maker(BitMap64, "Q", range(0, 3000, 3)), 2000),
    "64-bit bitset": (_maker(BitMap64, "Q", range(0, 65536, 2)), 200),
    "64-bit run, range(1e6)": (lambda: BitMap64(range(10**6)), 1000),
    "64-bit 3 high keys": (
        _maker(BitMap64, "Q", [k << 16 for k in range(3)]),
        1000,
    ),
    "64-bit 100 high keys": (
        _maker(BitMap64, "Q", [k << 16 for k in range(100)]),
        200,
    ),
    "64-bit 1000 high keys": (
        _maker(BitMap64, "Q", [k << 16 for k in range(1000)]),
        20,
    ),
    "64-bit 10000 high keys": (
        _maker(BitMap64, "Q", [k << 16 for k in range(10_000)]),
        3,
    ),
    "64-bit 10000 ledgers (key << 32)": (
        _maker(BitMap64, "Q", [k << 32 for k in range(10_000)]),
        3,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_croaring_bytes_within_3_percent_of_allocator(name):
    make, copies = CASES[name]
    truth, holder = _allocator_truth(make, copies)
    model = sum(croaring_bytes(b) for b in holder) / copies
    assert model == pytest.approx(truth, rel=0.03), (name, model, truth)


@pytest.mark.parametrize(
    "name", ["64-bit 1000 values (array)", "64-bit 10000 high keys", "32-bit bitset"]
)
def test_portable_estimate_close_where_exact_walk_is_unavailable(name):
    make, copies = CASES[name]
    truth, holder = _allocator_truth(make, copies)
    estimate = sum(croaring_bytes(b, exact=False) for b in holder) / copies
    assert estimate == pytest.approx(truth, rel=0.03)


def test_exact_walk_is_used_here():
    assert exact_walk_available()  # glibc + pyroaring 1.2.0 (CRoaring v5.2.2) in CI


def test_incrementally_built_bitmap_is_measured_after_shrink():
    bm = BitMap64()
    for v in range(0, 30_000, 7):  # add() leaves array capacity slack
        bm.add(v)
    fresh = BitMap64(array.array("Q", range(0, 30_000, 7)))
    assert croaring_bytes(bm, exact=False) == croaring_bytes(fresh, exact=False)
    assert croaring_bytes(bm) == pytest.approx(croaring_bytes(fresh), rel=0.01)  # chunk reuse
    assert list(bm) == list(fresh)  # shrinking never changes content


def _traced(fn):
    """Bytes Python's allocators hand out while ``fn`` runs (tracemalloc), and its result."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = fn()
        return tracemalloc.get_traced_memory()[0] - before, result
    finally:
        tracemalloc.stop()


def _nested(n_ts, n_ledgers, values_per_bitmap):
    """dict[ts, dict[ledger, BitMap64]] and its allocator truth.

    Truth = C heap of the bitmaps (mallinfo2, measured with tracemalloc off: its own trace
    tables are malloc'd) + the Python objects (tracemalloc: the bitmaps' 40-B objects,
    rounded to pymalloc's 16-B size classes, and the dicts and ints).
    """
    arrays = [array.array("Q", range(values_per_bitmap)) for _ in range(n_ts * n_ledgers)]
    warm = [BitMap64(arr) for arr in arrays[:50]]  # fill glibc's tcache, see _allocator_truth
    del warm
    holder = [None] * len(arrays)
    with allocator.HeapDelta() as c_heap:
        for i, arr in enumerate(arrays):
            holder[i] = BitMap64(arr)
    objects = [None] * 100

    def make_objects():
        for i in range(100):
            objects[i] = BitMap64()

    object_bytes, _ = _traced(make_objects)
    per_object = (object_bytes // 100 + 15) & ~15  # 40 B requested, 48 B pymalloc block

    def build():
        it = iter(holder)
        return {
            1_700_000_000_000 + ts * 1024: {
                10_000 + ts * 97 + led: next(it) for led in range(n_ledgers)
            }
            for ts in range(n_ts)
        }

    dict_bytes, nested = _traced(build)
    return nested, c_heap.bytes + len(arrays) * per_object + dict_bytes


def test_nested_dict_of_1e4_bitmap64_within_3_percent_and_plain_asizeof_is_far_off():
    nested, truth = _nested(100, 100, 1)
    real = python_real_bytes(nested)
    plain = plain_asizeof(nested)
    assert real == pytest.approx(truth, rel=0.03), (real, truth)
    assert plain < 0.7 * truth  # plain asizeof misses more than 30%: the test can fail
    assert 400 <= real / 10_000 <= 600  # ~510 B per (ts, ledger) with one entry


def test_nested_dict_fewer_larger_bitmaps():
    nested, truth = _nested(20, 20, 1000)
    assert python_real_bytes(nested) == pytest.approx(truth, rel=0.03)


def test_python_real_bytes_walks_objects_and_dedupes_shared_bitmaps():
    bm = BitMap64(array.array("Q", range(0, 3000, 3)))

    class Holder:
        __slots__ = ("a", "b")

        def __init__(self):
            self.a = [bm, bm]
            self.b = {"x": (bm,)}

    one = python_real_bytes([bm])
    shared = python_real_bytes(Holder())
    assert shared - plain_asizeof(Holder()) == one - plain_asizeof([bm])  # counted once
    assert bitmap_bytes(bm) == 48 + croaring_bytes(bm)  # 40 B object rounded by pymalloc
