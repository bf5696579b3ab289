"""The package's layers run one way, and no module or package imports itself in a circle.

Every module under ``lib/trackerlab`` is parsed with :mod:`ast`. An import counts wherever
it is written: at the top of a module, inside a function, or as a string naming a module
(``importlib.import_module("trackerlab.x")``, a tuple of module names). Each module belongs
to the first layer in :data:`LAYERS` with a matching prefix; an import may point to its own
layer or below, never up. ``docs/architecture.md`` shows the same table.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"

#: Top to bottom. A prefix names a module or a package (and everything under it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "commands",
        (
            "trackerlab",
            "trackerlab.__main__",
            "trackerlab.commands",
        ),
    ),
    ("bench, reporting", ("trackerlab.bench", "trackerlab.reporting")),
    ("experiments", ("trackerlab.experiments",)),
    ("catalog, planner, spark", ("trackerlab.catalog", "trackerlab.planner", "trackerlab.spark")),
    ("models", ("trackerlab.models",)),
    ("jvmcheck, broker", ("trackerlab.jvmcheck", "trackerlab.broker")),
    ("sizing", ("trackerlab.sizing",)),
    ("workloads", ("trackerlab.workloads",)),
    ("core", ("trackerlab.core",)),
)
_MODULE_STRING = re.compile(r"trackerlab(\.\w+)+")


def module_files(lib: Path = LIB) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    out = {}
    for path in sorted((lib / "trackerlab").rglob("*.py")):
        parts = list(path.relative_to(lib).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of the longest matching prefix (0 is the top)."""
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and len(prefix) > best_len and (prefix != "trackerlab" or module == prefix):
                best, best_len = i, len(prefix)
    if best is None:
        raise AssertionError(f"{module} is in no layer; add it to LAYERS and docs/architecture.md")
    return best


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module an import of ``name`` loads: itself, or the nearest enclosing package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of one source file, parsed once per session."""
    return ast.parse(path.read_text(), str(path))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """Modules of the package that ``module`` imports, with the line of the first import."""
    tree = parsed(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        target = _resolve(name, modules)
        if target and target != module:
            found.setdefault(target, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "trackerlab":
                    add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "trackerlab":
                continue
            for alias in node.names:
                child = f"{source}.{alias.name}"
                add(child if child in modules else source, node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.split(":")[0].strip()  # "package.module:attribute" too
            if _MODULE_STRING.fullmatch(text) and text in modules:
                add(text, node.lineno)
    return found


def import_graph(lib: Path = LIB) -> dict[str, dict[str, int]]:
    modules = module_files(lib)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    out = []
    for source, targets in sorted(graph.items()):
        for target, line in sorted(targets.items()):
            if layer_of(target) < layer_of(source):
                out.append(
                    f"{source}:{line} imports {target} "
                    f"({LAYERS[layer_of(source)][0]} -> {LAYERS[layer_of(target)][0]})"
                )
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def package_graph(graph: dict[str, dict[str, int]], depth: int) -> dict[str, set[str]]:
    """The import graph folded onto packages ``depth`` names deep (``trackerlab.models``: 2)."""

    def fold(module: str) -> str:
        return ".".join(module.split(".")[:depth])

    out: dict[str, set[str]] = defaultdict(set)
    for source, targets in graph.items():
        for target in targets:
            if fold(source) != fold(target):
                out[fold(source)].add(fold(target))
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, int]]:
    return import_graph()


def test_every_module_has_a_layer(graph):
    assert len(graph) > 50, LIB
    for module in graph:
        layer_of(module)


def test_no_import_points_up_a_layer(graph):
    assert upward_imports(graph) == []


def test_no_module_cycle(graph):
    assert cycles({m: set(t) for m, t in graph.items()}) == []


@pytest.mark.parametrize("depth", [2, 3])
def test_no_package_cycle(graph, depth):
    assert cycles(package_graph(graph, depth)) == []


def test_the_checks_can_fail(tmp_path):
    """A two-module package with an upward import and a cycle is caught."""
    pkg = tmp_path / "trackerlab"
    (pkg / "models").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core").mkdir()
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "errors.py").write_text(
        "import importlib\nimportlib.import_module('trackerlab.models.a')\n"
    )
    (pkg / "models" / "__init__.py").write_text("")
    (pkg / "models" / "a.py").write_text("def f():\n    from trackerlab.core.errors import X\n")
    bad = import_graph(tmp_path)
    assert bad["trackerlab.core.errors"] == {"trackerlab.models.a": 2}
    assert upward_imports(bad) == [
        "trackerlab.core.errors:2 imports trackerlab.models.a (core -> models)"
    ]
    assert cycles({m: set(t) for m, t in bad.items()}) == [
        ["trackerlab.core.errors", "trackerlab.models.a"]
    ]


#: The only modules at the package root that belong to no sub-package: the public face and
#: the ``python -m trackerlab`` entry.
ROOT_MODULES = frozenset({"trackerlab", "trackerlab.__main__"})


def root_modules(lib: Path = LIB) -> list[str]:
    """Modules directly under ``trackerlab/`` that are not packages nor allowed root modules."""
    return sorted(
        m
        for m, p in module_files(lib).items()
        if m.count(".") == 1 and p.name != "__init__.py"
        if m not in ROOT_MODULES
    )


def colliding_basenames(lib: Path = LIB) -> dict[str, list[str]]:
    """File names (``plan.py``) that more than one module of the package uses."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for module, path in module_files(lib).items():
        if path.name not in ("__init__.py", "__main__.py"):
            by_name[path.name].append(module)
    return {name: sorted(ms) for name, ms in sorted(by_name.items()) if len(ms) > 1}


def face_imports(lib: Path = LIB) -> list[str]:
    """Imports, in a package's own modules, that go through that package's ``__init__``.

    ``from trackerlab.planner import precision`` inside ``trackerlab.planner.plan`` runs the
    package face first, and the face imports its modules back: a cycle Python resolves by
    luck of order. A module names its sibling in full (``import trackerlab.planner.precision
    as precision`` or ``from trackerlab.planner.precision import x``).
    """
    out = []
    for module, path in module_files(lib).items():
        if path.name == "__init__.py":
            continue
        package = module.rpartition(".")[0]
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and node.level:
                out.append(f"{module}:{node.lineno} imports relatively")
            elif (isinstance(node, ast.ImportFrom) and node.module == package) or (
                isinstance(node, ast.Import) and any(a.name == package for a in node.names)
            ):
                out.append(f"{module}:{node.lineno} imports its package face {package}")
    return sorted(out)


def test_every_root_module_is_in_a_package():
    assert root_modules() == []


def test_no_two_modules_share_a_file_name():
    assert colliding_basenames() == {}


def test_no_module_imports_its_own_package_face():
    assert face_imports() == []


def test_the_house_checks_can_fail(tmp_path):
    """A loose root module, a repeated file name and a face import are each caught."""
    pkg = tmp_path / "trackerlab"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text(f"from trackerlab.{sub}.plan import x\n")
        (pkg / sub / "plan.py").write_text("x = 1\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("")
    (pkg / "errors.py").write_text("")
    (pkg / "a" / "user.py").write_text("from trackerlab.a import plan\nfrom . import plan\n")
    assert root_modules(tmp_path) == ["trackerlab.errors"]
    assert colliding_basenames(tmp_path) == {"plan.py": ["trackerlab.a.plan", "trackerlab.b.plan"]}
    assert face_imports(tmp_path) == [
        "trackerlab.a.user:1 imports its package face trackerlab.a",
        "trackerlab.a.user:2 imports relatively",
    ]
