"""The numbers the five seed documents publish (``data/published/published_numbers.csv``).

Units follow the seeds. Their "MB" is computed as ``bytes / 1024 / 1024`` everywhere it can
be checked (PIP-393: ``4*1000000/1024/1024 = 3.81MB``; TimeBucket: ``8640000*24/1024/1024 =
198MB``), so ``MB`` here means MiB; ``KiB`` and ``MiB`` are explicit in seed 002.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

from trackerlab.core.errors import UsageError
from trackerlab.core.paths import published_csv

#: Bytes per published unit. "MB" is MiB in every seed (see the module docstring).
UNIT_BYTES = {
    "B": 1,
    "B/entry": 1,
    "B/message": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "MB": 1024**2,
}


@dataclass(frozen=True)
class PublishedNumber:
    """One row of the CSV: the value as printed, and as a float where it is one."""

    id: str
    seed: str
    system: str
    quantity: str
    parameters: str
    published: str
    unit: str
    kind: str
    note: str

    @property
    def value(self) -> float | None:
        """The published value as a number, or None for a formula such as ``8192/M``."""
        try:
            return float(self.published)
        except ValueError:
            return None

    @property
    def unit_bytes(self) -> int | None:
        """Bytes in one published unit, or None for non-byte units (messages)."""
        return UNIT_BYTES.get(self.unit)


@functools.cache
def _load(path: Path) -> dict[str, PublishedNumber]:
    with path.open(newline="") as fh:
        return {row["id"]: PublishedNumber(**row) for row in csv.DictReader(fh)}


def load_published(path: Path | None = None) -> dict[str, PublishedNumber]:
    """All published numbers by id (N01..N57), in file order."""
    path = path or published_csv()
    if not path.is_file():
        raise UsageError(f"published numbers file {path} not found")
    return dict(_load(path))
