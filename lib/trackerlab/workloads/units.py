"""Units of user input: durations, rates, byte sizes, shares and counts.

Every value a user types goes through one of these parsers, so the CLI, workload files,
grids and notebooks read them the same way. A quantity that needs a unit must carry one: a
bare ``3600`` is refused with a line saying which units to add (``0`` alone is accepted: it
means nothing whatever the unit).

- durations: ``500ms``, ``1.5s``, ``10m`` (or ``10min``), ``1h``, ``2d`` → milliseconds;
- rates: ``20k/s``, ``500/s``, ``8/ms``, ``1.2M/min``, ``3600/h`` → messages per millisecond;
- byte sizes: ``512MiB``, ``64MB``, ``1GiB``, ``100KiB``, ``4096B`` → bytes;
- shares: ``2%`` or ``0.02`` → a fraction in 0..1;
- counts: ``1e8``, ``20_000``, ``50k``, ``1.2M`` → an integer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from trackerlab.core.errors import UsageError, shown

#: Milliseconds per duration unit.
UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}
#: Multipliers of count and rate prefixes.
PREFIXES = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
#: Bytes per size unit (SI and binary).
UNITS_BYTES = {
    "B": 1,
    "kB": 1000,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
}
_NUMBER = r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)"
#: A number with its sign as a group of its own: a negative value gets its range, not "cannot read".
_SIGNED = r"(-?)" + _NUMBER
_DURATION_UNITS = "ms, s, m, h or d"
#: The longest duration a user may type: 1000 years. Times stay below 2^53 ms (exact in a
#: double, far from int64 overflow) even after adding a delay to a publish time.
MAX_DURATION_MS = 1000 * 365 * 86_400_000


def parse_duration_ms(text: object, name: str = "--delay") -> float:
    """``'500ms'`` → 500, ``'1.5s'`` → 1500, ``'1d'`` → 86,400,000, ``'0'`` → 0; a bare
    number is a UsageError asking for a unit. O(len(text))."""
    value = str(text).strip()
    match = re.fullmatch(_SIGNED + r"\s*(ms|s|min|m|h|d)?", value)
    if not match:
        raise UsageError(
            f"{name}: cannot read duration {shown(value)} (use a number and a unit: 500ms, 1.5s, "
            "10m, 1h, 2d)"
        )
    if match.group(1):
        raise UsageError(f"{name}: a duration must be >= 0, got {shown(value)}")
    number = float(match.group(2))
    unit = match.group(3)
    if unit is None:
        if number == 0:
            return 0.0
        hint = f"{value}s" if len(value) < 20 else "30s"
        raise UsageError(f"{name}: {shown(value)} needs a unit ({_DURATION_UNITS}), e.g. {hint}")
    result = number * UNITS_MS[unit]
    if not result <= MAX_DURATION_MS:  # inf and nan too
        raise UsageError(f"{name}: duration {shown(value)} is longer than 1000 years")
    return result


def duration_in(unit: str, name: str) -> Callable[[object], float]:
    """An argparse ``type`` for a flag counted in ``unit`` (``--days``, ``--step-s``): a bare
    number is in that unit (``--days 2``), one with a unit is converted (``--days 12h`` ->
    0.5, ``--step-s 1m`` -> 60); anything else is :func:`parse_duration_ms`'s one line
    naming ``name``. O(len(text))."""

    def parse(text: object) -> float:
        value = str(text).strip()
        if re.fullmatch(_SIGNED, value):  # a negative one reaches the command's range check
            ms = float(value) * UNITS_MS[unit]
            if not abs(ms) <= MAX_DURATION_MS:  # 1e999 and 5000 digits too
                raise UsageError(f"{name}: duration {shown(value)} is longer than 1000 years")
            return ms / UNITS_MS[unit]
        return parse_duration_ms(value, name) / UNITS_MS[unit]

    return parse


def format_duration_ms(ms: float) -> str:
    """The shortest exact spelling of ``ms``: 1000 → ``1s``, 90,000 → ``90s``, 512 → ``512ms``."""
    for unit in ("d", "h", "m", "s"):
        size = UNITS_MS[unit]
        if ms >= size and ms % size == 0:
            return f"{ms / size:g}{unit}"
    return f"{ms:.15g}ms"


def about_duration_ms(ms: float) -> str:
    """A duration for people, to three digits in the unit that keeps it short: ``4095ms``,
    ``18.2s``, ``17.5m``, ``2.5h``, ``1.78d`` (an exact setting: :func:`format_duration_ms`).
    O(1)."""
    for unit, size, below in (
        ("ms", 1, 10_000),
        ("s", 1000, 120_000),
        ("m", 60_000, 7_200_000),
        ("h", 3_600_000, 172_800_000),
    ):
        if ms < below:
            return f"{ms / size:.0f}{unit}" if unit == "ms" else f"{ms / size:.3g}{unit}"
    days = ms / 86_400_000
    return f"{days:.3g}d" if days < 1000 else f"{days:,.0f}d"


def parse_rate_per_ms(text: object, name: str = "--rate") -> float:
    """``'20k/s'`` → 20.0 messages per ms; ``'8/ms'``, ``'1.2M/min'``, ``'3600/h'``. The rate must
    be > 0 and carry a time unit. O(len(text))."""
    value = str(text).strip()
    match = re.fullmatch(_SIGNED + r"\s*([kKMG]?)\s*(?:msg)?\s*/\s*(ms|s|min|m|h|d)", value)
    if not match:
        hint = f"{value}/s" if re.fullmatch(_NUMBER, value) and len(value) < 20 else "20k/s"
        raise UsageError(
            f"{name}: cannot read rate {shown(value)} (use messages per time unit, e.g. {hint}, "
            "500/ms, 1.2M/min)"
        )
    number = float(match.group(1) + match.group(2)) * PREFIXES[match.group(3)]
    rate = number / UNITS_MS[match.group(4)]
    if not (math.isfinite(rate) and rate > 0):  # a negative rate too (-0/s included)
        raise UsageError(f"{name}: the rate must be > 0, got {shown(value)}")
    return rate


def format_rate(per_ms: float, digits: int = 6) -> str:
    """``20.0`` → ``20k/s``; ``0.5`` → ``500/s``; ``digits`` significant digits at most."""
    per_s = per_ms * 1000
    for prefix, size in (("M", 1e6), ("k", 1e3)):
        if per_s >= size:
            return f"{per_s / size:.{digits}g}{prefix}/s"
    return f"{per_s:.{digits}g}/s"


def parse_bytes(text: object, name: str) -> int:
    """``'512MiB'`` → 536,870,912; ``'64MB'``, ``'1GiB'``, ``'4096B'``; a bare number needs a unit.
    O(len(text))."""
    value = str(text).strip()
    match = re.fullmatch(_NUMBER + r"\s*(B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?", value)
    if not match:
        raise UsageError(
            f"{name}: cannot read a size from {shown(value)} (use e.g. 512MiB, 64MB, 1GiB)"
        )
    number = float(match.group(1))
    if match.group(2) is None:
        if number == 0:
            return 0
        raise UsageError(f"{name}: {shown(value)} needs a unit (B, KiB, MiB, GiB or kB, MB, GB)")
    result = number * UNITS_BYTES[match.group(2)]
    if not math.isfinite(result) or result >= 2**63:
        raise UsageError(f"{name}: size {shown(value)} is too large")
    return round(result)


def format_bytes(n: float) -> str:
    """Binary units, three significant figures: 1,395,864,371 → ``1.3 GiB``, 1,023,000 →
    ``999 KiB``, 1,024,000 → ``0.977 MiB`` (a unit is used below 1000 of it)."""
    units = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))
    for i, (unit, size) in enumerate(units):
        if abs(n) >= size or (i + 1 < len(units) and abs(n) >= 1000 * units[i + 1][1]):
            if abs(n) / size >= 1000:  # only past the largest unit
                return f"{n / size:,.0f} {unit}"
            return f"{n / size:.3g} {unit}"
    return f"{n:,.0f} B"


def parse_share(text: object, name: str) -> float:
    """``'2%'`` → 0.02; ``'0.3'`` → 0.3. Must lie in 0..1 (0%..100%). O(len(text))."""
    value = str(text).strip()
    match = re.fullmatch(_SIGNED + r"\s*(%?)", value)
    if not match:
        raise UsageError(f"{name}: cannot read a share from {shown(value)} (use e.g. 2% or 0.02)")
    share = float(match.group(2)) / (100 if match.group(3) else 1)
    if match.group(1) or not 0 <= share <= 1:
        raise UsageError(f"{name} must be a share in 0..1 (0%..100%), got {shown(value)}")
    return share


def parse_count(text: object, name: str, lo: int = 0, hi: int | None = None) -> int:
    """``'1e8'``, ``'20_000'``, ``'50k'``, ``'1.2M'`` → an integer in ``lo..hi``. O(len(text))."""
    value = str(text).strip().replace("_", "")
    match = re.fullmatch(_NUMBER + r"\s*([kKMG]?)", value)
    number = float(match.group(1)) * PREFIXES[match.group(2)] if match else math.nan
    bound = f"in {lo:,}..{hi:,}" if hi is not None else f">= {lo:,}"
    if not (math.isfinite(number) and number.is_integer()):
        raise UsageError(
            f"{name} must be a whole number {bound} (e.g. 50000, 1e8, 50k), got {shown(text)}"
        )
    count = int(number)
    if count < lo or (hi is not None and count > hi):
        raise UsageError(f"{name} must be {bound}, got {count:,}")
    return count
