"""The browser check fails on each defect a reader would see, and passes a good page.

Small pages written here (each with one defect) go through
:func:`trackerlab.reporting.browser_check.check_pages` in Debian's headless Chromium; the
expected findings are worked out by hand from the page (sizes in CSS pixels, figure text
``pt x dpi / 72 x shown / natural``). The rendered smoke reports are checked in
``test_render_all.py`` (every notebook, with the index beside it).
"""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from tests.conftest import run_cli
from trackerlab.reporting import browser_check
from trackerlab.reporting.browser_check import BrowserMissing, Finding, check_pages

# Playwright is a dependency (pyproject.toml): a test never skips on a Python package.
pytestmark = pytest.mark.skipif(
    not Path(browser_check.CHROMIUM).is_file(),
    reason=f"Chromium is not installed at {browser_check.CHROMIUM} (apt-get install chromium)",
)

STYLE = "<style>main { width: 600px; } body { margin: 0; }</style>"


def page(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.html"
    path.write_text(
        f"<!doctype html><html><head>{STYLE}</head><body><main>{body}</main></body></html>"
    )
    return path


def figure_png(dpi: int = 100) -> tuple[str, int]:
    """A 6.4 x 2 inch figure as a data: URL, and its natural width in pixels (640 at 100 dpi)."""
    fig, ax = plt.subplots(figsize=(6.4, 2), dpi=dpi)
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode(), 640


GOOD_TABLE = (
    "<table><tr><th>design</th><th>memory (MiB)</th><th>under limit</th></tr>"  # no thead
    "<tr><td>time buckets</td><td>129.2</td><td>yes</td></tr>"
    "<tr><td>heap</td><td>1,024</td><td>no</td></tr></table>"
)


def whats(findings: list[Finding], name: str) -> list[str]:
    return [f.what for f in findings if f.report == f"{name}.html"]


def test_each_defect_fails_and_a_good_page_passes(tmp_path):
    src, natural = figure_png()
    assert natural == 640
    wide = "".join(f"<td>{'x' * 40}</td>" for _ in range(6))
    pages = [
        page(
            tmp_path,
            "good",
            "<h1>Report</h1><p>Memory per design, from <code>trackerlab plan</code>.</p>"
            f"{GOOD_TABLE}"
            f'<img src="{src}" alt="fine" data-font-pt="10" data-dpi="100" style="width: 600px">'
            '<div class="highlight"><pre>trackerlab plan --rate 20k/s</pre></div>'
            "<ul><li>#23611 fixed it</li></ul>"
            '<p><a href="good.table.csv">full table</a>, ratio msg/ms, '
            '<a href="https://github.com/apache/pulsar/pull/23611">apache/pulsar #23611</a></p>'
            "<details><summary>parameters</summary><table><tr><td><code>sweep_dir</code></td>"
            "<td>data/sweeps/default</td></tr></table></details>",
        ),
        page(
            tmp_path,
            "wide_table",
            '<h2>Sizes</h2><table style="display:block; overflow-x:auto; max-width:100%">'
            f"<tr>{wide}</tr></table>",
        ),
        # 640 px shown at 200 px: 31 %; 8 pt at 100 dpi is 11.1 px, shown at 3.5 px
        page(
            tmp_path,
            "tiny_figure",
            f'<img src="{src}" alt="grid" data-font-pt="8" data-dpi="100" style="width:200px">',
        ),
        # 50 % is large enough, but 10 pt x 100/72 x 0.5 = 6.9 px is not
        page(
            tmp_path,
            "small_text",
            f'<img src="{src}" alt="dots" data-font-pt="10" data-dpi="100" style="width:320px">',
        ),
        page(tmp_path, "unmeasured_figure", f'<img src="{src}" alt="plain">'),
        page(
            tmp_path,
            "raw_dataframe",
            '<table class="dataframe"><thead><tr><th></th><th>per_topic_mib</th>'
            "<th>under_limit</th><th>rate</th></tr></thead><tbody>"
            "<tr><th>0</th><td>1.292e+02</td><td>True</td><td>NaN</td></tr>"
            "<tr><th>1</th><td>3.5e-01</td><td>False</td><td>nan</td></tr></tbody></table>",
        ),
        page(tmp_path, "machine_path", "<p>Read from /work/h29/data/sweeps/default.</p>"),
        page(tmp_path, "path_link", '<a href="file:///home/me/reports/x.html">x</a>'),
        page(tmp_path, "seed_file", "<p>See 000_0123456789abcdef.txt.</p>"),
        page(tmp_path, "list_heading", "<ul><li><h1>23611 fixed it</h1></li></ul>"),
        page(
            tmp_path,
            "network",
            '<p>x</p><img src="https://cdn.example.org/logo.png" alt="logo">'
            '<script src="https://cdn.example.org/x.js"></script>',
        ),
        page(tmp_path, "console_error", "<script>console.error('broken')</script>"),
        page(tmp_path, "exception", "<script>undefinedFunction()</script>"),
        page(
            tmp_path,
            "indented_text",
            '<div class="jp-RenderedMarkdown"><h2>Conclusions</h2>'
            "<pre><code>4 of the 6 claims hold</code></pre></div>",
        ),
        page(
            tmp_path,
            "printed_output",
            '<div class="jp-OutputArea-output"><pre>rows: 12, NaN: 3</pre></div>',
        ),
    ]
    findings = check_pages(pages)
    assert whats(findings, "good") == []
    # 240 characters cannot fit 600 px; the content width depends on the font
    wide_what = whats(findings, "wide_table")
    assert len(wide_what) == 1 and wide_what[0].startswith("table wider than its box (content ")
    assert wide_what[0].endswith(", box 600 px)")
    assert whats(findings, "tiny_figure") == [
        "image shown at 31% of its natural width (640 px shown at 200 px)",
        "figure text 3.5 px high as shown (8 pt at 100 dpi, shown at 31%)",
    ]
    assert whats(findings, "small_text") == [
        "figure text 6.9 px high as shown (10 pt at 100 dpi, shown at 50%)"
    ]
    assert whats(findings, "unmeasured_figure") == [
        "figure without data-font-pt/data-dpi (its text size cannot be checked)"
    ]
    assert whats(findings, "raw_dataframe") == [
        "unstyled DataFrame: index column (2 th in body rows)",
        "unstyled DataFrame: snake_case header per_topic_mib, under_limit",
        "unstyled DataFrame: 2 True/False cells",
        "unstyled DataFrame: 2 NaN cells",
        "unstyled DataFrame: 2 e-notation cells",
    ]
    assert [(f.what, f.where) for f in findings if f.report == "machine_path.html"] == [
        ("machine path", "top, /work/h29/data/sweeps/default")
    ]
    assert whats(findings, "path_link") == ["machine path in a link"]
    assert whats(findings, "seed_file") == ["seed file name"]
    assert whats(findings, "list_heading") == ["heading inside a list item"]
    network = [f for f in findings if f.report == "network.html"]
    assert sorted(f.where for f in network if f.what == "request other than the page") == [
        "https://cdn.example.org/logo.png",
        "https://cdn.example.org/x.js",
    ]
    assert whats(findings, "console_error") == ["console error: broken"]
    assert [w.split(":")[0] for w in whats(findings, "exception")] == ["uncaught exception"]
    assert whats(findings, "indented_text") == [
        "monospace block without a code language (indented text?)"
    ]
    assert whats(findings, "printed_output") == ["monospace block of printed output"]


def test_a_finding_is_one_line_naming_the_file_what_and_where():
    finding = Finding("design_lab.html", "machine path", 'section "Data", /work/x/y')
    assert finding.line() == 'design_lab.html: machine path (at section "Data", /work/x/y)'


def test_the_command_prints_findings_and_a_summary_and_exits_1(tmp_path):
    page(tmp_path, "index", "<p>Reports</p>")
    page(tmp_path, "bad", "<ul><li><h2>#1 heading</h2></li></ul><p>/tmp/x/y</p>")
    result = run_cli("report", "--check", str(tmp_path))
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        'bad.html: heading inside a list item (at top, "#1 heading")',
        'bad.html: machine path (at section "#1 heading", /tmp/x/y)',
        f"trackerlab: browser check of {tmp_path}: 2 findings in 1 of 2 pages",
    ]
    (tmp_path / "bad.html").unlink()
    result = run_cli("report", "--check", str(tmp_path))
    assert (result.returncode, result.stdout.splitlines()[-1]) == (
        0,
        f"trackerlab: browser check of {tmp_path}: 1 pages, no findings",
    )


