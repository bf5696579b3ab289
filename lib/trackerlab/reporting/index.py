"""``reports/index.html``: every published report with its headline figures and provenance."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path

FAILED_DIR = "_failed"


def read_metas(folder: Path) -> list[dict]:
    """The ``*.json`` sidecars of the reports in ``folder``, sorted by name."""
    metas = []
    for path in sorted(folder.glob("*.json")):
        try:
            meta = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(meta, dict) and "name" in meta:
            metas.append(meta)
    return metas


def _headlines_html(meta: dict) -> str:
    items = []
    for h in meta.get("headlines", []):
        note = f' <span class="note">({html.escape(h["note"])})</span>' if h.get("note") else ""
        items.append(f"<li><b>{html.escape(h['label'])}</b>: {html.escape(h['value'])}{note}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else "<i>none</i>"


def _versions_html(versions: dict) -> str:
    text = ", ".join(f"{k} {v}" for k, v in versions.items())
    return f'<details><summary>versions</summary><span class="small">{html.escape(text)}</span></details>'


def _short_commit(commit: str) -> str:
    """12 hex digits, keeping the ``-dirty`` mark of a run from a modified checkout."""
    return commit[:12] + (" (dirty)" if commit.endswith("-dirty") else "")


def render_index(folder: Path) -> str:
    """HTML for the index of ``folder`` (published reports plus any kept failures)."""
    rows = []
    for meta in read_metas(folder):
        name = html.escape(meta["name"])
        params = html.escape(json.dumps(meta.get("parameters", {}), sort_keys=True))
        rows.append(
            "<tr>"
            f'<td><a href="{name}.html">{html.escape(meta.get("title", name))}</a><br>'
            f'<span class="small"><a href="{name}.ipynb">{name}.ipynb</a></span></td>'
            f"<td>{_headlines_html(meta)}</td>"
            f"<td>{html.escape(meta.get('profile', ''))}"
            f'<br><span class="small" title="{params}">parameters</span></td>'
            f"<td>{html.escape(meta.get('finished', ''))}"
            f'<br><span class="small">{meta.get("duration_s", 0):.1f} s</span></td>'
            f"<td><code>{html.escape(_short_commit(meta.get('git_commit', 'unknown')))}</code>"
            f"{_versions_html(meta.get('versions', {}))}</td>"
            "</tr>"
        )
    failed = []
    for meta in read_metas(folder / FAILED_DIR):
        name = html.escape(meta["name"])
        failed.append(
            f'<li><a href="{FAILED_DIR}/{name}.ipynb">{name}</a> failed '
            f"{html.escape(meta.get('finished', ''))}: {html.escape(meta.get('error', ''))}</li>"
        )
    failed_html = (
        f"<h2>Failed runs (the previous report, if any, is still listed above)</h2><ul>{''.join(failed)}</ul>"
        if failed
        else ""
    )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>trackerlab reports</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; max-width: 75em; }}
table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border-bottom: 1px solid #ddd; padding: .5em; vertical-align: top; text-align: left; }}
ul {{ margin: 0; padding-left: 1.2em; }} .small, .note {{ color: #666; font-size: 85%; }}
</style></head><body>
<h1>trackerlab reports</h1>
<p>Each report is an executed notebook from <code>notebooks/</code>, rendered by
<code>trackerlab report</code>. Index written {now}.</p>
<table><tr><th>Report</th><th>Headline figures</th><th>Profile</th><th>Run</th><th>Commit</th></tr>
{"".join(rows) or '<tr><td colspan="5"><i>no reports yet</i></td></tr>'}
</table>
{failed_html}
</body></html>
"""


def write_index(folder: Path) -> Path:
    """Write ``folder/index.html`` and return its path."""
    path = folder / "index.html"
    path.write_text(render_index(folder))
    return path
