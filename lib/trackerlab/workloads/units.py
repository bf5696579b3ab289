"""Units of user input: durations (``500ms``, ``1.5s``, ``1d``).

Every duration a user types goes through :func:`parse_duration_ms`, so the CLI, grids and
notebooks read them the same way.
"""

from __future__ import annotations

import re

from trackerlab.errors import UsageError

#: Milliseconds per unit suffix.
UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
#: The longest duration a user may type: 1000 years. Times stay below 2^53 ms (exact in a
#: double, far from int64 overflow) even after adding a delay to a publish time.
MAX_DURATION_MS = 1000 * 365 * 86_400_000


def parse_duration_ms(text: str, name: str = "--delay") -> float:
    """``'90'`` → 90 ms, ``'1.5s'`` → 1500, ``'1d'`` → 86400000; UsageError otherwise. O(1)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*(ms|s|m|h|d)?\s*", text)
    if not match:
        raise UsageError(f"{name}: cannot read duration {text!r} (use e.g. 500, 1.5s, 10m, 1d)")
    ms = float(match.group(1)) * UNITS_MS[match.group(2) or "ms"]
    if ms > MAX_DURATION_MS:
        raise UsageError(f"{name}: duration {text.strip()!r} is longer than 1000 years")
    return ms
