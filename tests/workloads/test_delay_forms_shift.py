"""``delay_forms.shifted``: D + c for every kind, exponential included (an offset)."""

from __future__ import annotations

import numpy as np
import pytest

from trackerlab.workloads import delay_forms as df
from trackerlab.workloads.delay_spec import DelaySpec


@pytest.mark.parametrize(
    "text", ["fixed:10s", "uniform:0:1h", "exponential:30s", "empirical:1s@0.5,9s@0.5",
             "mix:0.5*uniform:0:1m+0.5*fixed:5s"],
)  # fmt: skip
def test_a_shift_moves_the_distribution(text):
    spec = DelaySpec.parse(text)
    moved = df.shifted(spec, 60_000)
    x = np.linspace(0, 4_000_000, 41)
    assert np.allclose(df.cdf(moved, x + 60_000), df.cdf(spec, x))
    assert np.allclose(df.cdf_integral(moved, x + 60_000), df.cdf_integral(spec, x))
    assert df.mean(moved) == pytest.approx(df.mean(spec) + 60_000)
    assert df.support_min(moved) == pytest.approx(df.support_min(spec) + 60_000)
    assert df.support_max(moved) == pytest.approx(df.support_max(spec) + 60_000)
    u = np.random.default_rng(3).random(10_000)
    v = np.random.default_rng(4).random(10_000)
    assert np.array_equal(moved.sample(u, v), spec.sample(u, v) + 60_000)
