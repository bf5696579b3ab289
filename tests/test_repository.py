"""Repository conventions: clean notebooks, literal parameters, environment.yml in sync."""

import ast
import json
import re
import tomllib

import nbformat
import pytest
import yaml

from tests.conftest import FIXTURE_NOTEBOOKS, REPO
from trackerlab.reporting.notebooks import discover, inspect, papermill_parameters

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb")) + sorted(FIXTURE_NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_has_no_outputs(path):
    nb = json.loads(path.read_text())
    dirty = [
        i
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)
    ]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs; commit notebooks stripped"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_cell_is_literal_and_matches_papermill(path):
    info = inspect(path)  # raises on a non-literal parameter
    if path.parent.name == "notebooks" and path.parent.parent == REPO:
        assert info.parameters, f"{path.name} has no tagged parameters cell"
    pm = papermill_parameters(path)
    assert list(pm) == [p.name for p in info.parameters]
    for p in info.parameters:
        assert ast.literal_eval(pm[p.name]["default"]) == p.default


def test_every_project_notebook_has_a_title_and_story():
    for name, path in discover(REPO / "notebooks").items():
        nb = nbformat.read(path, as_version=4)
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), name
        assert sum(c.cell_type == "markdown" for c in nb.cells) >= 2, f"{name}: tell the story"


def _requirement_set(reqs):
    return {re.sub(r"\s+", "", r).lower() for r in reqs}


def test_environment_yml_mirrors_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = _requirement_set(project["dependencies"] + project["optional-dependencies"]["dev"])
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert _requirement_set(r for r in pip if not r.startswith("-e")) == wanted
    assert "python=3.11" in conda and any(d.startswith("openjdk=17") for d in conda)
    assert any(d.split("=")[0] == "maven" for d in conda)  # the real-Pulsar class paths


def test_published_numbers_copy_matches_spec():
    spec = REPO.parent / "shared" / "spec" / "published_numbers.csv"
    ours = REPO / "data" / "published" / "published_numbers.csv"
    rows = ours.read_text().splitlines()
    assert rows[0].startswith("id,seed,system,quantity,parameters,published,unit,kind,note")
    assert len(rows) == 58  # N01..N57
    if spec.exists():  # the shared spec is not part of a clone; CI checks the copy alone
        assert spec.read_text() == ours.read_text()


def test_readme_first_screen_has_the_two_commands():
    readme = (REPO / "README.md").read_text().splitlines()[:40]
    text = "\n".join(readme)
    assert "make report" in text and "make test" in text


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"^make test\b", ci, re.M)


def test_every_library_folder_is_a_regular_package():
    """setuptools' ``packages.find`` skips folders without ``__init__.py`` (a wheel would lack
    them, though an editable install still imports them), and ships only listed data files."""
    lib = REPO / "lib" / "trackerlab"
    folders = {p.parent for p in lib.rglob("*.py")} - {lib}
    assert (
        sorted(str(f.relative_to(lib)) for f in folders if not (f / "__init__.py").exists()) == []
    )
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = data["package-data"]["trackerlab"]
    shipped = {p for pattern in patterns for p in lib.glob(pattern)}
    data_files = {p for p in lib.rglob("*") if p.suffix in {".yaml", ".java", ".html"}}
    assert sorted(str(p.relative_to(lib)) for p in data_files - shipped) == []


def _notebook_imports(path):
    """``(module, names)`` of every trackerlab import in a notebook's code cells."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse(
            "\n".join(line for line in cell.source.splitlines() if not line.startswith(("%", "!")))
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("trackerlab"):
                yield node.module, [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("trackerlab"):
                        yield alias.name, []


def _public(module: str, name: str) -> bool:
    """``from module import name`` uses a public face: ``module`` is ``trackerlab``, a package,
    or a module its package exports, and ``name`` is in ``module.__all__``."""
    import importlib

    mod = importlib.import_module(module)
    if not hasattr(mod, "__path__") and module != "trackerlab":
        parent, _, leaf = module.rpartition(".")
        if leaf not in getattr(importlib.import_module(parent), "__all__", ()):
            return False
    return name in getattr(mod, "__all__", ())


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_import_only_public_names(path):
    bad = []
    for module, names in _notebook_imports(path):
        if not names:
            bad.append(f"import {module} (use from PACKAGE import NAME)")
        bad += [f"from {module} import {n}" for n in names if not _public(module, n)]
    assert not bad, f"{path.name}: {bad}"


def test_public_import_check_can_fail():
    assert _public("trackerlab.experiments", "bucket_sweeps")
    assert not _public("trackerlab.models.delayed.bucketed_tracker", "precision_bits_for_tick")
    assert not _public("trackerlab.experiments", "_nothing")


#: Issue 30: a notebook keeps its parameters, the calls, the plots and its markdown; its code
#: outside the parameters cell (one call or two per section: what the design lab's 16 sections
#: need) stays at most this many lines. Tables and conclusions come from tested functions.
NOTEBOOK_CODE_LINES_AT_MOST = 45


def code_lines(path, parameters: bool = False) -> int:
    """Non-blank, non-comment lines in a notebook's code cells, the tagged parameters cell
    counted only when ``parameters``."""
    nb = json.loads(path.read_text())
    return sum(
        1
        for c in nb["cells"]
        if c["cell_type"] == "code"
        and (parameters or "parameters" not in c["metadata"].get("tags", []))
        for line in "".join(c["source"]).splitlines()
        if line.strip() and not line.strip().startswith("#")
    )


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_thin(path):
    lines = code_lines(path)
    assert lines <= NOTEBOOK_CODE_LINES_AT_MOST, (
        f"{path.name}: {lines} code lines besides its parameters (at most "
        f"{NOTEBOOK_CODE_LINES_AT_MOST}); move tables and conclusions into a tested function"
    )


def test_code_line_count_can_fail(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "rate_per_s: float = 1.0  # the rate\n", metadata={"tags": ["parameters"]}
        ),
        nbformat.v4.new_markdown_cell("# A title"),
        nbformat.v4.new_code_cell("# a comment\n\nx = 1\ny = 2\n"),
    ]
    path = tmp_path / "n.ipynb"
    path.write_text(nbformat.writes(nb))
    assert code_lines(path) == 2 and code_lines(path, parameters=True) == 3
