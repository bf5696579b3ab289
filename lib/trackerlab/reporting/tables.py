"""Tables for a reader: chosen columns, units in the headers, numbers that read, long tables cut.

A notebook shows a table with :func:`show_table`::

    show_table(
        grid,
        {"rate_per_ms": "rate (msg/ms)", "buckets": "buckets",
         "jvm_b_per_entry": Column("JVM bytes per entry (B)", sig=3)},
        name="bucket-grid",
        keep=grid.trim_bits == 8,          # the rows worth reading when the table is long
        caption="Bytes per entry over rate and trim bits",
    )

Only the listed columns appear, in that order, under the reader's headers; numbers go
through :func:`~trackerlab.reporting.formatting.format_number` (thousands separators, ``sig``
significant figures, integers without ``.0``). A table longer than ``max_rows`` collapses to
its ``keep`` rows (else its first and last rows) and links to the full table as CSV:
``trackerlab report`` writes it beside the HTML as ``NOTEBOOK.NAME.csv``; in JupyterLab the
link downloads it. A table shows its columns, in the order given, while they fit the page's
width (:data:`MAX_TABLE_PX`, estimated from the longest word of each column); the columns
after go to the CSV, named under the table. Long text wraps. Missing values show as "—",
booleans as yes / no, and a frame's index never shows unless it holds named levels (they
become ordinary columns).
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from trackerlab.reporting.formatting import format_number

__all__ = ["MISSING", "TABLE_MIME", "Column", "format_table", "reader_header", "show_table"]

#: What a missing value (None, NaN) shows as in a table cell.
MISSING = "—"
#: Unit suffixes of the project's column names and the unit a header shows for each.
UNIT_SUFFIXES = (
    ("_b_per_entry", "B per entry"),
    ("_bytes_per_entry", "B per entry"),
    ("_per_entry", "B per entry"),
    ("_bytes", "B"),
    ("_mib", "MiB"),
    ("_MiB", "MiB"),
    ("_kib", "KiB"),
    ("_gib", "GiB"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_ns", "ns"),
    ("_s", "s"),
    ("_b", "B"),
    ("_pct", "%"),
    ("_per_ms", "per ms"),
    ("_per_s", "per s"),
)
#: Whole-word abbreviations a header spells the way a reader knows them.
HEADER_WORDS = {"jvm": "JVM", "mib": "MiB", "b": "B", "id": "id", "rb": "RB", "pip": "PIP"}

#: MIME type of the full table that the report runner writes beside the HTML.
TABLE_MIME = "application/vnd.trackerlab.table+json"
#: Set by ``trackerlab report`` for the kernel: the executed notebook's name.
REPORT_NAME_ENV = "TRACKERLAB_REPORT_NAME"

_SLUG = re.compile(r"[^a-z0-9]+")
_counter = {"tables": 0}


@dataclass(frozen=True)
class Column:
    """How one column reads: its header (unit in it), a scale and a number format.

    ``scale`` divides the values (bytes to MiB: ``2**20``); ``fmt`` is a format string
    (``"{:.1%}"``) or a callable and replaces the significant-figure rule.
    """

    header: str
    scale: float = 1.0
    sig: int = 3
    fmt: str | Callable[[object], str] | None = None

    def render(self, value: object) -> str:
        if isinstance(value, int | float | np.integer | np.floating) and not isinstance(
            value, bool | np.bool_
        ):
            value = value / self.scale if self.scale != 1 else value
        if _missing(value):
            return MISSING
        if self.fmt is None:
            return format_number(value, self.sig)
        return self.fmt(value) if callable(self.fmt) else self.fmt.format(value)


ColumnSpec = str | Column


def _missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and bool(np.isnan(value))


def reader_header(name: object) -> str:
    """A column name as a header: ``per_topic_mib`` -> ``per topic (MiB)``,
    ``early_ms`` -> ``early (ms)``, ``pulsar_runs_it`` -> ``pulsar runs it``. O(len(name))."""
    text = str(name)
    unit = ""
    for suffix, shown in UNIT_SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text, unit = text[: -len(suffix)], shown
            break
    words = [HEADER_WORDS.get(w.lower(), w) for w in text.replace("_", " ").split()]
    head = " ".join(words)
    return f"{head} ({unit})" if unit else head


def _columns(
    frame: pd.DataFrame, columns: Mapping[str, ColumnSpec] | Sequence[str] | None, sig: int
):
    if columns is None:
        columns = list(frame.columns)
    if not isinstance(columns, Mapping):
        columns = {c: reader_header(c) for c in columns}
    specs = {}
    for source, spec in columns.items():
        if source not in frame.columns:
            raise KeyError(f"show_table: no column {source!r}; the frame has {list(frame.columns)}")
        specs[source] = Column(spec, sig=sig) if isinstance(spec, str) else spec
    return specs


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    """Index levels become ordinary columns unless the index is a plain 0..n-1 range."""
    if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None:
        return frame
    return frame.reset_index()


def format_table(
    frame: pd.DataFrame,
    columns: Mapping[str, ColumnSpec] | Sequence[str] | None = None,
    sig: int = 3,
) -> pd.DataFrame:
    """The table as text, one string per cell, under the reader's headers."""
    frame = _flat(frame)
    specs = _columns(frame, columns, sig)
    return pd.DataFrame(
        {spec.header: [spec.render(v) for v in frame[src].tolist()] for src, spec in specs.items()},
        index=frame.index,
    )


