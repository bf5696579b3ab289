"""The one JSON encoder of everything trackerlab prints or writes as JSON: strict JSON.

Python's ``json.dumps`` writes ``NaN``, ``Infinity`` and ``-Infinity`` for non-finite floats,
which RFC 8259 (and ``jq``, browsers, Java parsers) refuse. :func:`dumps` writes ``null`` for
them instead (a "bytes per entry" of an empty tracker has no value), and ``default=str`` for
anything else json cannot encode (paths, dates). Core layer: the standard library only.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["dumps", "finite"]


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (nested in dicts, lists, tuples) as None.
    O(size of value)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` of :func:`finite` ``(value)`` with ``allow_nan=False`` (so a NaN
    that slipped through, e.g. a numpy float, raises instead of printing ``NaN``) and
    ``default=str`` unless given. O(size of value)."""
    options.setdefault("default", str)
    return json.dumps(finite(value), allow_nan=False, **options)
