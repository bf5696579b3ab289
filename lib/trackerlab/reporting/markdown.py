"""Markdown a notebook builds from numbers and names, rendered as the words it holds.

Generated text carries characters markdown reads as syntax: an issue number at the start of a
bullet (``#23611 ...``) becomes a heading, ``local[*]`` or a delay mix ``0.8*a+0.2*b`` opens
italics that swallow the rest of the line, an indented line becomes a code block. A notebook
escapes the values it interpolates with :func:`escape_markdown` and shows its conclusions
with :func:`show_conclusions`, which writes one plain bullet per line, escaping what the
author did not mean as syntax (a leading ``#``, a ``*`` between two word characters or brackets)
while keeping ``**bold**`` and `` `code` ``. O(length of the text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["bullets", "escape_markdown", "show_conclusions", "show_markdown"]

#: Characters that are markdown syntax wherever they appear in a value.
_SYNTAX = re.compile(r"([\\`*_\[\]<>|])")
#: A ``*`` between two word characters or brackets: never emphasis meant by the author
#: (``local[*]``, ``0.8*uniform``), while ``*note*.`` and ``**bold**`` keep theirs.
_INNER_STAR = re.compile(r"(?<=[\w\[\]()])\*(?=[\w\[\]()])")
#: Line starts markdown reads as a block: headings, quotes, list markers, ordered items.
_BLOCK_START = re.compile(r"^(\s*)(#|>|[-+*](?=\s)|\d+[.)](?=\s))")


def escape_markdown(text: object) -> str:
    """``text`` with every markdown character escaped, for a value inside generated markdown:
    ``local[*]`` -> ``local\\[\\*\\]``; a leading ``#`` is escaped too."""
    out = _SYNTAX.sub(r"\\\1", str(text))
    return _BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), out, count=1)


def _item(text: str) -> str:
    """One bullet's text: one line, no block syntax at its start, inner ``*`` escaped."""
    line = " ".join(str(text).split())
    line = _INNER_STAR.sub(r"\\*", line)
    return _BLOCK_START.sub(lambda m: "\\" + m.group(2), line, count=1)


def bullets(lines: Iterable[str]) -> str:
    """Markdown bullets, one per line of ``lines`` (a leading ``-`` or ``*`` bullet marker is
    dropped first); each item is one line, so nothing in it is indented into a code block."""
    items = []
    for line in lines:
        text = str(line).strip()
        if text[:2] in ("- ", "* "):
            text = text[2:]
        if text:
            items.append(f"- {_item(text)}")
    return "\n".join(items)


def show_markdown(text: str) -> None:
    """Display ``text`` as markdown (never as a printed, monospace block)."""
    from IPython.display import Markdown, display

    display(Markdown(text))


def show_conclusions(lines: Iterable[str]) -> None:
    """Display ``lines`` as plain markdown bullets (:func:`bullets`)."""
    show_markdown(bullets(lines))