def _scaled(frame: pd.DataFrame, specs: Mapping[str, Column]) -> pd.DataFrame:
    """The full table for the CSV: reader's headers, scaled values at full precision."""
    out = {}
    for src, spec in specs.items():
        values = frame[src]
        if spec.scale != 1 and pd.api.types.is_numeric_dtype(values):
            values = values / spec.scale
        out[spec.header] = values.to_numpy()
    return pd.DataFrame(out)


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")[:40] or "table"


def _csv_href(slug: str, csv_text: str) -> str:
    report = os.environ.get(REPORT_NAME_ENV, "")
    if report:
        return html.escape(f"{report}.{slug}.csv")
    data = base64.b64encode(csv_text.encode()).decode()
    return f"data:text/csv;base64,{data}"


def _rows_to_show(frame: pd.DataFrame, keep: object, max_rows: int) -> tuple[np.ndarray, bool]:
    """Positions of the rows to show and whether the table was cut."""
    n = len(frame)
    if n <= max_rows:
        return np.arange(n), False
    if keep is None:
        half = max(1, max_rows // 2)
        return np.r_[np.arange(half), np.arange(n - (max_rows - half), n)], True
    mask = keep(frame) if callable(keep) else keep
    positions = np.flatnonzero(np.asarray(mask, dtype=bool))
    if len(positions) == 0:
        return _rows_to_show(frame, None, max_rows)
    return positions[:max_rows], True


#: Width (CSS px) a table may take: the report's output column at a 1280-px window.
MAX_TABLE_PX = 900
#: Estimated width of one character of a table cell (0.92em of a 16-px sans-serif font,
#: digits and lower case; generous so that an estimate never fits a table that does not).
_CHAR_PX = 8.0
#: Horizontal padding and border of one cell (0.7em on each side).
_CELL_PAD_PX = 22.0
#: Narrowest a wrapping text column gets (``min-width:8em`` below).
_TEXT_MIN_PX = 8 * 14.7


def _column_px(header: str, cells: Sequence[str], numeric: bool) -> float:
    """The narrowest a column can be drawn: its longest unbreakable word (header, text) or its
    longest cell (numbers do not wrap), plus padding. O(characters)."""
    words = [len(w) for w in str(header).split()] or [0]
    if numeric:
        words += [len(c) for c in cells]
        return max(words) * _CHAR_PX + _CELL_PAD_PX
    words += [len(w) for c in cells for w in str(c).split()]
    return max(max(words) * _CHAR_PX, _TEXT_MIN_PX) + _CELL_PAD_PX


def _columns_that_fit(text: pd.DataFrame, numeric: Sequence[bool], max_px: float) -> int:
    """How many leading columns fit ``max_px`` (at least two: a label and a value)."""
    total = 0.0
    for i, (header, num) in enumerate(zip(text.columns, numeric, strict=True)):
        total += _column_px(header, text.iloc[:, i].tolist(), num)
        if total > max_px and i >= 2:
            return i
    return len(text.columns)


_TABLE_CSS = (
    "border-collapse:collapse;font-size:0.92em;margin:0.2em 0;font-variant-numeric:tabular-nums"
)
_CELL_CSS = "padding:0.25em 0.7em;border-bottom:1px solid #e2e2e2;vertical-align:top"


def _html(text: pd.DataFrame, numeric: Sequence[bool], caption: str, note: str) -> str:
    head = "".join(
        f'<th style="{_CELL_CSS};text-align:{"right" if num else "left"}">'
        f"{html.escape(str(h))}</th>"
        for h, num in zip(text.columns, numeric, strict=True)
    )
    body = []
    for row in text.itertuples(index=False):
        cells = "".join(
            f'<td style="{_CELL_CSS};text-align:right;white-space:nowrap">{html.escape(v)}</td>'
            if num
            else f'<td style="{_CELL_CSS};text-align:left;min-width:8em;max-width:40em;'
            f'white-space:normal">{html.escape(v)}</td>'
            for v, num in zip(row, numeric, strict=True)
        )
        body.append(f"<tr>{cells}</tr>")
    cap = (
        f'<caption style="caption-side:top;text-align:left;font-weight:600;padding:0.2em 0">'
        f"{html.escape(caption)}</caption>"
        if caption
        else ""
    )
    foot = f'<p class="tl-table-note" style="margin:0.3em 0;color:#555">{note}</p>' if note else ""
    return (
        '<div class="tl-table" style="overflow-x:auto;max-width:100%">'
        f'<table style="{_TABLE_CSS}">{cap}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>{foot}</div>"
    )


def show_table(
    frame: pd.DataFrame,
    columns: Mapping[str, ColumnSpec] | Sequence[str] | None = None,
    *,
    name: str = "",
    caption: str = "",
    keep: object = None,
    max_rows: int = 15,
    sig: int = 3,
    csv: bool = False,
    max_px: float = MAX_TABLE_PX,
) -> None:
    """Display ``frame`` for a reader (see the module docstring).

    ``columns`` maps frame columns (index levels count as columns) to headers or
    :class:`Column` specs, or lists the columns to show under :func:`reader_header` headers
    (``None``: every column so); ``keep`` (a boolean mask or ``frame -> mask``) picks the rows a
    long table keeps; ``csv=True`` links the CSV even when nothing was cut. Columns are
    shown in the order given while they fit ``max_px`` (the page's width); the ones after
    move to the full table (CSV), so list the columns that answer the question first.
    """
    from IPython.display import display

    frame = _flat(frame)
    specs = _columns(frame, columns, sig)
    text = format_table(frame, specs, sig)
    numeric = [
        pd.api.types.is_numeric_dtype(frame[src]) and not pd.api.types.is_bool_dtype(frame[src])
        for src in specs
    ]
    positions, cut = _rows_to_show(frame, keep, max_rows)
    shown = text.iloc[positions]
    fit = _columns_that_fit(shown, numeric, max_px)
    hidden = list(shown.columns[fit:])
    shown, numeric = shown.iloc[:, :fit], numeric[:fit]
    bundle: dict[str, object] = {}
    note = ""
    if cut or csv or hidden:
        _counter["tables"] += 1
        slug = _slug(name or caption or f"table-{_counter['tables']}")
        csv_text = _scaled(frame, specs).to_csv(index=False)
        link = f'<a href="{_csv_href(slug, csv_text)}" download="{slug}.csv">full table (CSV)</a>'
        what = f"{len(shown)} of {len(frame):,} rows shown" if cut else f"{len(frame):,} rows"
        if hidden:
            what += (
                f"; {len(hidden)} more column{'s' if len(hidden) > 1 else ''} ("
                + html.escape(", ".join(map(str, hidden)))
                + ") in the full table"
            )
        note = f"{what}; {link}"
        bundle[TABLE_MIME] = {"name": slug, "csv": csv_text, "rows": len(frame)}
    plain = shown.to_string(index=False)
    if note:
        plain += f"\n({len(shown)} of {len(frame)} rows shown)" if cut else ""
    bundle["text/html"] = _html(shown, numeric, caption, note)
    bundle["text/plain"] = (f"{caption}\n" if caption else "") + plain
    display(bundle, raw=True)
