"""The overview report's tables and sentences, against the published CSV and hand-made rows."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from trackerlab.reporting import overview_report as report

CSV = Path(__file__).resolve().parents[2] / "data" / "published" / "published_numbers.csv"


def _csv_rows() -> list[dict[str, str]]:
    with CSV.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_by_system_counts_every_published_number_once() -> None:
    rows = _csv_rows()
    table = report.by_system(report.published_numbers())
    assert table.numbers.sum() == len(rows) == 57
    systems = list(dict.fromkeys((r["seed"], r["system"]) for r in rows))
    assert len(table) == len(systems)
    for got, (seed, system) in zip(table.itertuples(), systems, strict=True):
        ids = [r["id"] for r in rows if (r["seed"], r["system"]) == (seed, system)]
        kinds = sorted({r["kind"] for r in rows if (r["seed"], r["system"]) == (seed, system)})
        assert (got.system, got.numbers, got.first, got.last) == (system, len(ids), ids[0], ids[-1])
        assert got.kinds == ", ".join(kinds)
        assert not got.seed.endswith(".txt")  # by title, never by file name


def test_count_table_and_headline() -> None:
    counts = {
        "reproduced": 30,
        "reproduced by construction": 12,
        "seed wrong": 6,
        "explained": 5,
        "deviates": 3,
        "pending": 1,
    }
    frame = report.count_table(counts)
    assert frame.numbers.tolist() == [30, 12, 6, 5, 3, 1]
    h = report.category_headline(counts, 57)
    assert (h.label, h.value) == ("reproduced within tolerance", "30 of 57")
    assert h.note == "12 by construction, 6 seed wrong, 5 explained, 3 deviating"


def test_conclusions_name_the_wrong_and_unsettled_ids() -> None:
    table = pd.DataFrame(
        {
            "id": ["N01", "N02", "N03", "N04", "N05", "N06"],
            "category": [
                "reproduced",
                "seed wrong",
                "reproduced by construction",
                "seed wrong",
                "explained",
                "pending",
            ],
        }
    )
    counts = {"reproduced": 1, "reproduced by construction": 1, "seed wrong": 2}
    found = report.conclusions(table, counts, 6)
    assert found.lines == [
        "1 of 6 published numbers are reproduced within the tolerance of their kind; "
        "1 agree by construction.",
        "2 are wrong in the seed: N02, N04.",
        "Not settled: N05 (explained); N06 (pending).",
    ]
    assert found.answer == (
        "Of the 6 numbers the seed documents publish, 1 reproduce within the tolerance of their "
        "kind and 1 by construction; 2 are wrong in the seed and 2 are not settled"
    )
    settled = report.conclusions(table.iloc[:4], counts, 4)
    assert len(settled.lines) == 2
    assert settled.answer.endswith("2 are wrong in the seed and 0 are not settled")
