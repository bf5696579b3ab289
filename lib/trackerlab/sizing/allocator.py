"""What glibc's allocator really holds: ``mallinfo2()`` deltas, the ground truth for C memory.

``mallinfo2`` (glibc >= 2.33) reports ``uordblks`` (bytes in allocated arena chunks) and
``hblkhd`` (bytes in mmap'd chunks). Their sum before and after building an object is the C
heap the object holds, chunk overheads included. It sees CRoaring's ``malloc`` calls, which
tracemalloc cannot; it does not see pymalloc's small Python objects, which tracemalloc does.
Freed chunks parked in glibc's tcache still count as in use, so measure constructions, not
sequences of reallocations, and prefer many objects per measurement.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from dataclasses import dataclass
from functools import cache


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


@cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    libc = ctypes.CDLL(name)
    if not hasattr(libc, "mallinfo2"):
        return None
    libc.mallinfo2.restype = _MallInfo2
    return libc


def available() -> bool:
    """True on glibc >= 2.33, where ``mallinfo2`` exists."""
    return _libc() is not None


def malloc_in_use() -> int:
    """Bytes glibc holds for the process: allocated arena chunks + mmap'd chunks."""
    libc = _libc()
    if libc is None:
        raise RuntimeError("mallinfo2 needs glibc >= 2.33")
    info = libc.mallinfo2()
    return int(info.uordblks + info.hblkhd)


@dataclass
class HeapDelta:
    """Context manager: ``with HeapDelta() as d: build()`` then ``d.bytes`` (C heap grown)."""

    bytes: int = 0
    _before: int = 0

    def __enter__(self) -> HeapDelta:
        gc.collect()
        self._before = malloc_in_use()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bytes = malloc_in_use() - self._before
