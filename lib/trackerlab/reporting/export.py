"""A report's HTML, the CSVs beside it, and what its outputs tell the index.

:func:`export_report` turns an executed notebook into the files a reader opens:

- ``NAME.html``: standalone (figures embedded), **code hidden** behind a "Show code" toggle,
  a bar linking back to ``index.html`` and to the executed ``NAME.ipynb``, the report's
  answer on top and its run parameters (with their descriptions) in a fold. No script or
  style is fetched from the network (nbconvert's require.js, MathJax, Mermaid and widget
  loaders are left out), wide outputs scroll inside their own box, long printed lines wrap,
  and a markdown line that starts with ``#123`` (an issue number) stays text instead of
  turning into a heading;
- ``NAME.SLUG.csv``: the full tables that :func:`~trackerlab.reporting.tables.show_table`
  collapsed (the HTML links to them);
- the metadata for ``NAME.json``: headlines, the answer, the figure defects found by
  :mod:`~trackerlab.reporting.figure_check` and the CSV files written.

It applies to every notebook in ``notebooks/`` without any change to the notebook.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

from trackerlab.reporting.figure_check import FIGURE_CHECK_MIME
from trackerlab.reporting.formatting import format_number
from trackerlab.reporting.headline import read_answer, read_headlines
from trackerlab.reporting.notebooks import NotebookInfo, read_notebook
from trackerlab.reporting.tables import TABLE_MIME

__all__ = ["export_report", "read_figure_defects", "read_tables"]

#: A markdown line starting with '#' and no space ("#26024) ..."): text, not a heading.
_HASH_LINE = re.compile(r"^(#+)(?=[^#\s])", re.MULTILINE)

REPORT_CSS = """
main { max-width: 72em; margin: 0 auto; padding: 0 1em 3em; }
body:not(.tl-show-code) .jp-CodeCell .jp-Cell-inputWrapper { display: none; }
body:not(.tl-show-code) .jp-CodeCell.jp-mod-noOutputs { display: none; }
.jp-OutputArea-output { overflow-x: auto; max-width: 100%; }
.jp-OutputArea-output pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.jp-OutputArea-output img { max-width: 100%; height: auto; }
.jp-RenderedHTMLCommon table { display: block; overflow-x: auto; max-width: 100%; }
.jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th { white-space: normal; max-width: 40em; }
.tl-bar { position: sticky; top: 0; z-index: 10; display: flex; gap: 1em; align-items: center;
  background: #fff; border-bottom: 1px solid #ddd; padding: .5em 0; margin-bottom: 1em;
  font-family: system-ui, sans-serif; font-size: 14px; }
.tl-bar button { margin-left: auto; font: inherit; padding: .2em .8em; cursor: pointer; }
.tl-summary { font-family: system-ui, sans-serif; font-size: 14px; margin: 0 0 1em; }
.tl-summary table { border-collapse: collapse; margin-top: .4em; }
.tl-summary td { padding: .15em .8em .15em 0; vertical-align: top; border-bottom: 1px solid #eee; }
.tl-summary .tl-answer { border-left: 4px solid #2a9d8f; padding: .4em .8em; background: #f3faf9;
  font-size: 16px; margin-bottom: .6em; }
"""

TOGGLE_JS = """
(function () {
  var button = document.getElementById("tl-toggle-code");
  if (!button) { return; }
  button.addEventListener("click", function () {
    var shown = document.body.classList.toggle("tl-show-code");
    button.textContent = shown ? "Hide code" : "Show code";
    button.setAttribute("aria-pressed", shown ? "true" : "false");
  });
})();
"""

# nbconvert's lab template without any network script; our style, bar and toggle added.
REPORT_TEMPLATE = (
    "{%- extends 'index.html.j2' -%}\n"
    "{%- block html_head_js -%}{%- endblock html_head_js -%}\n"
    "{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}\n"
    "{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}\n"
    "{% block jupyter_widgets %}{% endblock jupyter_widgets %}\n"
    '{% block extra_css %}<style type="text/css">{{ resources.trackerlab_css }}</style>'
    "{% endblock extra_css %}\n"
    "{%- block body_header -%}{{ super() }}{{ resources.trackerlab_header }}"
    "{%- endblock body_header -%}\n"
    "{% block footer_js %}<script>{{ resources.trackerlab_js }}</script>{% endblock footer_js %}\n"
    "{% block data_png scoped %}"
    '<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">'
    "<img src=\"data:image/png;base64,{{ output.data['image/png'] | escape_html }}\" "
    "alt=\"{{ output.metadata.get('trackerlab_alt', 'figure') | escape_html }}\""
    "{% if output.metadata.get('trackerlab_font_pt') %}"
    ' data-font-pt="{{ output.metadata.trackerlab_font_pt }}"'
    ' data-dpi="{{ output.metadata.trackerlab_dpi }}"{% endif %}></div>'
    "{%- endblock data_png %}\n"
)


def read_tables(nb: nbformat.NotebookNode) -> list[dict]:
    """The full tables an executed notebook attached to its collapsed tables."""
    return [
        dict(output["data"][TABLE_MIME])
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if TABLE_MIME in output.get("data", {})
    ]


def _figure_checks(nb: nbformat.NotebookNode):
    """``(code cell number, check bundle)`` for every figure the notebook displayed."""
    code_cells = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "injected-parameters" not in cell.metadata.get("tags", []):
            code_cells += 1
        for output in cell.get("outputs", []):
            check = output.get("data", {}).get(FIGURE_CHECK_MIME)
            if check is not None:
                yield code_cells, check


def read_figure_defects(nb: nbformat.NotebookNode) -> list[str]:
    """Every figure defect reported by the kernel's figure check, with its cell number."""
    return [
        f"code cell {cell}: {defect}"
        for cell, check in _figure_checks(nb)
        for defect in check.get("defects", [])
    ]


def _describe_figures(nb: nbformat.NotebookNode) -> None:
    """Give every figure its titles as alternative text, and its smallest font size (pt) and
    dpi for the browser check's ``data-font-pt``/``data-dpi`` (the figure check records them)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                check = data.get(FIGURE_CHECK_MIME, {})
                meta = output.setdefault("metadata", {})
                meta["trackerlab_alt"] = check.get("title") or "figure"
                if check.get("font_pt") and check.get("dpi"):
                    meta["trackerlab_font_pt"] = round(float(check["font_pt"]), 2)
                    meta["trackerlab_dpi"] = round(float(check["dpi"]), 2)


def _unheading(nb: nbformat.NotebookNode) -> None:
    """Escape markdown lines like ``#26024) ...`` so they render as text."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _HASH_LINE.sub(lambda m: "\\#" * len(m.group(1)), cell.source)


def _value_text(value: object) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, str):
        return value or "(empty)"
    return format_number(value, 6)


