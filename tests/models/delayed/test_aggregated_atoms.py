"""The massive-scale time-bucket model (``aggregated._entries_for_keys``): a message takes one
delay, so point masses whose windows for one bucket overlap never send an id there twice."""

from __future__ import annotations

import numpy as np

from trackerlab.models.delayed.aggregated import Topic, _entries_for_keys
from trackerlab.workloads.delay_spec import DelaySpec


def _topic(spec: str) -> Topic:
    return Topic(spec=DelaySpec.parse(spec), rate=0.5, horizon_ms=60_000.0, step_ms=1_000.0)


def _per_key(spec: str, keys: np.ndarray, width: int, t: float, seed: int) -> np.ndarray:
    owner, idx = _entries_for_keys(_topic(spec), keys, width, t, np.random.default_rng(seed))
    pairs = np.unique(owner * (1 << 32) + idx)  # distinct (key, id): what the bitmaps hold
    return np.bincount(pairs >> 32, minlength=len(keys))


def test_two_equal_point_masses_place_every_message_once():
    """``10s@0.5,10s@0.5`` is ``fixed:10s``: every id published in a bucket's window lands in
    it, 512 per 1,024 ms bucket at 0.5/ms. Thinned per atom and then deduplicated, a quarter
    of them were lost (ids both atoms dropped) and none could be told apart."""
    width, t = 1024, 30_000.0
    keys = 12_288 + width * np.arange(8, dtype=np.int64)
    fixed = _per_key("fixed:10s", keys, width, t, 0)
    assert np.all(fixed == 512)
    np.testing.assert_array_equal(_per_key("empirical:10s@0.5,10s@0.5", keys, width, t, 0), fixed)


def test_point_masses_in_one_bucket_share_its_ids_by_their_weights():
    """Three atoms 100 ms apart under 1,024 ms buckets, weights 0.2/0.3/0.5: an id lands at
    most once, so a bucket holds on average its 512 ids' worth (0.5/ms x 1,024 ms) and never
    more than the 563 ids the three windows span together."""
    width, t = 1024, 30_000.0
    keys = 20_480 + width * np.arange(16, dtype=np.int64)
    got = _per_key("empirical:10s@0.2,10.1s@0.3,10.2s@0.5", keys, width, t, 1)
    assert np.all(got <= 563) and abs(got.mean() - 512) < 12
