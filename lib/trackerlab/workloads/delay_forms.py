"""Closed forms of a :class:`~trackerlab.workloads.delay_spec.DelaySpec` for aggregated simulations.

The time-stepped simulator (:mod:`trackerlab.experiments.massive_delayed`) never draws one
delay per message; it counts messages with integrals of the delay distribution:

- :func:`cdf` ``F(x) = P(D <= x)``;
- :func:`cdf_integral` ``G(x) = ∫_{-inf}^{x} F(y) dy``. With a constant rate ``r`` of
  publications, the messages published in ``[a, b)`` whose deliverAt is at most ``c`` number
  ``r * (G(c - a) - G(c - b))``; those still pending at ``c`` number
  ``r * ((b - a) - (G(c - a) - G(c - b)))``;
- :func:`quantile` for finite supports;
- :func:`atoms` / :func:`continuous_parts`: the point masses (``fixed``, ``empirical``) and the
  densities (``uniform``, ``exponential``) of a possibly mixed spec, with their weights;
- :func:`sample_truncated`: delays of one continuous part conditioned on ``[lo, hi]``
  (inverse transform), used to draw the content of sampled time buckets.

All functions are vectorized over ``x`` (numpy arrays of ms) and O(len(x)) per part; an
``empirical`` spec with k values costs O(len(x) log k). The continuous forms ignore the
integer-ms flooring of :meth:`DelaySpec.sample` (a bias below 1 ms).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from trackerlab.workloads.delay_spec import DelaySpec

#: Probability mass left beyond :func:`support_max` for unbounded (exponential) delays.
TAIL_EPSILON = 1e-9


def _offset(spec: DelaySpec) -> float:
    """An exponential delay's offset (``shifted``): ``params[1]``, else 0."""
    return spec.params[1] if len(spec.params) > 1 else 0.0


def shifted(spec: DelaySpec, by_ms: float) -> DelaySpec:
    """The delay ``D + by_ms``: every point and bound moved, mixtures part by part (an
    exponential keeps its mean and gains an offset). O(parts)."""
    if spec.kind == "exponential":
        params: tuple[float, ...] = (spec.params[0], _offset(spec) + by_ms)
    elif spec.kind == "mix":
        parts = tuple(shifted(p, by_ms) for p in spec.parts)
        return replace(spec, parts=parts, text=f"{spec.text} + {by_ms:g}ms", files=spec.files)
    else:
        params = tuple(v + by_ms for v in spec.params)
    return replace(spec, params=params, text=f"{spec.text} + {by_ms:g}ms", files=spec.files)


