import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerlab.core.errors import UsageError
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.stream import PatternSpec, Workload
from trackerlab.workloads.units import parse_duration_ms


def _concat(workload, **kw):
    chunks = list(workload.chunks(**kw))
    return {
        f: np.concatenate([getattr(c, f) for c in chunks])
        for f in ("index", "publish_ms", "ledger", "entry", "batch_index", "delay_ms")
    }


def test_pip393_conventions():
    w = Workload(
        messages=5,
        rate_per_ms=2,
        entries_per_ledger=2,
        start_ledger=10_000,
        batch_size=1,
        start_ms=1000,
    )
    got = _concat(w)
    assert got["publish_ms"].tolist() == [1000, 1000, 1001, 1001, 1002]
    assert got["ledger"].tolist() == [10_000, 10_000, 10_001, 10_001, 10_002]
    assert got["entry"].tolist() == [0, 1, 0, 1, 0]


def test_batches_share_an_entry():
    w = Workload(messages=7, batch_size=3, entries_per_ledger=2, start_ms=0)
    got = _concat(w)
    assert got["entry"].tolist() == [0, 0, 0, 1, 1, 1, 0]
    assert got["ledger"].tolist() == [10_000] * 6 + [10_001]
    assert got["batch_index"].tolist() == [0, 1, 2, 0, 1, 2, 0]


def test_fractional_rate_and_rate_per_second():
    w = Workload.from_options(4, 500, rate_unit="s", start_ms=0)
    assert w.rate_per_ms == 0.5
    assert _concat(w)["publish_ms"].tolist() == [0, 2, 4, 6]


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 5000),
    st.integers(1, 977),
    st.sampled_from(
        [
            "fixed:5ms",
            "uniform:0:1s",
            "exponential:200ms",
            "empirical:10ms@0.5,1000ms@0.5",
            "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d",
        ]
    ),
    st.sampled_from(["all", "fraction:0.3", "burst:3:5"]),
)
def test_stream_is_identical_for_any_chunk_size(messages, chunk, delay, pattern):
    base = Workload.from_options(messages, 3.5, delay=delay, pattern=pattern, seed=11)
    small = Workload.from_options(
        messages, 3.5, delay=delay, pattern=pattern, seed=11, chunk_size=chunk
    )
    a, b = _concat(base), _concat(small)
    for field in a:
        assert np.array_equal(a[field], b[field]), field


def test_seed_changes_random_parts_only():
    a = _concat(Workload.from_options(1000, 1, delay="uniform:0:1000ms", seed=1))
    b = _concat(Workload.from_options(1000, 1, delay="uniform:0:1000ms", seed=2))
    assert np.array_equal(a["publish_ms"], b["publish_ms"])
    assert not np.array_equal(a["delay_ms"], b["delay_ms"])


def test_distributions_have_the_right_moments():
    n = 200_000
    uni = _concat(Workload.from_options(n, 1, delay="uniform:1000ms:3000ms"))["delay_ms"]
    assert uni.min() >= 1000 and uni.max() < 3000 and abs(uni.mean() - 2000) < 10
    exp = _concat(Workload.from_options(n, 1, delay="exponential:500ms"))["delay_ms"]
    assert abs(exp.mean() - 500) < 5  # floor() removes ~0.5 ms
    emp = _concat(Workload.from_options(n, 1, delay="empirical:10ms@0.25,20ms@0.75"))["delay_ms"]
    assert set(np.unique(emp)) == {10, 20} and abs((emp == 10).mean() - 0.25) < 0.01
    mix = _concat(Workload.from_options(n, 1, delay="mix:0.8*fixed:1m+0.2*fixed:1d"))["delay_ms"]
    assert abs((mix == 86_400_000).mean() - 0.2) < 0.01
    frac = _concat(Workload.from_options(n, 1, pattern="fraction:0.1"))["index"]
    assert abs(len(frac) / n - 0.1) < 0.005
    burst = _concat(Workload.from_options(20, 1, pattern="burst:2:3"))["index"]
    assert burst.tolist() == [0, 1, 5, 6, 10, 11, 15, 16]


