"""Numbers as a reader wants them: thousands separators, a few significant figures, no ``64.0``.

``format_number(251658240)`` is ``251,658,240``; ``format_number(2.5166e+01)`` is ``25.2``;
``format_number(64.0)`` is ``64``; ``format_number(0.0075)`` is ``0.00750``; a number below
10⁻⁴ is written ``1.20×10⁻⁷``, never in e-notation. Tables
(:mod:`~trackerlab.reporting.tables`), headlines and conclusions use the same rules, so a
figure reads the same wherever it appears. O(1) per value.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "format_bytes",
    "format_delay",
    "format_duration",
    "format_number",
    "format_percent",
    "format_ratio",
]

#: Digits and minus sign as superscripts, for powers of ten (``×10⁻⁷``, never ``e-07``).
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: Binary units, as every seed uses them ("MB" there is MiB).
BYTE_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def _missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pandas NA
    except (TypeError, ValueError):
        return False


def format_number(value: object, sig: int = 3) -> str:
    """``value`` with thousands separators and ``sig`` significant figures.

    Integers (and floats holding an integer) print every digit; other floats are rounded to
    ``sig`` significant figures but never lose integer digits (``12,345.6`` -> ``12,346``).
    Missing values print as an empty string, booleans as ``yes`` / ``no``, text unchanged.
    """
    if _missing(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if not isinstance(value, numbers.Real):
        return str(value)
    v = float(value)
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    rounded = float(f"{v:.{sig}g}")
    magnitude = math.floor(math.log10(abs(rounded)))
    if magnitude >= sig - 1:
        return f"{v:,.0f}"
    if magnitude < -4:
        mantissa = rounded / 10.0**magnitude
        exponent = str(magnitude).translate(_SUPERSCRIPT)
        return f"{mantissa:.{max(sig - 1, 0)}f}×10{exponent}"
    decimals = max(0, sig - 1 - magnitude)
    return f"{rounded:,.{decimals}f}"


def format_percent(value: object, sig: int = 2) -> str:
    """A fraction as a percentage: ``0.0123`` -> ``1.2%``."""
    if _missing(value):
        return ""
    return f"{format_number(float(value) * 100, sig)}%"  # type: ignore[arg-type]  # a value that is not missing is a number; float() raising otherwise is intended


def format_ratio(value: object, sig: int = 3) -> str:
    """A ratio as a multiplier: ``3.04`` -> ``×3.04``."""
    if _missing(value):
        return ""
    return f"×{format_number(value, sig)}"


def format_bytes(value: object, sig: int = 3) -> str:
    """Bytes in the largest binary unit that keeps the number at 1 or more: ``5.2 MiB``."""
    if _missing(value):
        return ""
    v = float(value)  # type: ignore[arg-type]  # a value that is not missing is a number; float() raising otherwise is intended
    for unit, size in BYTE_UNITS:
        if abs(v) >= size:
            return f"{format_number(v / size, sig)} {unit}"
    return f"{format_number(v, sig)} B"


#: Duration units for prose, largest first (ms per unit).
DURATION_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000))


def format_duration(ms: float, sig: int = 3) -> str:
    """Milliseconds in the largest unit that keeps the number at 1 or more: ``1 h``."""
    if _missing(ms):
        return ""
    for unit, size in DURATION_UNITS:
        if abs(ms) >= size:
            return f"{format_number(ms / size, sig)} {unit}"
    return f"{format_number(ms, sig)} ms"


def format_delay(spec: str) -> str:
    """A delay spec in words, to follow "delays": ``uniform:0:1h`` -> ``spread uniformly from
    0 to 1 h``, ``fixed:1d`` -> ``fixed at 1 d``."""
    from trackerlab.workloads.delay_spec import DelaySpec

    return _delay_words(DelaySpec.parse(spec))


def _delay_words(d, part: bool = False) -> str:
    """Words for one distribution; ``part`` is a mixture's component (terser)."""
    if d.kind == "fixed":
        return (
            f"at {format_duration(d.params[0])}"
            if part
            else f"fixed at {format_duration(d.params[0])}"
        )
    if d.kind == "uniform":
        lo, hi = d.params
        low = format_duration(lo) if lo else "0"
        if part:
            return f"between {low} and {format_duration(hi)}"
        return f"spread uniformly from {low} to {format_duration(hi)}"
    if d.kind == "exponential":
        mean = format_duration(d.params[0])
        return (
            f"exponential (mean {mean})"
            if part
            else (f"exponentially distributed with a mean of {mean}")
        )
    if d.kind == "mix":
        return ", ".join(
            f"{format_percent(w)} {_delay_words(p, part=True)}"
            for w, p in zip(d.weights, d.parts, strict=True)
        )
    return d.text or d.kind
