"""The five seed documents by title, never by file name.

The seeds are stored as ``NNN_<16 hex digits>.txt``; ``data/published/published_numbers.csv``
names them that way. Reports and the index name them by :func:`seed_title` (or the short
form, :func:`seed_short`), and :func:`name_seeds` rewrites any file name left in a text.
"""

from __future__ import annotations

import re

__all__ = ["SEEDS", "name_seeds", "seed_short", "seed_title"]

#: Seed number -> (short name, title with its source).
SEEDS: dict[str, tuple[str, str]] = {
    "000": (
        "PIP-393",
        "PIP-393: Improve performance of Negative Acknowledgement (apache/pulsar #23601)",
    ),
    "001": (
        "TimeBucket blog",
        "The TimeBucket blog: a time-bucketed index for delayed messages (in Chinese)",
    ),
    "002": (
        "#26024",
        "Cut PendingAcksMap per-entry overhead with primitive storage (apache/pulsar #26024)",
    ),
    "003": (
        "#15500",
        "Optimization of massive delayed message scenarios (apache/pulsar #15500)",
    ),
    "004": (
        "Go client #976",
        "Support auto scaled consumer receiver queue (apache/pulsar-client-go #976)",
    ),
}

#: A seed's file name (``001_b11b1d0ae919959a.txt``), with or without the extension.
SEED_FILE = re.compile(r"\b(\d{3})_[0-9a-f]{16}(?:\.txt)?\b")


def _number(seed: str) -> str:
    match = SEED_FILE.search(seed)
    number = match.group(1) if match else seed.strip()[:3]
    if number not in SEEDS:
        raise KeyError(f"unknown seed {seed!r}; known: {', '.join(SEEDS)}")
    return number


def seed_title(seed: str) -> str:
    """The title of a seed given by number (``"001"``) or file name."""
    return SEEDS[_number(seed)][1]


def seed_short(seed: str) -> str:
    """The short name of a seed (``"TimeBucket blog"``)."""
    return SEEDS[_number(seed)][0]


def name_seeds(text: str) -> str:
    """``text`` with every seed file name replaced by the seed's title."""
    return SEED_FILE.sub(
        lambda m: SEEDS[m.group(1)][1] if m.group(1) in SEEDS else m.group(0), text
    )
