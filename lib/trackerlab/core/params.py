"""Validation of parameters shared by the CLI, the notebooks and Spark sweeps.

Every check raises :class:`~trackerlab.core.errors.UsageError` with a message that names the
parameter, the allowed range and the value received, so that all entry points report bad
input the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from numbers import Integral, Real
from typing import TypeVar

from trackerlab.core.errors import UsageError, shown

T = TypeVar("T")

#: Seeds: the counter-based generator (:mod:`trackerlab.core.rng`) packs a seed and a stream
#: number into one 64-bit key, ``seed * 256 + stream``, so seeds have 56 bits; a larger one
#: would alias a smaller one.
MAX_SEED = (1 << 56) - 1
#: Ledger ids and other Java ``long`` values.
MAX_LONG = (1 << 63) - 1


def _num(x: float) -> str:
    """A bound as people read it: ``1e-09``, ``1e+06``, ``2^63 - 1``, ``100000``."""
    if isinstance(x, int) and not isinstance(x, bool):
        for bits in (31, 32, 53, 56, 62, 63, 64):
            if x == (1 << bits) - 1:
                return f"2^{bits} - 1"
        return str(x)
    return f"{x:g}"


def _range_text(lo: float | None, hi: float | None, *, lo_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f"in {_num(lo)}..{_num(hi)}" if not lo_open else f"> {_num(lo)} and <= {_num(hi)}"
    if lo is not None:
        return f"> {_num(lo)}" if lo_open else f">= {_num(lo)}"
    if hi is not None:
        return f"<= {_num(hi)}"
    return ""


def _with(range_text: str) -> str:
    return f" {range_text}" if range_text else ""


def check_int(name: str, value: object, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as an int in ``lo..hi`` (inclusive), or raise UsageError."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        # ASCII digits only ("４" is no number here), and few enough for int() (4300 at most)
        if (isinstance(value, float) and value.is_integer()) or (
            isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]{1,100}\s*", value)
        ):
            value = int(value)
        else:
            raise UsageError(
                f"{name} must be an integer{_with(_range_text(lo, hi))}, got {shown(value)}"
            )
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise UsageError(f"{name} must be an integer{_with(_range_text(lo, hi))}, got {value}")
    return value


def check_float(
    name: str,
    value: object,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
) -> float:
    """Return ``value`` as a finite float in the range, or raise UsageError.

    ``lo_open=True`` makes the lower bound exclusive (``> lo``), as for rates.
    """
    try:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, str) and not value.isascii():
            raise ValueError  # float() reads "４.１" too
        number = float(value) if isinstance(value, (Real, str)) else math.nan
    except ValueError:
        number = math.nan
    rng = _range_text(lo, hi, lo_open=lo_open)
    if not math.isfinite(number):
        raise UsageError(f"{name} must be a number{_with(rng)}, got {shown(value)}")
    too_low = lo is not None and (number <= lo if lo_open else number < lo)
    if too_low or (hi is not None and number > hi):
        raise UsageError(f"{name} must be a number{_with(rng)}, got {value}")
    return number


def check_positive(name: str, value: object) -> float:
    """Return ``value`` as a float > 0 (rates, durations), or raise UsageError."""
    return check_float(name, value, 0, None, lo_open=True)


def check_seed(name: str, value: object) -> int:
    """A seed in ``0..2^56 - 1`` (see :data:`MAX_SEED`), or UsageError."""
    try:
        return check_int(name, value, 0, MAX_SEED)
    except UsageError:
        raise UsageError(f"{name} must be an integer in 0..2^56 - 1, got {value!r}") from None


def check_text(name: str, value: object) -> str:
    """A non-empty string (an empty ``--only ''`` must not mean "everything")."""
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{name} must not be empty, got {value!r}")
    return value.strip()


def check_choice(name: str, value: object, choices: Iterable[T]) -> T:
    """Return ``value`` if it is one of ``choices``, or raise UsageError listing them."""
    options = list(choices)
    if value not in options:
        listed = ", ".join(str(c) for c in options)
        raise UsageError(f"unknown {name} {value!r}; choose one of: {listed}")
    return value
