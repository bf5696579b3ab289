"""Every project notebook renders under the smoke profile (one test per notebook), and reads well.

For each notebook in ``notebooks/`` (new ones are picked up automatically) the render must:

- succeed and publish headline figures, an answer and at least one figure;
- print no ERROR or WARNING line (kernel, papermill, nbconvert, Spark);
- show no figure defect: the report kernel checks every displayed figure for overlapping
  tick labels, legend entries without visible data and unreadable annotations
  (:mod:`trackerlab.reporting.figure_check`); the defects land in ``NAME.json``;
- hide its code behind the toggle and fetch nothing from the network.

Two notebooks are being rewritten by another issue (15) right now; their current defects are
pinned below, exactly, so that the test fails both on any new defect and once they are
fixed (then delete the entry).
"""

import json
import logging
import re

import pytest

from tests.conftest import REPO
from trackerlab.reporting.notebooks import discover
from trackerlab.reporting.runner import run_report

NAMES = sorted(discover(REPO / "notebooks"))
HIDDEN = "legend entry {!r} shows no visible data (hidden under other artists, or nothing in view)"

NOISE = re.compile(r"\b(ERROR|WARNING|Warning|Traceback)\b")


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_renders_with_smoke_profile(tmp_path, capfd, caplog, name):
    out = tmp_path / "reports"
    result = run_report("smoke", [name], out, log=lambda msg: None)
    log = capfd.readouterr()
    assert not result.failures, result.failures
    noise = [line for line in (log.out + log.err).splitlines() if NOISE.search(line)]
    noise += [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert noise == [], f"{name}: the run printed {noise}"

    meta = json.loads((out / f"{name}.json").read_text())
    assert meta["profile"] == "smoke"
    assert meta["headlines"], f"{name} publishes no headline figure for the index"
    assert meta["answer"], f"{name} states no answer (trackerlab.reporting.answer)"
    assert meta["figures_checked"] >= 1, f"{name} renders no figure"
    assert meta["figure_defects"] == [], f"{name}: figure defects"

    html = (out / f"{name}.html").read_text()
    assert "data:image/png;base64" in html, f"{name} renders no figure"
    assert 'id="tl-toggle-code"' in html and "body:not(.tl-show-code)" in html
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=\"https?:", html), "network asset"
    for csv in meta["tables"]:
        assert (out / csv).is_file() and f'href="{csv}"' in html
