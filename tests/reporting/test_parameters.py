"""Notebook parameters are typed and described, so ``papermill --help-notebook`` shows both.

Every notebook in ``notebooks/`` (new ones included automatically) writes each parameter as
``name: type = literal  # what it is (unit)``. The annotation must match the literal, the
comment must say something, and papermill's own parser must read the line (it skips a line
with more than one ``=``).
"""

import ast
import subprocess
import sys

import pytest

from tests.conftest import REPO
from trackerlab.reporting.notebooks import discover, papermill_parameters

NOTEBOOKS = discover(REPO / "notebooks")
SCALARS = {"int": int, "float": (int, float), "str": str, "bool": bool}


def _matches(annotation: str, value: object) -> bool:
    node = ast.parse(annotation, mode="eval").body
    if isinstance(node, ast.Name) and node.id in SCALARS:
        if node.id != "bool" and isinstance(value, bool):
            return False
        return isinstance(value, SCALARS[node.id])
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        inner = ast.unparse(node.slice)
        if node.value.id == "list" and isinstance(value, list):
            return all(_matches(inner, v) for v in value)
    return False


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_every_parameter_has_a_type_and_a_description(name):
    params = papermill_parameters(NOTEBOOKS[name])
    untyped = [p for p, info in params.items() if info["inferred_type_name"] == "None"]
    undescribed = [p for p, info in params.items() if not info["help"].strip()]
    assert params, f"{name} has no parameter papermill can read"
    assert untyped == [], f"{name}: no type for {untyped} (write `name: int = 5  # what, unit`)"
    assert undescribed == [], f"{name}: no description for {undescribed}"
    for param, info in params.items():
        value = ast.literal_eval(info["default"])
        assert _matches(info["inferred_type_name"], value), (
            f"{name}.{param}: {info['inferred_type_name']} does not fit {info['default']}"
        )


def test_type_check_can_fail():
    assert _matches("list[float]", [1.0, 2]) and _matches("bool", True)
    assert not _matches("int", True) and not _matches("list[str]", ["a", 1])
    assert not _matches("str", 5) and not _matches("dict", {})


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_papermill_help_shows_types_and_no_unknown_type(name):
    out = subprocess.run(
        [sys.executable, "-m", "papermill", "--help-notebook", str(NOTEBOOKS[name])],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Unknown type" not in out
    first = next(iter(papermill_parameters(NOTEBOOKS[name])))
    assert f"  {first}: " in out and "(default " in out
