"""Write a notebook from a list of cells, the way the project's notebooks are authored.

``write_notebook(path, [("md", "# Title"), ("params", "n = 10"), ("code", "...")])``
produces an output-free notebook whose ``params`` cell is tagged ``parameters`` and whose
kernelspec is ``python3``. Notebooks are committed in this form; executed copies go to
``reports/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import nbformat

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def build_notebook(cells: Sequence[tuple[str, str]]) -> nbformat.NotebookNode:
    """A v4 notebook from ``(kind, source)`` pairs; kind is ``md``, ``code`` or ``params``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for kind, source in cells:
        source = source.strip("\n")
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(source))
        elif kind in ("code", "params"):
            cell = nbformat.v4.new_code_cell(source)
            if kind == "params":
                cell.metadata["tags"] = ["parameters"]
            nb.cells.append(cell)
        else:
            raise ValueError(f"unknown cell kind {kind!r}; use md, code or params")
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
    return nb


def write_notebook(path: Path, cells: Sequence[tuple[str, str]]) -> Path:
    """Write the notebook built from ``cells`` to ``path`` and return the path."""
    nb = build_notebook(cells)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path
