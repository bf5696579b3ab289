"""One colour per design, the same in every report and figure.

Keyed by the design's catalog name (:data:`trackerlab.catalog.CATALOG`): designs take the
palette's entries in catalog order, so the designs of one tracker, registered together,
never share a colour. O(number of designs) once.
"""

from __future__ import annotations

import zlib
from functools import cache

__all__ = ["PALETTE", "design_color", "design_colors"]

#: tab10, then tab20b/tab20c's darker shades, then lighter ones: 26 distinct colours.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd",
    "#e6550d", "#31a354", "#756bb1", "#636363", "#9c9ede", "#cedb9c", "#e7ba52", "#e7969c",
    "#de9ed6", "#6baed6",
)  # fmt: skip


@cache
def design_colors() -> dict[str, str]:
    """Design name -> colour (``#rrggbb``) for every design of the catalog."""
    from trackerlab.catalog.designs import CATALOG

    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(CATALOG)}


def design_color(name: str) -> str:
    """The colour of design ``name``; a name outside the catalog (a variant a notebook
    labels, ``time-buckets-long-bitmap (wraps-roaring)``) takes its base design's colour,
    else a stable one from the palette."""
    colors = design_colors()
    base = name.split(" (")[0]
    if base in colors:
        return colors[base]
    return PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]