def test_empirical_from_file(tmp_path):
    path = tmp_path / "delays.csv"
    path.write_text("100\n200\n300\n")
    spec = DelaySpec.parse(f"empirical:{path}")
    assert spec.params == (100.0, 200.0, 300.0) and spec.max_ms == 300


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("zipf:3", "unknown delay distribution 'zipf'"),
        ("fixed", "malformed --delay"),
        ("uniform:5ms:1ms", "uniform needs LO <= HI"),
        ("fixed:soon", "cannot read duration 'soon'"),
        ("exponential:0", "exponential mean must be a number > 0"),
        ("empirical:/no/such/file.csv", "not found"),
        ("mix:fixed:1ms", "each part is WEIGHT*SPEC"),
    ],
)
def test_bad_delay_specs(text, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace("*", r"\*")):
        DelaySpec.parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("some", "unknown nack pattern 'some'"),
        ("fraction:2", "must be a number in 0..1"),
        ("burst:0:1", "ON must be an integer >= 1"),
        ("fraction", "malformed --pattern"),
    ],
)
def test_bad_patterns(text, message):
    with pytest.raises(UsageError, match=message):
        PatternSpec.parse(text)


def test_bad_workload_parameters():
    with pytest.raises(
        UsageError, match=r"rate \(messages per ms\) must be a number in 1e-09\.\.1e\+06, got -1"
    ):
        Workload.from_options(10, -1)
    with pytest.raises(
        UsageError, match=r"entries per ledger must be an integer in 1\.\.2\^31 - 1"
    ):
        Workload(10, entries_per_ledger=0)
    with pytest.raises(UsageError, match="unknown rate unit"):
        Workload.from_options(10, 1, rate_unit="h")


def test_durations():
    assert parse_duration_ms("90ms") == 90 and parse_duration_ms("1.5s") == 1500
    assert parse_duration_ms("2h") == 7_200_000 and parse_duration_ms("1d") == 86_400_000


def test_last_message_per_entry_groups_batches_and_rolls_ledgers():
    from trackerlab.workloads.stream import last_message_per_entry

    workload = Workload.from_options(
        25, 2, delay="fixed:100ms", batch_size=10, entries_per_ledger=2, start_ledger=7
    )
    ledger, entry, publish, deliver_at = last_message_per_entry(workload)
    assert ledger.tolist() == [7, 7, 8] and entry.tolist() == [0, 1, 0]
    start = int(publish[0]) - 4
    assert (publish - start).tolist() == [4, 9, 12]  # last message of each entry: 9, 19, 24
    assert (deliver_at - publish).tolist() == [100, 100, 100]
    some = last_message_per_entry(
        Workload.from_options(1000, 1, pattern="burst:5:95", batch_size=10)
    )
    assert len(some[0]) == 10  # messages 0-4, 100-104, ...: one entry in ten


@pytest.mark.parametrize("rate", [5.1e-7, 4.9e-7, 1e-9, 1 / 3, 0.1, 8.0, 1e6, 2 / 7 * 1e-4])
def test_rate_fraction_is_exact_or_closest_and_never_zero(rate):
    """Before issue 16 ``limit_denominator(10^6)`` gave 0/1 below 5e-7 msg/ms."""
    from fractions import Fraction

    from trackerlab.workloads.stream import publish_offsets, rate_fraction

    num, den = rate_fraction(rate)
    assert num >= 1 and num * den < 1 << 62
    assert abs(num / den - rate) <= rate * 1e-12
    index = np.array([0, 1, 2, 999, 10**9, 10**11 - 1], dtype=np.int64)
    index = index[index / rate < 2**53]  # what a Workload accepts (its end below 2^53 ms)
    want = [int(Fraction(int(i)) * den // num) for i in index]
    assert publish_offsets(index, num, den).tolist() == want


def test_tiny_rates_spread_messages_one_bucket_each():
    """1000 messages at 5.1e-7 and at 4.9e-7 msg/ms are ~2e6 ms apart: 1000 buckets of
    1024 ms each, not one (the 4.9e-7 run used to give one bucket and a divide warning)."""
    import warnings

    for rate in (5.1e-7, 4.9e-7):
        w = Workload.from_options(1000, rate)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            chunk = w.chunk(0, 1000)
        buckets = np.unique(chunk.deliver_at >> 10)
        assert len(buckets) == 1000
        assert chunk.publish_ms[1] - chunk.publish_ms[0] == int(1 / rate)


def test_times_and_ledgers_that_cannot_be_represented_are_refused():
    with pytest.raises(UsageError, match="end past 2\\^53 ms"):
        Workload.from_options(10**12, 1e-9)
    with pytest.raises(UsageError, match="start ledger must be an integer in 0\\.\\."):
        Workload(10, start_ledger=(1 << 63) - 1, entries_per_ledger=1)
    with pytest.raises(UsageError, match="seed must be an integer in 0\\.\\.2\\^56 - 1"):
        Workload(10, seed=1 << 64)
    with pytest.raises(UsageError, match="longer than 1000 years"):
        Workload.from_options(10, 1, delay="uniform:0:1e30ms")
