"""Every project notebook renders under the smoke profile (one test per notebook)."""

import json

import pytest

from tests.conftest import REPO
from trackerlab.reporting.notebooks import discover
from trackerlab.reporting.runner import run_report

NAMES = sorted(discover(REPO / "notebooks"))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_renders_with_smoke_profile(tmp_path, name):
    out = tmp_path / "reports"
    result = run_report("smoke", [name], out, log=lambda msg: None)
    assert not result.failures, result.failures
    meta = json.loads((out / f"{name}.json").read_text())
    assert meta["profile"] == "smoke"
    assert meta["headlines"], f"{name} publishes no headline figure for the index"
    html = (out / f"{name}.html").read_text()
    assert "data:image/png;base64" in html, f"{name} renders no figure"
