"""Python-real bytes of the Python models: pympler, with CRoaring's C memory counted.

``pympler.asizeof`` takes an object's flat size from ``sys.getsizeof``, and pyroaring's
``__sizeof__`` returns the *portable serialized size* (``roaring_bitmap_portable_size_in_bytes``),
not the memory CRoaring holds: no 40-byte Python object, no container structs, no top-level
arrays, no ART nodes, no malloc overhead. Plain asizeof under-reports a
``dict[ts, dict[ledger, BitMap64]]`` by 33–80% (spec/memory-measurement.md §B).

**Choice: a per-bitmap correction through the public API** (the spec's "recipe 3"). The
models keep plain ``BitMap``/``BitMap64`` objects, which pyroaring's bulk constructors
return; a sized subclass would have to be threaded through every set operation, and
patching pympler's private ``_getsizeof`` ties us to one pympler release.
:func:`python_real_bytes` runs ``asizeof`` once over the whole structure, then replaces each
bitmap's flat size with :func:`bitmap_bytes`, found by walking the same object graph.

:func:`croaring_bytes` measures a bitmap after ``shrink_to_fit()`` (which releases capacity
slack only, never content, and is the state pyroaring's default constructor leaves). Where
glibc and CRoaring v5.2.2 (pyroaring 1.2.0) are present it asks the allocator for the chunk
size of every block CRoaring owns (``malloc_usable_size``), which is exact by construction;
elsewhere it falls back to an estimate from ``get_statistics()`` and CRoaring's allocation
rules (40 B ``roaring_bitmap_t`` + 11 B per container in one arena; 192 B
``roaring64_bitmap_t`` + ART + 9 B per container; 16 B per container struct; payloads of
2 B per array value, 4 B per run, 8 KiB per bitset; glibc chunks of
``max(32, (n + 8 + 15) & ~15)``). tests/sizing/test_python_sizing.py holds both against
``mallinfo2`` deltas.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
from collections.abc import Callable, Iterator
from functools import cache
from typing import cast

import pyroaring
from pympler import asizeof
from pyroaring import AbstractBitMap, AbstractBitMap64

BITMAP_TYPES = (AbstractBitMap, AbstractBitMap64)
_ROARING64_STRUCT = 192  # sizeof(roaring64_bitmap_t) in CRoaring >= 4.3
_ROARING_STRUCT = 40  # sizeof(roaring_bitmap_t)
_ART_HEADER = 56  # art_size_in_bytes() counts the art_t header embedded in roaring64_bitmap_t


def malloc_chunk(n: int) -> int:
    """Bytes glibc's malloc reserves for a request of ``n`` bytes on x86-64 (0 for 0)."""
    return max(32, (n + 8 + 15) & ~15) if n > 0 else 0


@cache
def _croaring() -> ctypes.CDLL:
    lib = ctypes.CDLL(pyroaring.__file__)
    lib.art_size_in_bytes.restype = ctypes.c_size_t
    lib.art_size_in_bytes.argtypes = [ctypes.c_void_p]
    return lib


@cache
def _usable_size() -> Callable[[int], int] | None:
    """glibc's ``malloc_usable_size``, or None on other C libraries."""
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    fn = getattr(libc, "malloc_usable_size", None)
    if fn is None:
        return None
    fn.restype = ctypes.c_size_t
    fn.argtypes = [ctypes.c_void_p]
    return fn


def _held(ptr: int) -> int:
    """Chunk bytes glibc holds for the block at ``ptr``: usable size + the 8-byte header."""
    # callers size CRoaring blocks only where _usable_size() found glibc (not None)
    return cast("Callable[[int], int]", _usable_size())(ptr) + 8 if ptr else 0


#: CRoaring versions whose struct layouts :func:`_walk_bytes` reads (pyroaring 1.2.0).
WALKABLE_CROARING = ("v5.2.2",)
_u64 = ctypes.c_uint64
_ptr_at = ctypes.c_void_p.from_address


def _container_blocks(container: int, typecode: int) -> int:
    """A container struct and its payload; ``typecode`` 1 bitset, 2 array, 3 run, 4 shared.

    Every container struct keeps its payload pointer at offset 8 (``uint64_t *words``,
    ``uint16_t *array``, ``rle16_t *runs``); a shared (copy-on-write) one points to the
    container it shares at offset 0 and its typecode at offset 8.
    """
    if typecode == 4:
        inner = _ptr_at(container).value or 0
        inner_type = ctypes.c_uint8.from_address(container + 8).value
        return _held(container) + _container_blocks(inner, inner_type)
    return _held(container) + _held(_ptr_at(container + 8).value or 0)