def _empirical_table(spec: DelaySpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.argsort(spec.params)
    values = np.asarray(spec.params, dtype=np.float64)[order]
    weights = np.asarray(spec.weights, dtype=np.float64)[order]
    return values, np.cumsum(weights), np.cumsum(weights * values)


class _Form(Protocol):
    def __call__(self, spec: DelaySpec, x: np.ndarray | float) -> np.ndarray: ...


def _mixture(form: _Form, spec: DelaySpec, x: np.ndarray) -> np.ndarray:
    """``sum(w * form(part, x))`` over a mixture's parts, as a float64 array shaped like ``x``
    (zeros when there are no parts). O(parts * len(x))."""
    total = np.zeros_like(x, dtype=np.float64)
    for w, p in zip(spec.weights, spec.parts, strict=True):
        total = total + w * form(p, x)
    return total


def cdf(spec: DelaySpec, x: np.ndarray | float) -> np.ndarray:
    """``P(D <= x)`` for every ``x`` (ms)."""
    x = np.asarray(x, dtype=np.float64)
    kind = spec.kind
    if kind == "fixed":
        return (x >= spec.params[0]).astype(np.float64)
    if kind == "uniform":
        lo, hi = spec.params
        if hi <= lo:
            return (x >= lo).astype(np.float64)
        return np.clip((x - lo) / (hi - lo), 0.0, 1.0)
    if kind == "exponential":
        x = x - _offset(spec)
        return np.where(x > 0, -np.expm1(-np.maximum(x, 0) / spec.params[0]), 0.0)
    if kind == "empirical":
        values, cum_w, _ = _empirical_table(spec)
        idx = np.searchsorted(values, x, side="right")
        return np.where(idx > 0, cum_w[np.maximum(idx - 1, 0)], 0.0)
    return _mixture(cdf, spec, x)


def cdf_integral(spec: DelaySpec, x: np.ndarray | float) -> np.ndarray:
    """``G(x) = ∫_{-inf}^{x} P(D <= y) dy`` (ms); ``G(x) = x - E[D]`` once ``x`` is past
    the support."""
    x = np.asarray(x, dtype=np.float64)
    kind = spec.kind
    if kind == "fixed":
        return np.maximum(x - spec.params[0], 0.0)
    if kind == "uniform":
        lo, hi = spec.params
        if hi <= lo:
            return np.maximum(x - lo, 0.0)
        inside = (np.clip(x, lo, hi) - lo) ** 2 / (2 * (hi - lo))
        return inside + np.maximum(x - hi, 0.0)
    if kind == "exponential":
        m = spec.params[0]
        xp = np.maximum(x - _offset(spec), 0.0)
        return xp + m * np.expm1(-xp / m)
    if kind == "empirical":
        values, cum_w, cum_wv = _empirical_table(spec)
        idx = np.searchsorted(values, x, side="right")
        below = np.maximum(idx - 1, 0)
        return np.where(idx > 0, x * cum_w[below] - cum_wv[below], 0.0)
    return _mixture(cdf_integral, spec, x)


def mean(spec: DelaySpec) -> float:
    """``E[D]`` in ms."""
    if spec.kind == "fixed":
        return spec.params[0]
    if spec.kind == "uniform":
        return (spec.params[0] + spec.params[1]) / 2
    if spec.kind == "exponential":
        return spec.params[0] + _offset(spec)
    if spec.kind == "empirical":
        return float(np.dot(spec.params, spec.weights))
    return sum(w * mean(p) for w, p in zip(spec.weights, spec.parts, strict=True))


def support_min(spec: DelaySpec) -> float:
    """The smallest delay with positive probability (ms)."""
    if spec.kind in ("fixed", "uniform"):
        return spec.params[0]
    if spec.kind == "exponential":
        return _offset(spec)
    if spec.kind == "empirical":
        return min(v for v, w in zip(spec.params, spec.weights, strict=True) if w > 0)
    return min(support_min(p) for w, p in zip(spec.weights, spec.parts, strict=True) if w > 0)


def support_max(spec: DelaySpec) -> float:
    """The largest delay (ms); for an exponential part, its ``1 - TAIL_EPSILON`` quantile."""
    if spec.kind == "exponential":
        return _offset(spec) - spec.params[0] * math.log(TAIL_EPSILON)
    if spec.kind == "mix":
        return max(support_max(p) for w, p in zip(spec.weights, spec.parts, strict=True) if w > 0)
    if spec.kind == "empirical":
        return max(v for v, w in zip(spec.params, spec.weights, strict=True) if w > 0)
    return spec.max_ms


def quantile(spec: DelaySpec, q: float, tolerance_ms: float = 1.0) -> float:
    """The smallest ``x`` with ``F(x) >= q`` (bisection to ``tolerance_ms``). O(log range)."""
    lo, hi = support_min(spec), support_max(spec)
    if float(cdf(spec, lo)) >= q:
        return lo
    while hi - lo > tolerance_ms:
        mid = (lo + hi) / 2
        if float(cdf(spec, mid)) >= q:
            hi = mid
        else:
            lo = mid
    return hi


def atoms(spec: DelaySpec, weight: float = 1.0) -> list[tuple[float, float]]:
    """``(delay_ms, probability)`` of every point mass (fixed and empirical parts)."""
    if spec.kind == "fixed":
        return [(spec.params[0], weight)]
    if spec.kind == "uniform" and spec.params[1] <= spec.params[0]:
        return [(spec.params[0], weight)]
    if spec.kind == "empirical":
        return [(v, weight * w) for v, w in zip(spec.params, spec.weights, strict=True) if w > 0]
    if spec.kind == "mix":
        return [
            a for w, p in zip(spec.weights, spec.parts, strict=True) for a in atoms(p, weight * w)
        ]
    return []


def atom_clusters(atoms: list[tuple[float, float]], width: int) -> list[list[tuple[float, float]]]:
    """``atoms`` (``(delay_ms, probability)``, :func:`atoms`) grouped so that two whose
    publication windows for one bucket of ``width`` ms can overlap (delays less than ``width``
    apart, equal delays included) share a group: a message takes one delay, so within a group
    its choice is one draw, not one per atom. Groups come in the order of their first atom.
    O(atoms log atoms)."""
    order = sorted(range(len(atoms)), key=lambda i: atoms[i][0])
    group = list(range(len(atoms)))
    for prev, cur in itertools.pairwise(order):
        if atoms[cur][0] - atoms[prev][0] < width:
            group[cur] = group[prev]
    clusters: dict[int, list[tuple[float, float]]] = {}
    for i, atom in enumerate(atoms):  # a group first met at its first atom: the given order
        clusters.setdefault(group[i], []).append(atom)
    return list(clusters.values())


def continuous_parts(spec: DelaySpec, weight: float = 1.0) -> list[tuple[DelaySpec, float]]:
    """``(part, probability)`` of every part with a density (uniform, exponential)."""
    if spec.kind == "exponential" or (spec.kind == "uniform" and spec.params[1] > spec.params[0]):
        return [(spec, weight)]
    if spec.kind == "mix":
        return [
            c
            for w, p in zip(spec.weights, spec.parts, strict=True)
            for c in continuous_parts(p, weight * w)
        ]
    return []


def is_deterministic(spec: DelaySpec) -> bool:
    """True when every message has the same delay (a single atom of probability 1)."""
    found = atoms(spec)
    return not continuous_parts(spec) and len({v for v, _ in found}) == 1


def sample_truncated(part: DelaySpec, lo: np.ndarray, hi: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Delays of a continuous ``part`` conditioned on ``[lo, hi]`` from uniforms ``u``
    (inverse transform of the truncated CDF). Rows where the part has no mass in
    ``[lo, hi]`` return ``lo``. O(len(u))."""
    f_lo = cdf(part, lo)
    f_hi = cdf(part, hi)
    p = f_lo + u * (f_hi - f_lo)
    if part.kind == "uniform":
        a, b = part.params
        out = a + p * (b - a)
    else:
        out = _offset(part) - part.params[0] * np.log1p(-np.minimum(p, 1 - 1e-16))
    return np.clip(out, lo, hi)


def truncated_mass(part: DelaySpec, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``P(lo <= D <= hi)`` of a continuous part."""
    return np.maximum(cdf(part, hi) - cdf(part, lo), 0.0)


# --------------------------------------------------------------------------- distributions


class SpecDelay:
    """The delay of a message: a :class:`DelaySpec` with its closed forms attached."""

    def __init__(self, spec: DelaySpec) -> None:
        self.spec = spec

    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        return cdf(self.spec, x)

    def cdf_integral(self, x: np.ndarray | float) -> np.ndarray:
        return cdf_integral(self.spec, x)

    def mass(self, lo: float, hi: float) -> float:
        """``P(lo <= D < hi)`` (``hi`` may be ``inf``); integer-ms delays, so ``D < hi`` is
        ``D <= hi - 1/2``."""
        upper = 1.0 if math.isinf(hi) else float(cdf(self.spec, hi - 0.5))
        return max(0.0, upper - float(cdf(self.spec, lo - 0.5)))

    @property
    def support_max(self) -> float:
        return support_max(self.spec)


class Delay(Protocol):
    """A delay distribution as :class:`MixtureDelay` combines them (``cdf`` and its integral
    over ms, the largest delay)."""

    def cdf(self, x: np.ndarray | float) -> np.ndarray | float: ...

    def cdf_integral(self, x: np.ndarray | float) -> np.ndarray | float: ...

    @property
    def support_max(self) -> float: ...


class BandRemainder:
    """``D - lo`` given ``lo <= D < hi``: the delay left when a message of a delay band is
    re-published ``lo`` after its publication (delay-level topics)."""

    def __init__(self, base: SpecDelay, lo: float, hi: float) -> None:
        self.base, self.lo, self.hi = base, lo, hi
        self.p = base.mass(lo, hi)
        self.f_lo = float(base.cdf(lo - 0.5))
        self.g_lo = float(base.cdf_integral(lo))
        self.width = hi - lo

    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if self.p <= 0:
            return (x >= 0).astype(np.float64)
        inside = (self.base.cdf(self.lo + np.clip(x, 0, self.width)) - self.f_lo) / self.p
        return np.where(x < 0, 0.0, np.where(x >= self.width, 1.0, np.clip(inside, 0, 1)))

    def cdf_integral(self, x: np.ndarray | float) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if self.p <= 0:
            return np.maximum(x, 0.0)
        y = np.clip(x, 0, self.width)
        inside = (self.base.cdf_integral(self.lo + y) - self.g_lo - self.f_lo * y) / self.p
        return np.maximum(inside, 0.0) + np.maximum(x - self.width, 0.0)

    @property
    def support_max(self) -> float:
        return min(self.width, self.base.support_max - self.lo)


class MixtureDelay:
    """A weighted mixture of delay distributions (weights need not sum to 1: normalized)."""

    def __init__(self, parts: Sequence[tuple[float, Delay]]) -> None:
        total = sum(w for w, _ in parts)
        self.parts = [(w / total, d) for w, d in parts if w > 0] if total > 0 else []

    def cdf(self, x: np.ndarray | float) -> np.ndarray | float:  # 0 without parts
        return sum(w * d.cdf(x) for w, d in self.parts)

    def cdf_integral(self, x: np.ndarray | float) -> np.ndarray | float:  # 0 without parts
        return sum(w * d.cdf_integral(x) for w, d in self.parts)

    @property
    def support_max(self) -> float:
        return max((d.support_max for _, d in self.parts), default=0.0)


def pending(dist, rate_per_ms: float, a, b, c) -> np.ndarray:
    """Expected messages published in ``[a, b)`` at ``rate_per_ms`` whose ``publish + delay``
    is later than ``c``: ``rate * ((b - a) - (G(c - a) - G(c - b)))`` (0 when ``b <= a``)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.maximum(np.asarray(b, dtype=np.float64), a)
    c = np.asarray(c, dtype=np.float64)
    due = dist.cdf_integral(c - a) - dist.cdf_integral(c - b)
    return rate_per_ms * np.maximum((b - a) - due, 0.0)


def due(dist, rate_per_ms: float, a, b, c) -> np.ndarray:
    """Expected messages published in ``[a, b)`` whose ``publish + delay <= c``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.maximum(np.asarray(b, dtype=np.float64), a)
    c = np.asarray(c, dtype=np.float64)
    return rate_per_ms * np.maximum(dist.cdf_integral(c - a) - dist.cdf_integral(c - b), 0.0)
