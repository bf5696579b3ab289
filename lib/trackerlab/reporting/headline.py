"""Headline figures: the few numbers ``reports/index.html`` shows next to each report.

A notebook calls ``headline("reproduced", "0 of 57")``. The value is displayed as a custom
MIME bundle in the cell's output; the report runner reads it back from the executed
notebook (no scrapbook needed). In JupyterLab it shows as plain text.
"""

from __future__ import annotations

from collections.abc import Iterator

import nbformat

HEADLINE_MIME = "application/vnd.trackerlab.headline+json"


def headline(label: str, value: object, note: str = "") -> None:
    """Publish one headline figure from a notebook cell."""
    from IPython.display import display

    text = f"{label}: {value}" + (f" ({note})" if note else "")
    bundle = {
        HEADLINE_MIME: {"label": label, "value": str(value), "note": note},
        "text/plain": text,
    }
    display(bundle, raw=True)


def read_headlines(nb: nbformat.NotebookNode) -> list[dict[str, str]]:
    """Every headline published by an executed notebook, in cell order."""
    return list(_iter_headlines(nb))


def _iter_headlines(nb: nbformat.NotebookNode) -> Iterator[dict[str, str]]:
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if HEADLINE_MIME in data:
                yield dict(data[HEADLINE_MIME])
