"""Numbers, durations and delays as a reader reads them."""

import math

import numpy as np
import pytest

from trackerlab.reporting import (
    format_bytes,
    format_delay,
    format_duration,
    format_number,
    format_percent,
    format_ratio,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (251658240, "251,658,240"),  # integers keep every digit, with separators
        (2.5166e01, "25.2"),  # the 2.5166e+01
        (5.380e02, "538"),  # and 5.380e+02
        (64.0, "64"),  # bucket counts are not "64.0"
        (np.int64(12345), "12,345"),
        (12345.6, "12,346"),  # never drop integer digits
        (0.0075, "0.00750"),
        (9.996, "10.0"),  # rounding carries into the next magnitude
        (-0.5, "-0.500"),
        (1.2e-7, "1.20×10⁻⁷"),  # a reader does not read e-notation
        (0.0, "0"),
        (math.inf, "∞"),
        (float("nan"), ""),
        (None, ""),
        (np.bool_(True), "yes"),
        (False, "no"),
        ("text", "text"),
    ],
)
def test_format_number(value, text):
    assert format_number(value) == text


def test_significant_figures_are_a_parameter():
    assert format_number(3.14159, 2) == "3.1"
    assert format_number(3.14159, 5) == "3.1416"


def test_units():
    assert format_bytes(5 * 2**20) == "5 MiB"
    assert format_bytes(1536) == "1.50 KiB"
    assert format_bytes(300) == "300 B"
    assert format_percent(0.0123) == "1.2%"
    assert format_ratio(3.04) == "×3.04"
    assert format_duration(3_600_000) == "1 h"
    assert format_duration(90_000) == "1.50 min"
    assert format_duration(250) == "250 ms"


def test_delays_in_words():
    assert format_delay("fixed:1h") == "fixed at 1 h"
    assert format_delay("uniform:0:1h") == "spread uniformly from 0 to 1 h"
    assert format_delay("exponential:10m") == "exponentially distributed with a mean of 10 min"
    assert format_delay("mix:0.8*uniform:0:60s+0.2*uniform:1d:30d") == (
        "80% between 0 and 1 min, 20% between 1 d and 30 d"
    )
    assert format_delay("mix:0.5*fixed:1s+0.5*exponential:1m") == (
        "50% at 1 s, 50% exponential (mean 1 min)"
    )
