"""``docs/architecture.md`` names every package of ``lib/trackerlab`` and no other.

The folder tree of its "Folders by Pulsar component" section lists packages as ``name/`` at
the start of an indented line; the indentation says the parent (two spaces per level).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO

DOC = REPO / "docs" / "architecture.md"
LIB = REPO / "lib" / "trackerlab"
_ENTRY = re.compile(r"^( +)([a-z_]+)/(?:\s|$)")


def packages_on_disk(lib: Path = LIB) -> set[str]:
    """Every package under ``lib``, as a path relative to it (``models/delayed``)."""
    return {p.parent.relative_to(lib).as_posix() for p in lib.rglob("__init__.py")} - {"."}


def packages_in_doc(text: str) -> set[str]:
    """The packages of the first code block that starts with ``lib/trackerlab/``."""
    block = text.split("```\nlib/trackerlab/\n", 1)[1].split("```", 1)[0]
    stack: list[tuple[int, str]] = []
    out = set()
    for line in block.splitlines():
        m = _ENTRY.match(line)
        if not m:
            continue
        depth, name = len(m.group(1)), m.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        path = "/".join([*(n for _, n in stack), name])
        stack.append((depth, name))
        out.add(path)
    return out


def test_the_doc_names_every_package_and_only_packages():
    in_doc, on_disk = packages_in_doc(DOC.read_text()), packages_on_disk()
    assert sorted(in_doc - on_disk) == [], "named in docs/architecture.md, not in lib/trackerlab"
    assert sorted(on_disk - in_doc) == [], "in lib/trackerlab, missing from docs/architecture.md"


def test_the_check_can_fail(tmp_path):
    text = "x\n```\nlib/trackerlab/\n  models/   a  b\n    delayed/  c\n  gone/  d\n```\n"
    assert packages_in_doc(text) == {"models", "models/delayed", "gone"}
    (tmp_path / "models" / "nack").mkdir(parents=True)
    for folder in ("models", "models/nack"):
        (tmp_path / folder / "__init__.py").write_text("")
    assert packages_on_disk(tmp_path) == {"models", "models/nack"}
