"""The reproduction of published numbers, shown the same way in every report.

``show_reproduction(reproduce(ids))`` displays one table (published value and unit, the
JVM layout model, Python-real bytes, the seed's theory as published and corrected, model /
published, verdict) and, under it, the explanation of every number that has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from trackerlab.reporting.tables import Column, show_table

if TYPE_CHECKING:
    from trackerlab.experiments.reproduce.number_registry import Reproduction

__all__ = ["show_reproduction"]

#: The answer first (published against the model, the verdict); the theory columns last,
#: where a narrow page moves them to the full table (CSV).
REPRODUCTION_COLUMNS: dict[str, str | Column] = {
    "id": "id",
    "published": "published",
    "jvm_model": "JVM model",
    "ratio": Column("model / published", sig=3),
    "verdict": "verdict",
    "unit": "unit",
    "system": "structure",
    "parameters": "parameters",
    "python_real": "Python-real",
    "theory_published": "theory as published",
    "theory_corrected": "theory corrected",
}


def show_reproduction(results: Sequence[Reproduction], caption: str = "") -> pd.DataFrame:
    """Display the reproduction table and the explanations; return the rows (one per id)."""
    from trackerlab.experiments.reproduce import as_rows

    rows = pd.DataFrame(as_rows(results))
    show_table(
        rows,
        REPRODUCTION_COLUMNS,
        caption=caption or "Published numbers against the models (values in the unit column)",
        name="reproduction",
        max_rows=len(rows),
    )
    notes = rows.loc[rows["explanation"] != "", ["id", "explanation"]]
    if len(notes):
        show_table(
            notes,
            {"id": "id", "explanation": "why the model differs, or what the number includes"},
            caption="Explanations",
            max_rows=len(notes),
        )
    return rows.set_index("id")
