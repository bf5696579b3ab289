"""show_table: reader columns, formats, collapsing and the CSV link."""

import base64
import re

import pandas as pd
import pytest

from trackerlab.reporting import Column, show_table
from trackerlab.reporting.tables import REPORT_NAME_ENV, TABLE_MIME, format_table

FRAME = pd.DataFrame(
    {
        "rate_per_ms": [1.0, 8.0, 50.0],
        "buckets": [196.0, 25.0, 4.0],
        "jvm_bytes": [2.5166e7, 5.38e2, 3 * 2**20],
        "label": ["a long explanation " * 5, "b", "c"],
    }
)


def test_columns_headers_and_formats():
    text = format_table(
        FRAME,
        {
            "rate_per_ms": "rate (msg/ms)",
            "buckets": "buckets",
            "jvm_bytes": Column("JVM (MiB)", scale=2**20),
        },
    )
    assert list(text.columns) == ["rate (msg/ms)", "buckets", "JVM (MiB)"]
    assert text["buckets"].tolist() == ["196", "25", "4"]
    assert text["JVM (MiB)"].tolist() == ["24.0", "0.000513", "3"]


def test_unknown_column_is_named():
    with pytest.raises(KeyError, match="no column 'nope'"):
        format_table(FRAME, {"nope": "x"})


def test_short_table_has_no_csv(shown, monkeypatch):
    monkeypatch.setenv(REPORT_NAME_ENV, "report")
    show_table(FRAME, {"rate_per_ms": "rate (msg/ms)", "label": "label"}, caption="Rates")
    (bundle,) = shown
    assert TABLE_MIME not in bundle
    html = bundle["text/html"]
    assert "overflow-x:auto" in html and "<caption" in html and "rate (msg/ms)" in html
    assert "white-space:normal" in html  # long text wraps


def test_long_table_collapses_to_kept_rows_and_links_full_csv(shown, monkeypatch):
    monkeypatch.setenv(REPORT_NAME_ENV, "delayed_delivery")
    big = pd.DataFrame({"x": range(40), "bytes": [1000.5 * i for i in range(40)]})
    show_table(
        big, {"x": "x", "bytes": "bytes (B)"}, name="Grid 1", keep=big.x % 10 == 0, max_rows=10
    )
    (bundle,) = shown
    html = bundle["text/html"]
    assert len(re.findall("<tr>", html)) == 1 + 4  # the header row and the kept rows
    assert "4 of 40 rows shown" in html
    assert 'href="delayed_delivery.grid-1.csv"' in html
    full = bundle[TABLE_MIME]
    assert full["name"] == "grid-1" and full["rows"] == 40
    lines = full["csv"].splitlines()
    assert lines[0] == "x,bytes (B)" and len(lines) == 41 and lines[-1] == "39,39019.5"


def test_outside_a_report_the_link_downloads_the_csv(shown, monkeypatch):
    monkeypatch.delenv(REPORT_NAME_ENV, raising=False)
    big = pd.DataFrame({"x": range(30)})
    show_table(big, max_rows=6)
    html = shown[0]["text/html"]
    data = re.search(r'href="data:text/csv;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(data).decode().splitlines()[1:4] == ["0", "1", "2"]
    assert "6 of 30 rows shown" in html  # first and last rows
    assert ">29<" in html and ">15<" not in html


def test_headers_carry_units_from_column_names():
    from trackerlab.reporting import reader_header

    assert reader_header("per_topic_mib") == "per topic (MiB)"
    assert reader_header("per_broker_mib") == "per broker (MiB)"
    assert reader_header("early_ms") == "early (ms)"
    assert reader_header("peak_client_MiB") == "peak client (MiB)"
    assert reader_header("jvm_bytes") == "JVM (B)"
    assert reader_header("pulsar_runs_it") == "pulsar runs it"
    text = format_table(pd.DataFrame({"per_topic_mib": [1.5], "note": ["x"]}), ["per_topic_mib"])
    assert list(text.columns) == ["per topic (MiB)"]


def test_human_numbers_missing_values_and_booleans():
    """The issue's cells: 1.292e+02 MiB, NaN, True/False, and a tiny value never in e-notation."""
    frame = pd.DataFrame(
        {
            "per_topic_mib": [1.292e02, float("nan"), 1234567.0, 1.2e-7],
            "under_limit": [True, False, True, False],
            "note": ["a", None, "c", "d"],
        },
        index=[10, 11, 12, 13],
    )
    text = format_table(frame, {"per_topic_mib": "per topic (MiB)", "under_limit": "under"})
    assert text["per topic (MiB)"].tolist() == ["129", "—", "1,234,567", "1.20×10⁻⁷"]
    assert text["under"].tolist() == ["yes", "no", "yes", "no"]
    assert format_table(frame, {"note": "note"})["note"].tolist() == ["a", "—", "c", "d"]
    assert format_table(frame, {"per_topic_mib": Column("x", fmt="{:.1f}")})["x"].tolist()[1] == "—"


def test_no_index_column_is_shown(shown):
    frame = pd.DataFrame({"per_topic_mib": [1.0, 2.0]}, index=pd.Index([7, 8]))
    show_table(frame, ["per_topic_mib"])
    html = shown[0]["text/html"]
    assert len(re.findall(r"<th[ >]", html)) == 1  # one header, no index column
    assert ">7<" not in html and "per topic (MiB)" in html


def test_columns_beyond_the_page_width_move_to_the_csv(shown, monkeypatch):
    """Twelve columns of 17-character numbers ("1,234,567,890,123": 17 x 8 + 22 = 158 px each)
    do not fit 900 px: the first five fit (790 px, a sixth makes 948), the others are named
    under the table and kept in the CSV."""
    monkeypatch.setenv(REPORT_NAME_ENV, "report")
    frame = pd.DataFrame({f"c{i}": [1234567890123.0 + i] for i in range(12)})
    show_table(frame, {f"c{i}": f"c{i}" for i in range(12)}, name="wide")
    (bundle,) = shown
    html = bundle["text/html"]
    assert len(re.findall(r"<th[ >]", html)) == 5
    assert "7 more columns (c5, c6, c7, c8, c9, c10, c11) in the full table" in html
    assert bundle[TABLE_MIME]["csv"].splitlines()[0] == ",".join(f"c{i}" for i in range(12))