def test_missing_chromium_or_playwright_is_one_line_and_exit_2(tmp_path):
    page(tmp_path, "index", "<p>Reports</p>")
    with pytest.raises(BrowserMissing, match="Chromium at /nowhere/chromium"):
        check_pages([tmp_path / "index.html"], executable="/nowhere/chromium")
    env = {**os.environ, "TRACKERLAB_CHROMIUM": "/nowhere/chromium"}
    result = run_cli("report", "--check", str(tmp_path), env=env)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "trackerlab: the browser check needs Chromium at /nowhere/chromium "
        "(apt-get install chromium)\n"
    )
    fake = tmp_path / "fake" / "playwright"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no playwright here')\n")
    env = {
        **os.environ,
        "PYTHONPATH": f"{fake.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    result = run_cli("report", "--check", str(tmp_path), env=env)
    assert result.returncode == 2 and result.stderr.startswith(
        "trackerlab: the browser check needs Playwright for Python"
    )
    assert len(result.stderr.splitlines()) == 1


def test_screenshots_of_the_index_and_reports_are_full_pages_1280_px_wide(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    page(folder, "index", "<p>Reports</p>" + "<p>line</p>" * 100)
    page(folder, "a", "<p>A</p>")
    out = tmp_path / "shots"
    written = browser_check.screenshots(folder, ["a"], out, "before")
    assert [p.name for p in written] == ["index-before.png", "a-before.png"]
    from PIL import Image

    with Image.open(written[0]) as index, Image.open(written[1]) as a:
        assert index.size[0] == a.size[0] == 1280 and index.mode == a.mode == "P"
        assert index.size[1] > 900 >= a.size[1]  # the index is longer than the window
