"""Every public method of a model class states its complexity (sortedcontainers style).

Issue 12: a public model method's docstring names the Java method it mirrors and its
complexity, ``O(...)``; a method that mirrors no Java method says what it does and its
complexity. The Java name cannot be checked mechanically; the complexity can.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

MODELS = REPO / "lib" / "trackerlab" / "models"
#: The packages under the rule.
PACKAGES = (
    "primitives",
    "time_buckets",
    "nack",
    "delayed",
    "pending_acks",
    "receiver_queue",
    "proposals",
)


def methods_without_complexity(source: str) -> list[str]:
    """``Class.method`` for each public method (properties included) of any class, nested
    ones too, whose docstring lacks ``O(``: a private base class's public methods are public
    on its subclasses. O(size of the source)."""
    missing = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if item.name.startswith("_"):
                continue
            if "O(" not in (ast.get_docstring(item) or ""):
                missing.append(f"{node.name}.{item.name}")
    return missing


def _modules(package: str) -> list[Path]:
    modules = sorted((MODELS / package).glob("*.py"))
    assert modules, f"no modules in models/{package}"
    return modules


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_model_method_states_its_complexity(package):
    missing = [
        f"{path.relative_to(REPO)}: {name}"
        for path in _modules(package)
        for name in methods_without_complexity(path.read_text())
    ]
    assert not missing, "docstrings without a complexity O(...):\n" + "\n".join(missing)


def test_complexity_check_can_fail():
    source = '''
class Queue:
    def add(self):
        """``add``. O(log n)."""

    @property
    def capacity(self):
        """``getCapacity()``."""

    def pop(self):
        pass

    def _sift(self):
        pass

    class Segment:
        def read(self):
            """``readLong``."""


class _Base:
    def run(self):
        pass

    def _helper(self):
        pass
'''
    assert methods_without_complexity(source) == [
        "Queue.capacity",
        "Queue.pop",
        "_Base.run",
        "Segment.read",
    ]
