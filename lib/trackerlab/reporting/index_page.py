"""``reports/index.html``: what each report answers, for a reader who has not seen the code.

The page, top to bottom, follows the questions a broker engineer brings (:data:`QUESTIONS`):

1. **How much memory will my workload need?** The answer of :data:`LEAD_REPORT` (the
   capacity planner, ``notebooks/capacity_planner.ipynb``) in a box of its own, once that
   report exists; until then the question keeps an empty slot.
2. **What changes if I upgrade?**, **Does my consumer stay under its memory limit?**,
   **Which tracker design is best?**: one card per report answering it, in that order.
3. **Research**: the reproduction status, one line linking to :data:`REPRODUCTION_REPORT`
   (its answer, else its ``reproduced`` headline), then the :data:`RESEARCH` reports and any
   report no question names, by title.
4. **How these were made** (folded): profile, parameters, commit and library versions.
5. Failed runs, if any.

A card shows the report's answer (:func:`answer`, a sentence naming the workload it assumes,
its first letter upper case), else its first headline figure, then its other headline
figures and a line with the profile and run time.

Every text shown passes :func:`~trackerlab.reporting.reader.reader_text`: no machine paths,
seeds by title.
"""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path

from trackerlab.core.safe_yaml import FileRefused, read_json
from trackerlab.reporting.reader import reader_text