def _header(info: NotebookInfo, params: dict[str, object], profile: str, answer: str) -> str:
    rows = []
    for p in info.parameters:
        value = params.get(p.name, p.default)
        rows.append(
            f"<tr><td><code>{html.escape(p.name)}</code></td>"
            f"<td>{html.escape(_value_text(value))}</td>"
            f"<td>{html.escape(p.help)}</td></tr>"
        )
    answer_html = (
        f'<div class="tl-answer"><b>Answer.</b> {html.escape(answer)}</div>' if answer else ""
    )
    params_html = (
        f"<details><summary>Run parameters (profile <b>{html.escape(profile)}</b>)</summary>"
        f"<table>{''.join(rows)}</table></details>"
        if rows
        else f"<p>Profile <b>{html.escape(profile)}</b>.</p>"
    )
    return (
        '<nav class="tl-bar"><a href="index.html">&larr; All reports</a>'
        f'<a href="{html.escape(info.name)}.ipynb">Executed notebook ({html.escape(info.name)}.ipynb)</a>'
        '<button id="tl-toggle-code" type="button" aria-pressed="false">Show code</button></nav>'
        f'<section class="tl-summary">{answer_html}{params_html}</section>'
    )


def _write_tables(nb: nbformat.NotebookNode, folder: Path, name: str) -> list[str]:
    for stale in folder.glob(f"{name}.*.csv"):
        stale.unlink()
    written = []
    for table in read_tables(nb):
        path = folder / f"{name}.{table['name']}.csv"
        path.write_text(table["csv"], encoding="utf-8")
        written.append(path.name)
    return written


def export_report(
    executed: Path,
    html_path: Path,
    info: NotebookInfo,
    params: dict[str, object],
    profile: str,
) -> dict[str, object]:
    """Write ``html_path`` and the CSVs beside it; return the metadata the index reads."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    nb = read_notebook(executed)
    answer = read_answer(nb)
    meta = {
        "headlines": read_headlines(nb),
        "answer": answer,
        "figure_defects": read_figure_defects(nb),
        "figures_checked": sum(1 for _ in _figure_checks(nb)),
        "figure_check_s": round(sum(c.get("seconds", 0.0) for _, c in _figure_checks(nb)), 2),
        "tables": _write_tables(nb, html_path.parent, info.name),
    }
    _unheading(nb)
    _describe_figures(nb)
    exporter = HTMLExporter(
        template_name="lab",
        template_file="trackerlab-report.html.j2",
        extra_loaders=[DictLoader({"trackerlab-report.html.j2": REPORT_TEMPLATE})],
        embed_images=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    resources = {
        "trackerlab_css": REPORT_CSS,
        "trackerlab_js": TOGGLE_JS,
        "trackerlab_header": _header(info, params, profile, answer),
        "metadata": {"name": info.title},
    }
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    html_path.write_text(body, encoding="utf-8")
    return meta
