"""Closed forms of delay distributions against samples drawn by DelaySpec.sample."""

import numpy as np
import pytest

from trackerlab.workloads import delay_forms as delays
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.stream import Workload

SPECS = [
    "fixed:90s",
    "uniform:1m:15m",
    "exponential:10m",
    "empirical:1m@0.25,5m@0.75",
    "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d",
    "mix:0.5*fixed:10m+0.5*exponential:5m",
]


def _samples(text: str, n: int = 200_000) -> np.ndarray:
    spec = DelaySpec.parse(text)
    u = np.random.default_rng(1).random(n)
    v = np.random.default_rng(2).random(n)
    return spec.sample(u, v).astype(np.float64)


@pytest.mark.parametrize("text", SPECS)
def test_cdf_and_its_integral_match_samples(text):
    spec = DelaySpec.parse(text)
    d = _samples(text)
    xs = np.quantile(d, [0.05, 0.3, 0.5, 0.8, 0.97]) + 0.5
    assert np.allclose(delays.cdf(spec, xs), [(d <= x).mean() for x in xs], atol=0.01)
    # G(x) = E[(x - D)+]
    g = delays.cdf_integral(spec, xs)
    scale = max(xs.max(), 1.0)
    assert np.allclose(g, [np.maximum(x - d, 0).mean() for x in xs], atol=0.002 * scale)
    assert delays.mean(spec) == pytest.approx(d.mean(), rel=0.02, abs=1.0)
    assert delays.support_min(spec) <= d.min() + 1 and d.max() <= delays.support_max(spec) + 1


def test_parts_and_truncated_sampling():
    spec = DelaySpec.parse("mix:0.5*fixed:10m+0.3*uniform:1m:2m+0.2*exponential:5m")
    assert delays.atoms(spec) == [(600_000.0, 0.5)]
    assert [w for _, w in delays.continuous_parts(spec)] == pytest.approx([0.3, 0.2])
    assert delays.is_deterministic(DelaySpec.parse("fixed:1d"))
    assert not delays.is_deterministic(spec)
    part = DelaySpec.parse("exponential:5m")
    lo, hi = np.full(1000, 60_000.0), np.full(1000, 120_000.0)
    x = delays.sample_truncated(part, lo, hi, np.random.default_rng(0).random(1000))
    assert x.min() >= 60_000 and x.max() <= 120_000
    assert delays.quantile(DelaySpec.parse("uniform:0:100s"), 0.5) == pytest.approx(50_000, abs=2)


def test_pending_counts_what_a_workload_leaves_undelivered():
    spec = "uniform:1m:15m"
    wl = Workload(messages=60_000, rate_per_ms=0.05, delay=DelaySpec.parse(spec), seed=3)
    chunk = wl.chunk(0, wl.messages)
    rel = chunk.publish_ms - chunk.publish_ms[0]
    dist = delays.SpecDelay(wl.delay)
    for t in (300_000.0, 900_000.0, 1_150_000.0):
        published = rel < t
        undelivered = (rel + chunk.delay_ms > t + 1000) & published
        expected = delays.pending(dist, 0.05, 0.0, t, t + 1000)
        assert float(expected) == pytest.approx(undelivered.sum(), rel=0.02)
        assert float(delays.due(dist, 0.05, 0.0, t, t + 1000)) == pytest.approx(
            published.sum() - undelivered.sum(), rel=0.02
        )


def test_band_remainder_is_the_conditional_distribution():
    base = delays.SpecDelay(DelaySpec.parse("uniform:0:5h"))
    band = delays.BandRemainder(base, 3_600_000, 7_200_000)
    d = _samples("uniform:0:5h")
    inside = d[(d >= 3_600_000) & (d < 7_200_000)] - 3_600_000
    xs = np.array([600_000.0, 1_800_000.0, 3_000_000.0])
    assert np.allclose(band.cdf(xs), [(inside <= x).mean() for x in xs], atol=0.01)
    assert np.allclose(
        band.cdf_integral(xs), [np.maximum(x - inside, 0).mean() for x in xs], rtol=0.02
    )
    mix = delays.MixtureDelay([(1.0, band), (3.0, base)])
    assert float(mix.cdf(1e12)) == pytest.approx(1.0)


def test_mixture_without_parts_gives_float_zeros_shaped_like_x():
    empty = DelaySpec("mix")
    xs = np.array([0.0, 1.0, 5.0])
    for form in (delays.cdf, delays.cdf_integral):
        out = form(empty, xs)
        assert isinstance(out, np.ndarray)
        assert out.dtype == np.float64 and out.shape == xs.shape
        assert np.array_equal(out, np.zeros(3))
        scalar = form(empty, 2.0)
        assert np.shape(scalar) == () and np.asarray(scalar).dtype == np.float64