FAILED_DIR = "_failed"
#: Bound of the bounded reader for a report's metadata sidecar.
MAX_META_BYTES = 16 << 20
#: The report whose answer leads the page (the capacity planner, when it exists).
LEAD_REPORT = "capacity_planner"
#: The report whose answer is the one-line reproduction status.
REPRODUCTION_REPORT = "overview"
#: The questions a broker engineer brings, in order, each with the reports that answer it.
QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("How much memory will my workload need?", (LEAD_REPORT,)),
    ("What changes if I upgrade Pulsar?", ("pulsar_versions",)),
    ("Does my consumer stay under its memory limit?", ("receiver_queue",)),
    (
        "Which tracker design is best?",
        ("delayed_delivery", "negative_acks", "pending_acks", "massive_delayed"),
    ),
)
#: The research reports, in order, after the reproduction status (others follow by title).
RESEARCH = ("real_broker", "design_lab", "spark_sweeps")

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; line-height: 1.45; }
main { max-width: 62em; margin: 0 auto; padding: 1.5em 1.2em 3em; }
h1 { font-size: 1.7em; margin: 0 0 .2em; }
.lede { color: #444; margin: 0 0 1.2em; }
.lead { border: 2px solid #2a9d8f; border-radius: 6px; padding: .8em 1.1em; margin: 0 0 1.2em;
  background: #f3faf9; }
.status { padding: .5em .9em; background: #f6f6f6; border-radius: 6px; margin: 0 0 1.4em; }
.card { border-bottom: 1px solid #e3e3e3; padding: .9em 0; }
.card h3, .lead h3 { font-size: 1.1em; margin: 0 0 .3em; }
h2.question { font-size: 1.3em; margin: 1.4em 0 .4em; color: #1d5f57; }
h2.research { font-size: 1.3em; margin: 2em 0 .4em; border-top: 2px solid #ccc; padding-top: .8em; }
.answer { font-size: 1.05em; margin: .2em 0 .4em; }
.figures { margin: .2em 0; padding-left: 1.2em; color: #333; }
.note, .small { color: #666; font-size: 88%; }
details { margin-top: 1.5em; }
table { border-collapse: collapse; width: 100%; font-size: 90%; }
td, th { border-bottom: 1px solid #ddd; padding: .4em; vertical-align: top; text-align: left; }
code { font-size: 95%; }
.failed { color: #9b2226; }
"""


def read_metas(folder: Path) -> list[dict]:
    """The ``*.json`` sidecars of the reports in ``folder``, sorted by name, read through
    the bounded reader; a file that is not one (a user's FIFO, a deep nesting) is skipped."""
    metas = []
    for path in sorted(folder.glob("*.json")):
        try:
            meta = read_json(path, "report metadata", MAX_META_BYTES)
        except FileRefused:
            continue
        if isinstance(meta, dict) and "name" in meta:
            metas.append(meta)
    return metas


def _text(value: object) -> str:
    """Escaped reader text: no machine paths, seeds by title."""
    return html.escape(reader_text(str(value)))


def _headline_text(h: dict) -> str:
    note = f' <span class="note">({_text(h["note"])})</span>' if h.get("note") else ""
    return f"<b>{_text(h.get('label', ''))}</b>: {_text(h.get('value', ''))}{note}"


def sentence(text: str) -> str:
    """``text`` as a sentence: its first letter upper case, ending with a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _answer_html(meta: dict) -> tuple[str, list[dict]]:
    """The report's headline sentence and the figures left to list under it."""
    headlines = list(meta.get("headlines", []))
    if meta.get("answer"):
        return _text(sentence(str(meta["answer"]))), headlines
    if headlines:
        return _headline_text(headlines[0]), headlines[1:]
    return "<i>no answer published</i>", []


def _when(meta: dict) -> str:
    finished = str(meta.get("finished", ""))
    try:
        stamp = datetime.strptime(finished, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return _text(finished)
    return stamp.strftime("%Y-%m-%d %H:%M UTC")


def _run_line(meta: dict) -> str:
    name = html.escape(meta["name"])
    return (
        f'<p class="small">profile {_text(meta.get("profile", ""))} · ran {_when(meta)} in '
        f"{meta.get('duration_s', 0):.0f} s · "
        f'<a href="{name}.ipynb">executed notebook</a></p>'
    )


def _card(meta: dict, kind: str = "card", figures_shown: bool = True) -> str:
    """One report: title, answer, the other figures (research cards only: an engineer's
    question is answered by the sentence) and the run line."""
    name = html.escape(meta["name"])
    answer, figures = _answer_html(meta)
    has_answer = bool(meta.get("answer"))
    shown = figures if figures_shown or not has_answer else []
    items = "".join(f"<li>{_headline_text(h)}</li>" for h in shown)
    tag = "section" if kind == "lead" else "article"
    return (
        f'<{tag} class="{kind}" id="{name}">'
        f'<h3><a href="{name}.html">{_text(meta.get("title", name))}</a></h3>'
        f'<p class="answer">{answer}</p>'
        f"{f'<ul class=figures>{items}</ul>' if items else ''}"
        f"{_run_line(meta)}</{tag}>"
    )


def _lead(meta: dict | None) -> str:
    """LEAD SLOT: the capacity planner's answer leads the page once its report exists."""
    if meta is None:
        return f"<!-- lead slot: the answer of {LEAD_REPORT}.ipynb goes here once it exists -->"
    return _card(meta, "lead", figures_shown=False)


def _status(meta: dict | None) -> str:
    if meta is None:
        return ""
    name = html.escape(meta["name"])
    if meta.get("answer"):
        text = _text(str(meta["answer"]).strip().rstrip("."))
    else:
        headlines = meta.get("headlines", [])
        chosen = next((h for h in headlines if "reproduced" in h.get("label", "")), None)
        chosen = chosen or (headlines[0] if headlines else None)
        if chosen is None:
            return ""
        note = f" ({_text(chosen['note'])})" if chosen.get("note") else ""
        text = f"{_text(chosen['value'])} published numbers {_text(chosen['label'])}{note}"
    title = _text(meta.get("title", name))
    return (
        f'<p class="status"><b>Reproduction of the seeds\' numbers:</b> {text}. '
        f'Details: <a href="{name}.html">{title}</a>.</p>'
    )


def _short_commit(commit: str) -> str:
    """12 hex digits, keeping the ``-dirty`` mark of a run from a modified checkout."""
    return commit[:12] + (" (dirty)" if commit.endswith("-dirty") else "")


def _parameters(meta: dict) -> str:
    params = meta.get("parameters", {})
    return "<br>".join(
        f"<code>{_text(k)}</code> = {_text(json.dumps(v))}" for k, v in params.items()
    )


def _provenance(metas: list[dict]) -> str:
    rows = []
    for meta in metas:
        name = html.escape(meta["name"])
        versions = ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())
        rows.append(
            f'<tr><td><a href="{name}.html">{name}</a></td>'
            f"<td>{_text(meta.get('profile', ''))}</td>"
            f'<td class="small">{_parameters(meta)}</td>'
            f"<td>{_when(meta)}<br><span class=small>{meta.get('duration_s', 0):.1f} s</span></td>"
            f"<td><code>{_text(_short_commit(meta.get('git_commit', 'unknown')))}</code>"
            f'<br><span class="small">{_text(versions)}</span></td></tr>'
        )
    return (
        "<details><summary>How these reports were made: profiles, parameters, commits "
        "and library versions</summary>"
        "<table><tr><th>report</th><th>profile</th><th>parameters</th><th>run</th>"
        f"<th>commit, versions</th></tr>{''.join(rows)}</table></details>"
    )


def _failed(folder: Path) -> str:
    failed = [
        f'<li><a href="{FAILED_DIR}/{html.escape(m["name"])}.ipynb">{html.escape(m["name"])}</a> '
        f"failed ({_when(m)}): {_text(m.get('error', ''))}</li>"
        for m in read_metas(folder / FAILED_DIR)
    ]
    if not failed:
        return ""
    return (
        '<h2 class="failed">Failed runs (the previous report, if any, is still listed above)</h2>'
        f"<ul>{''.join(failed)}</ul>"
    )


def _by_title(metas: list[dict]) -> list[dict]:
    return sorted(metas, key=lambda m: str(m.get("title", m["name"])).lower())


def _questions(by_name: dict[str, dict]) -> str:
    """The engineer's questions, each with the cards of the reports that answer it."""
    parts = []
    for question, names in QUESTIONS:
        metas = [by_name[n] for n in names if n in by_name]
        if names == (LEAD_REPORT,):
            body = _lead(by_name.get(LEAD_REPORT))
        elif not metas:
            continue
        else:
            body = "".join(_card(m, figures_shown=False) for m in metas)
        parts.append(f'<h2 class="question">{html.escape(question)}</h2>{body}')
    return "".join(parts)


def _research(metas: list[dict], by_name: dict[str, dict]) -> str:
    """Reproduction status, then the research reports, then any report no question names."""
    named = {n for _, names in QUESTIONS for n in names} | {REPRODUCTION_REPORT}
    listed = [by_name[n] for n in RESEARCH if n in by_name]
    others = _by_title([m for m in metas if m["name"] not in named | set(RESEARCH)])
    status = _status(by_name.get(REPRODUCTION_REPORT))
    cards = "".join(_card(m) for m in listed + others)
    if not status and not cards:
        return ""
    return f'<h2 class="research">Research: how the answers were checked</h2>{status}{cards}'


def render_index(folder: Path) -> str:
    """HTML for the index of ``folder`` (published reports plus any kept failures)."""
    metas = read_metas(folder)
    by_name = {m["name"]: m for m in metas}
    body = _questions(by_name) + _research(metas, by_name)
    if not metas:
        body += "<p><i>No reports yet: run make report.</i></p>"
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>trackerlab: what Pulsar's message trackers cost</title>
<style>{STYLE}</style></head><body><main>
<h1>What Pulsar's message trackers cost</h1>
<p class="lede">Each report answers one question about the memory and behaviour of Apache
Pulsar's message-tracking structures, from models checked against the Java code. Open a
title for the full report: the story, figures and tables, with the code behind a
"Show code" button.</p>
{body}
{_provenance(metas)}
{_failed(folder)}
<p class="small">Index written {now}.</p>
</main></body></html>
"""


def write_index(folder: Path) -> Path:
    """Write ``folder/index.html`` and return its path."""
    path = folder / "index.html"
    path.write_text(render_index(folder))
    return path
