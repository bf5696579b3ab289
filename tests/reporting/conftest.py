"""Fixtures of the report-module tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What the report functions display (``IPython.display.display``), in order: the
    bundles, Markdown and tables a notebook cell would show."""
    out: list[object] = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: out.append(obj))
    return out
