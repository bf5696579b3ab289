"""Units of user input: every quantity that needs a unit carries one."""

from __future__ import annotations

import pytest

from trackerlab.core.errors import UsageError
from trackerlab.workloads.units import (
    format_bytes,
    format_duration_ms,
    format_rate,
    parse_bytes,
    parse_count,
    parse_duration_ms,
    parse_rate_per_ms,
    parse_share,
)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("500ms", 500),
        ("1.5s", 1500),
        ("10m", 600_000),
        ("10min", 600_000),
        ("1h", 3_600_000),
        ("2d", 172_800_000),
        ("0", 0),
        (" 1e3ms ", 1000),
    ],
)
def test_durations(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3600", "'3600' needs a unit (ms, s, m, h or d), e.g. 3600s"),
        ("1 hour", "cannot read"),
        ("-5s", "a duration must be >= 0"),
        ("s", "cannot read"),
    ],
)
def test_bad_durations(text, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_duration_ms(text, "--delay")


@pytest.mark.parametrize(
    ("text", "per_ms"),
    [
        ("20k/s", 20.0),
        ("500/s", 0.5),
        ("8/ms", 8.0),
        ("1.2M/min", 20.0),
        ("3600/h", 0.001),
        ("20k msg/s", 20.0),
    ],
)
def test_rates(text, per_ms):
    assert parse_rate_per_ms(text) == pytest.approx(per_ms)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("20000", "e.g. 20000/s"),
        ("0/s", "must be > 0"),
        ("-3/s", "the rate must be > 0"),
        ("fast", "cannot read"),
    ],
)
def test_bad_rates(text, message):
    with pytest.raises(UsageError, match=message):
        parse_rate_per_ms(text, "--rate")


def test_bytes_shares_counts():
    assert parse_bytes("512MiB", "--budget") == 512 * 2**20
    assert parse_bytes("64MB", "x") == 64_000_000
    assert parse_bytes("0", "x") == 0
    with pytest.raises(UsageError, match="needs a unit"):
        parse_bytes("4096", "--memory-limit")
    assert parse_share("2%", "--nacked") == 0.02 and parse_share("0.3", "--delayed") == 0.3
    with pytest.raises(UsageError, match=r"--nacked must be a share in 0..1 \(0%..100%\)"):
        parse_share("120%", "--nacked")
    assert parse_count("1e8", "n") == 100_000_000 and parse_count("50k", "n") == 50_000
    with pytest.raises(UsageError, match="must be a whole number"):
        parse_count("1.5", "--batch")
    with pytest.raises(UsageError, match=r"must be in 1\.\.10"):
        parse_count("11", "--batch", 1, 10)


def test_formats():
    assert format_duration_ms(1000) == "1s" and format_duration_ms(90_000) == "90s"
    assert format_duration_ms(512) == "512ms" and format_duration_ms(3_600_000) == "1h"
    assert format_rate(20.0) == "20k/s" and format_rate(0.5) == "500/s"
    assert format_bytes(1_395_864_371) == "1.3 GiB" and format_bytes(1_024_000) == "0.977 MiB"
    assert format_bytes(512) == "512 B"
