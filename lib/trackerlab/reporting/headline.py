"""What ``reports/index.html`` shows of a report: its answer and a few headline figures.

A notebook states the answer it gives in one sentence, in the reader's units, computed from
its own numbers::

    answer(f"At 1 s ticks, time buckets cost {fixed:.2g} B/entry with fixed delays ...")

and publishes supporting figures with ``headline("heap, 1e7 messages", "240 MB")``. Both
are displayed as custom MIME bundles in the cell's output (with an HTML and a plain-text
form for readers of the report); the report runner reads them back from the executed
notebook (no scrapbook needed). The index shows the answer as the report's headline, and
the figures under it; a notebook without an answer gets its first figure instead.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

import nbformat

HEADLINE_MIME = "application/vnd.trackerlab.headline+json"
ANSWER_MIME = "application/vnd.trackerlab.answer+json"


def headline(label: str, value: object, note: str = "") -> None:
    """Publish one headline figure from a notebook cell."""
    from IPython.display import display

    text = f"{label}: {value}" + (f" ({note})" if note else "")
    note_html = f' <span style="color:#666">({html.escape(note)})</span>' if note else ""
    bundle = {
        HEADLINE_MIME: {"label": label, "value": str(value), "note": note},
        "text/html": (
            '<div class="tl-headline" style="margin:0.2em 0">'
            f"<b>{html.escape(label)}</b>: {html.escape(str(value))}{note_html}</div>"
        ),
        "text/plain": text,
    }
    display(bundle, raw=True)


def answer(text: str) -> None:
    """Publish the report's answer: one sentence, the index's headline for this report (its
    first letter is made upper case)."""
    from IPython.display import display

    text = text.strip()
    text = text[:1].upper() + text[1:]

    bundle = {
        ANSWER_MIME: {"text": text},
        "text/html": (
            '<div class="tl-answer" style="border-left:4px solid #2a9d8f;padding:0.4em 0.8em;'
            f'margin:0.4em 0;background:#f3faf9"><b>Answer.</b> {html.escape(text)}</div>'
        ),
        "text/plain": f"Answer: {text}",
    }
    display(bundle, raw=True)


def _iter_data(nb: nbformat.NotebookNode, mime: str) -> Iterator[dict]:
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if mime in data:
                yield dict(data[mime])


def read_headlines(nb: nbformat.NotebookNode) -> list[dict[str, str]]:
    """Every headline published by an executed notebook, in cell order."""
    return list(_iter_data(nb, HEADLINE_MIME))


def read_answer(nb: nbformat.NotebookNode) -> str:
    """The last answer an executed notebook published, or ``""``."""
    answers = [a.get("text", "") for a in _iter_data(nb, ANSWER_MIME)]
    return answers[-1] if answers else ""
