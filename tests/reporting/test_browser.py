"""The index and a report, as a reader's browser shows them (Debian's headless Chromium).

Renders three notebooks under the smoke profile (one with the sweep's data-source line, one
with the reproduction status the index summarizes), then loads ``index.html`` and
``delayed_delivery.html`` and checks that they load without console errors or network
requests, that the index shows no machine path and no seed file name, and that the report's
code is hidden until the reader asks for it. Screenshots are kept beside the test's reports.
"""

import re

import pytest

from tests.conftest import REPO
from tests.reporting.headless import chromium, load_page
from trackerlab.reporting.runner import run_report
from trackerlab.reporting.seeds import SEED_FILE

pytestmark = pytest.mark.skipif(
    chromium() is None,
    reason="Debian's chromium is not installed (.ci/run installs it; apt-get install chromium)",
)
#: An absolute path in visible text (not a ratio such as msg/ms).
MACHINE_PATH = re.compile(r"(?<![\w.~:/])/(?:[\w.+-]+/)+[\w.+-]*")
CODE_INPUTS = "[...document.querySelectorAll('.jp-CodeCell .jp-Cell-inputWrapper')]"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser") / "reports"
    result = run_report(
        "smoke", ["delayed_delivery", "overview", "spark_sweeps"], out, log=lambda m: None
    )
    assert not result.failures, result.failures
    return out


@pytest.mark.slow
def test_index_loads_cleanly_with_answers_and_no_paths_or_seed_files(reports):
    page = load_page(reports / "index.html")
    (reports / "index.png").write_bytes(page.png)
    assert page.errors == [] and page.requests == []
    assert "At the default 1,000 ms tick, time buckets cost" in page.text
    assert "Reproduction of the seeds' numbers" in page.text
    assert MACHINE_PATH.findall(page.text) == []
    assert str(REPO) not in page.text and str(reports) not in page.text
    assert SEED_FILE.findall(page.text) == []
    assert len(page.png) > 10_000 and page.height > 600


@pytest.mark.slow
def test_report_loads_cleanly_with_code_behind_the_toggle(reports):
    page = load_page(
        reports / "delayed_delivery.html",
        evaluate={
            "inputs": f"{CODE_INPUTS}.length",
            "visible_before": f"{CODE_INPUTS}.filter(e => e.offsetParent !== null).length",
            "click": "document.getElementById('tl-toggle-code').click(), 0",
            "visible_after": f"{CODE_INPUTS}.filter(e => e.offsetParent !== null).length",
            "label_after": "document.getElementById('tl-toggle-code').textContent",
            "figures": "document.querySelectorAll('img[src^=\"data:image/png\"]').length",
        },
    )
    (reports / "delayed_delivery.png").write_bytes(page.png)
    assert page.errors == [] and page.requests == []
    values = page.values
    assert values["inputs"] >= 5 and values["visible_before"] == 0
    assert values["visible_after"] == values["inputs"] and values["label_after"] == "Hide code"
    assert values["figures"] >= 3
    assert "Answer." in page.text and "Conclusions" in page.text
    assert MACHINE_PATH.findall(page.text) == []


def test_the_page_checks_can_fail(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text(
        "<html><body><p>/home/someone/data</p>"
        "<script>console.error('broken')</script>"
        '<script src="https://cdn.example.org/x.js"></script></body></html>'
    )
    loaded = load_page(page)
    assert any("broken" in e for e in loaded.errors)
    assert loaded.requests == ["https://cdn.example.org/x.js"]
    assert MACHINE_PATH.findall(loaded.text) == ["/home/someone/data"]
