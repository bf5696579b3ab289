"""The design lab's comparisons (issue 27, item 2): ``sorted-chunks`` beside six other designs.

The figures live in ``data/design_lab/comparisons.csv``, one row per design; the derivation of
every figure, with its source (file and line at a tag, or a URL), is in
``data/design_lab/comparisons-notes.md``. This module only reads and checks that file:

- :func:`load` parses it, checks the columns (exactly :data:`COLUMNS`), the byte columns
  (numbers >= 0, or NaN when not applicable; never a bare string) and that every row names a
  design, a source and a basis; a corrupt file is a ``ValueError`` naming the file, the row
  and the column;
- :func:`table` renames the columns to headers that carry their units.

Units: ``memory_bytes_per_entry`` and ``disk_bytes_per_entry`` are bytes per tracked entry,
``memory_fixed_bytes`` bytes per tracker (or per wheel set, per broker: see the row's notes).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd

from trackerlab.core.paths import data_dir, display_path

#: The file's columns, in order.
COLUMNS = (
    "design",
    "system",
    "source",
    "memory_bytes_per_entry",
    "memory_fixed_bytes",
    "disk_bytes_per_entry",
    "precision",
    "ordering",
    "recovery",
    "basis",
    "notes",
)
#: Numeric columns, in bytes (NaN when not applicable).
BYTE_COLUMNS = ("memory_bytes_per_entry", "memory_fixed_bytes", "disk_bytes_per_entry")
#: Text columns that must not be empty.
REQUIRED_TEXT = ("design", "system", "source", "precision", "ordering", "recovery", "basis")
#: Spellings of "not applicable" in a byte column.
NAN_TEXT = ("", "nan", "NaN")
#: Display headers (units in every header).
HEADERS = {
    "design": "design",
    "system": "system",
    "memory_bytes_per_entry": "memory (B per entry)",
    "memory_fixed_bytes": "memory fixed (B)",
    "disk_bytes_per_entry": "disk (B per entry)",
    "precision": "precision",
    "ordering": "ordering",
    "recovery": "recovery",
    "basis": "basis",
    "source": "source",
    "notes": "notes",
}


def default_path() -> Path:
    """``data/design_lab/comparisons.csv`` of the repository."""
    return data_dir() / "design_lab" / "comparisons.csv"


def _bytes_value(text: str, where: str) -> float:
    """A byte cell: a finite number >= 0, or NaN for an empty / ``NaN`` cell."""
    cell = text.strip()
    if cell in NAN_TEXT:
        return math.nan
    try:
        value = float(cell)
    except ValueError:
        raise ValueError(f"{where}: {cell!r} is not a number of bytes (or NaN)") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{where}: {cell!r} must be a finite number of bytes >= 0")
    return value


def _read_table(path: Path, name: str) -> pd.DataFrame:
    """Every cell as text; a row whose field count differs from the header's is refused
    (``pandas.read_csv`` would silently turn extra leading fields into an index)."""
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.reader(handle))
    if not records:
        raise ValueError(f"{name}: not a CSV table (empty file)")
    header, body = records[0], [r for r in records[1:] if r]
    for i, record in enumerate(body):
        if len(record) != len(header):
            raise ValueError(
                f"{name}, row {i + 1}: {len(record)} fields, the header has {len(header)}"
            )
    return pd.DataFrame(body, columns=header, dtype=str)


def load(path: str | Path | None = None) -> pd.DataFrame:
    """The comparisons table, checked: one row per design, byte columns as floats (NaN when
    not applicable). ``ValueError`` naming the file, the row (1-based data row and design) and
    the column on a corrupt file. O(rows)."""
    path = Path(path) if path is not None else default_path()
    name = display_path(path)
    raw = _read_table(path, name)
    missing = [c for c in COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(
            f"{name}: column {missing[0]!r} is missing (columns: {', '.join(COLUMNS)})"
        )
    extra = [c for c in raw.columns if c not in COLUMNS]
    if extra:
        raise ValueError(f"{name}: unexpected column {extra[0]!r} (columns: {', '.join(COLUMNS)})")
    if raw.empty:
        raise ValueError(f"{name}: no rows")
    frame = raw[list(COLUMNS)].reset_index(drop=True)
    parsed: dict[str, list[float]] = {col: [] for col in BYTE_COLUMNS}
    for i, row in enumerate(frame.to_dict("records")):
        label = f"{name}, row {i + 1} ({row['design'].strip() or 'no design'})"
        for col in REQUIRED_TEXT:
            if not row[col].strip():
                raise ValueError(f"{label}, column {col!r}: empty")
        for col in BYTE_COLUMNS:
            parsed[col].append(_bytes_value(row[col], f"{label}, column {col!r}"))
    frame = frame.assign(**parsed)
    dupes = frame["design"][frame["design"].duplicated()]
    if len(dupes):
        raise ValueError(f"{name}, column 'design': {dupes.iloc[0]!r} appears twice")
    return frame


def elias_fano_bits(n: int, universe: int) -> int:
    """Bits of an Elias-Fano code of ``n`` distinct sorted keys in ``[0, universe)``: at most
    ``n * (2 + ceil(log2(universe / n)))`` (lower bits ``ceil(log2(U/n))`` each, upper bits
    ``2n``). Sources: S. Vigna, "Quasi-succinct indices", WSDM 2013, pp. 83-92; Lucene's
    ``EliasFanoEncoder`` javadoc ("uses at most 2 + ceil(log(upperBound/numValues)) bits per
    encoded number"). Integer arithmetic (no float log). O(log U)."""
    if n < 1 or universe < n:
        raise ValueError(f"Elias-Fano needs 1 <= n <= universe, got n={n}, universe={universe}")
    low = 0
    while n << low < universe:  # ceil(log2(universe / n))
        low += 1
    return n * (2 + low)


def table(frame: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """The display frame: headers with units, byte figures rounded to ``digits``. O(rows)."""
    out = frame[list(COLUMNS)].copy()
    for col in BYTE_COLUMNS:
        out[col] = out[col].round(digits)
    return out.rename(columns=HEADERS)
