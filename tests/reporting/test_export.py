"""The report's HTML without executing anything: issue-number lines, toggle, no network.

A hand-built "executed" notebook goes through :func:`export_report`; the rendered notebooks
are checked end to end by ``test_render_all.py`` and ``test_browser.py``.
"""

import re

import nbformat

from trackerlab.reporting.export import export_report
from trackerlab.reporting.notebooks import NotebookInfo


def _export(tmp_path, markdown: str) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# A report"),
        nbformat.v4.new_markdown_cell(markdown),
        nbformat.v4.new_code_cell("x = 1", execution_count=1),
    ]
    executed = tmp_path / "r.ipynb"
    nbformat.write(nb, executed)
    out = tmp_path / "r.html"
    info = NotebookInfo("r", executed, "A report", ())
    export_report(executed, out, info, {}, "smoke")
    return out.read_text()


def test_a_line_that_starts_with_an_issue_number_stays_text(tmp_path):
    page = _export(tmp_path, 'Pull request\n#26024) ("Cut overhead") measured it.\n\n## Real')
    headings = re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", page, flags=re.S)
    texts = [re.sub(r"<[^>]+>", "", body).replace("¶", "").strip() for _, body in headings]
    assert texts == ["A report", "Real"]
    assert "#26024) (" in page.replace("&quot;", '"')


def test_code_is_behind_the_toggle_and_nothing_is_fetched(tmp_path):
    page = _export(tmp_path, "Text.")
    assert 'id="tl-toggle-code"' in page and ">Show code<" in page
    assert "body:not(.tl-show-code)" in page
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=\"https?:", page)
    assert 'href="index.html"' in page and 'href="r.ipynb"' in page


def test_a_figure_carries_its_smallest_font_and_dpi_for_the_browser_check(tmp_path):
    from trackerlab.reporting.figure_check import FIGURE_CHECK_MIME

    nb = nbformat.v4.new_notebook()
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    checked = {"defects": [], "title": "sizes", "font_pt": 7.5, "dpi": 100.0}
    unchecked = {"defects": [], "title": "old"}  # a bundle from before fonts were recorded
    nb.cells = [
        nbformat.v4.new_code_cell(
            "fig",
            execution_count=1,
            outputs=[
                nbformat.v4.new_output(
                    "display_data", data={"image/png": png, FIGURE_CHECK_MIME: bundle}
                )
                for bundle in (checked, unchecked)
            ],
        )
    ]
    executed = tmp_path / "r.ipynb"
    nbformat.write(nb, executed)
    export_report(executed, tmp_path / "r.html", NotebookInfo("r", executed, "R", ()), {}, "smoke")
    images = re.findall(r"<img [^>]*>", (tmp_path / "r.html").read_text())
    assert [re.sub(r" src=\"[^\"]*\"", "", i) for i in images] == [
        '<img alt="sizes" data-dpi="100.0" data-font-pt="7.5"/>',
        '<img alt="old"/>',
    ]