def _walk_bytes(bm: AbstractBitMap | AbstractBitMap64) -> int:
    """Exact bytes held, by asking glibc for the chunk size of every block CRoaring owns.

    Reads CRoaring v5.2.2's structs: ``roaring_bitmap_t`` = ``{int32 size, int32
    allocation_size, container_t **containers, uint16_t *keys, uint8_t *typecodes, flags}``
    with containers, keys and typecodes in one block; ``roaring64_bitmap_t`` = ``{art_t art
    (root, first_free[6], capacities[6], nodes[6]); flags; first_free; capacity;
    container_t **containers; uint8_t *typecodes}``. The bitmap must be shrunk (containers
    compacted to ``0..n-1``). O(containers).
    """
    base = bm.raw_pointer
    total = _held(base)
    if isinstance(bm, AbstractBitMap):
        size = ctypes.c_int32.from_address(base).value
        containers = _ptr_at(base + 8).value or 0
        typecodes = _ptr_at(base + 24).value or 0
        total += _held(containers)
    else:
        capacities = (_u64 * 6).from_address(base + 56)
        nodes = (_u64 * 6).from_address(base + 104)
        total += sum(_held(nodes[t]) for t in range(1, 6) if capacities[t])
        size = _u64.from_address(base + 160).value  # first_free == count once shrunk
        containers = _ptr_at(base + 176).value or 0
        typecodes = _ptr_at(base + 184).value or 0
        total += _held(containers) + _held(typecodes)
    if size:
        ptrs = (_u64 * size).from_address(containers)
        codes = (ctypes.c_uint8 * size).from_address(typecodes)
        total += sum(_container_blocks(ptrs[i], codes[i]) for i in range(size))
    return total


def _estimate_bytes(bm: AbstractBitMap | AbstractBitMap64) -> int:
    """Portable estimate from ``get_statistics()`` (shrunk bitmap; glibc chunk rounding).

    Misses glibc keeping a larger chunk when a shrinking ``realloc`` would free less than
    32 B (16 B for a one-key ``BitMap64``) and treats the ART node arrays as one block.
    """
    stats = bm.get_statistics()
    n = stats["n_containers"]
    n_array, n_run = stats["n_array_containers"], stats["n_run_containers"]
    array_payload = stats["n_bytes_array_containers"]
    run_payload = stats["n_bytes_run_containers"] - 2 * n_run  # minus the serialized run count
    if isinstance(bm, AbstractBitMap):
        top = malloc_chunk(_ROARING_STRUCT) + malloc_chunk(11 * n)
    else:
        art = max(0, _croaring().art_size_in_bytes(bm.raw_pointer) - _ART_HEADER)
        top = malloc_chunk(_ROARING64_STRUCT) + malloc_chunk(art)
        top += malloc_chunk(8 * n) + malloc_chunk(n)
    containers = n * malloc_chunk(16) + stats["n_bitset_containers"] * malloc_chunk(8192)
    if n_array:
        containers += n_array * malloc_chunk(array_payload // n_array)
    if n_run:
        containers += n_run * malloc_chunk(run_payload // n_run)
    return top + containers


def exact_walk_available() -> bool:
    """True where :func:`croaring_bytes` asks the allocator (glibc, CRoaring v5.2.2)."""
    return _usable_size() is not None and pyroaring.__croaring_version__ in WALKABLE_CROARING


def croaring_bytes(bm: AbstractBitMap | AbstractBitMap64, *, exact: bool | None = None) -> int:
    """C heap bytes CRoaring holds for ``bm``, after ``shrink_to_fit()``.

    ``exact`` (default: where available) asks glibc for every block's chunk size;
    otherwise the portable estimate from ``get_statistics()`` is used.
    """
    if not isinstance(bm, pyroaring.FrozenBitMap | pyroaring.FrozenBitMap64):
        bm.shrink_to_fit()
    use_walk = exact_walk_available() if exact is None else exact
    return _walk_bytes(bm) if use_walk else _estimate_bytes(bm)


def bitmap_bytes(bm: AbstractBitMap | AbstractBitMap64, *, exact: bool | None = None) -> int:
    """Python object (pymalloc-rounded, with GC header if tracked) + :func:`croaring_bytes`."""
    obj = type(bm).__basicsize__ + (16 if gc.is_tracked(bm) else 0)
    return ((obj + 15) & ~15) + croaring_bytes(bm, exact=exact)


def _flat_counted(bm: object) -> int:
    """What asizeof already counted for a bitmap: ``sys.getsizeof`` rounded up to 8."""
    return (sys.getsizeof(bm) + 7) & ~7


def iter_bitmaps(root: object) -> Iterator[AbstractBitMap | AbstractBitMap64]:
    """Every distinct bitmap reachable from ``root`` through containers and instances.

    Walks ``gc.get_referents`` like asizeof does, skipping classes, modules and functions.
    O(objects reachable).
    """
    seen: set[int] = set()
    stack = [root]
    skip = (type, type(sys), type(iter_bitmaps), type(len))
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        if isinstance(obj, BITMAP_TYPES):
            yield obj
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, tuple | list | set | frozenset):
            stack.extend(obj)  # a tuple of bitmaps only is untracked after a collection
        elif gc.is_tracked(obj):
            stack.extend(gc.get_referents(obj))


def python_real_bytes(root: object, *, exact: bool | None = None) -> int:
    """Deep size of ``root`` as CPython really holds it, CRoaring memory included.

    ``asizeof`` over the graph plus, for each bitmap, its real size minus the flat size
    asizeof counted. ``exact`` as in :func:`croaring_bytes`: the allocator's view (default
    where available; it includes glibc reusing a freed chunk up to 32 B larger than asked,
    which depends on allocation history) or the history-free allocation rules. Linear in
    the number of objects (~1.1 µs each for asizeof).
    """
    total = asizeof.asizeof(root)
    for bm in iter_bitmaps(root):
        total += bitmap_bytes(bm, exact=exact) - _flat_counted(bm)
    return total


def plain_asizeof(root: object) -> int:
    """asizeof with pyroaring's ``__sizeof__`` (serialized size): what naive tools report."""
    return asizeof.asizeof(root)
