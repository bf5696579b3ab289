"""Counter-based random numbers: the value for message ``i`` depends only on (seed, stream, i).

A workload is generated in chunks (and, on Spark, in partitions); with a counter-based
generator the messages come out identical whatever the chunk size or partitioning. The
mixer is SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), vectorized in numpy with uint64 wraparound. O(n) per call.
"""

from __future__ import annotations

import numpy as np

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def stream_key(seed: int, stream: int) -> np.uint64:
    """The key of one named stream (delays, selection...) of a seed."""
    with np.errstate(over="ignore"):
        base = np.array([(seed * 0x100 + stream) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
        return _mix(base * _GAMMA + _GAMMA)[0]


def uint64s(seed: int, stream: int, start: int, count: int) -> np.ndarray:
    """``count`` uint64 values for counters ``start .. start + count - 1``."""
    with np.errstate(over="ignore"):
        counters = np.arange(start + 1, start + count + 1, dtype=np.uint64)
        return _mix(stream_key(seed, stream) + counters * _GAMMA)


def uniforms_at(seed: int, stream: int, counters: np.ndarray) -> np.ndarray:
    """The doubles of :func:`uniforms` at the given counters only (message indices). O(n)."""
    with np.errstate(over="ignore"):
        c = np.asarray(counters, dtype=np.int64).astype(np.uint64) + np.uint64(1)
        bits = _mix(stream_key(seed, stream) + c * _GAMMA)
    return (bits >> np.uint64(11)).astype(np.float64) * (2.0**-53)


def uniforms(seed: int, stream: int, start: int, count: int) -> np.ndarray:
    """``count`` doubles in [0, 1) with 53 random bits each."""
    return (uint64s(seed, stream, start, count) >> np.uint64(11)).astype(np.float64) * (2.0**-53)
