"""Discovery of the project's notebooks and inspection of their ``parameters`` cells.

A notebook's parameters are the assignments in the cell tagged ``parameters`` (papermill's
convention). They must be literals: papermill injects overrides in a cell *after* it, so a
derived value there would silently keep its default (see papermill's "parameterize" docs).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

import nbformat

from trackerlab.core.durable import os_error_text
from trackerlab.core.errors import UsageError
from trackerlab.core.safe_yaml import check_json_depth, read_user_text

#: Bound of the bounded reader for a notebook (an executed one holds its figures).
MAX_NOTEBOOK_BYTES = 64 << 20


@dataclass(frozen=True)
class Parameter:
    """One parameter of a notebook: its name, default value and help text."""

    name: str
    default: object
    help: str = ""


@dataclass(frozen=True)
class NotebookInfo:
    """A notebook file, its title (first markdown heading) and its parameters in order."""

    name: str
    path: Path
    title: str
    parameters: tuple[Parameter, ...]

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)


def discover(notebooks_dir: Path) -> dict[str, Path]:
    """Map notebook name (file stem) to path, for every ``*.ipynb`` in ``notebooks_dir``."""
    if notebooks_dir.exists() and not notebooks_dir.is_dir():
        raise UsageError(f"notebooks folder {notebooks_dir} is a file, not a folder")
    if not notebooks_dir.is_dir():
        raise UsageError(f"notebooks folder {notebooks_dir} does not exist")
    try:
        names = sorted(e.name for e in os.scandir(notebooks_dir) if e.name.endswith(".ipynb"))
    except OSError as exc:  # glob would hide it and list nothing
        raise UsageError(f"cannot read the notebooks folder {os_error_text(exc)}") from None
    return {Path(n).stem: notebooks_dir / n for n in names}


def parameters_cell(nb: nbformat.NotebookNode) -> nbformat.NotebookNode | None:
    """The first code cell tagged ``parameters``, or None."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell
    return None


def parse_parameters(source: str, where: str) -> tuple[Parameter, ...]:
    """Parse a parameters cell: only ``name = literal`` lines, each with an optional comment.

    Raises ValueError naming ``where`` and the line if a statement is anything else.
    """
    lines = source.splitlines()
    params = []
    for node in ast.parse(source).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or value is None:
            raise ValueError(f"{where}: parameters cell line {node.lineno} is not `name = literal`")
        try:
            default = ast.literal_eval(value)
        except ValueError as exc:
            raise ValueError(
                f"{where}: parameter {target.id} (line {node.lineno}) must be a literal"
            ) from exc
        comment = lines[node.lineno - 1].partition("#")[2].strip()
        params.append(Parameter(target.id, default, comment))
    return tuple(params)


def papermill_parameters(path: Path) -> dict[str, dict[str, str]]:
    """papermill's own inspection of the parameters cell (names, default source, help)."""
    import papermill

    return papermill.inspect_notebook(str(path))


def notebook_title(nb: nbformat.NotebookNode, default: str) -> str:
    """The text of the first markdown heading, or ``default``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return default


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """A notebook (version 4) through the bounded reader
    (:func:`trackerlab.core.safe_yaml.read_user_text`: a regular file, at most
    :data:`MAX_NOTEBOOK_BYTES`, nested at most ``MAX_JSON_DEPTH`` deep); one UsageError line
    naming the file otherwise. O(size)."""
    text = read_user_text(path, "notebook", MAX_NOTEBOOK_BYTES)
    check_json_depth(text, f"notebook {path}")
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat: NotJSONError, ValidationError, RecursionError...
        reason = (str(exc).splitlines() or [type(exc).__name__])[0][:120]
        raise UsageError(f"notebook {path} is not a valid notebook ({reason})") from None


def inspect(path: Path) -> NotebookInfo:
    """Read a notebook's title and parameters (the same cell papermill injects after)."""
    nb = read_notebook(path)
    cell = parameters_cell(nb)
    try:
        params = parse_parameters(cell.source, path.name) if cell is not None else ()
    except SyntaxError as exc:
        raise UsageError(f"{path.name}: parameters cell line {exc.lineno}: {exc.msg}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return NotebookInfo(path.stem, path, notebook_title(nb, path.stem), params)
