"""The index a reader opens: answers first, reproduction in one line, no machine paths."""

import json
import re

from trackerlab.core.paths import repo_root
from trackerlab.reporting.index_page import LEAD_REPORT, render_index

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _meta(folder, name, title, answer="", headlines=(), **extra):
    meta = {
        "name": name,
        "title": title,
        "profile": "smoke",
        "parameters": {"sweep_dir": str(repo_root() / "data" / "sweeps" / "smoke")},
        "finished": "2026-11-24T04:17:06Z",
        "duration_s": 25.9,
        "git_commit": COMMIT,
        "versions": {"pyroaring": "1.2.0"},
        "answer": answer,
        "headlines": [dict(h) for h in headlines],
        **extra,
    }
    (folder / f"{name}.json").write_text(json.dumps(meta))


def _reports(tmp_path):
    _meta(
        tmp_path,
        "delayed_delivery",
        "Delayed delivery: the triple heap against time buckets",
        answer="At the default 1,000 ms tick, time buckets cost 2.2 B/entry.",
        headlines=[{"label": "heap", "value": "24 B/entry", "note": ""}],
    )
    _meta(
        tmp_path,
        "spark_sweeps",
        "Spark sweeps",
        headlines=[
            {
                "label": "data source",
                "value": "Spark sweep",
                "note": f"Spark sweep {repo_root()}/data/sweeps/smoke (20 points)",
            },
            {"label": "seed", "value": "from 001_b11b1d0ae919959a.txt", "note": ""},
        ],
    )
    _meta(
        tmp_path,
        "overview",
        "Published numbers",
        headlines=[{"label": "reproduced", "value": "49 of 57", "note": "8 explained"}],
    )


def _visible_text(page: str) -> str:
    page = re.sub(r"<style.*?</style>|<!--.*?-->", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def test_answers_lead_each_card_and_reproduction_is_one_line(tmp_path):
    _reports(tmp_path)
    page = render_index(tmp_path)
    text = " ".join(_visible_text(page).split())
    assert "At the default 1,000 ms tick, time buckets cost 2.2 B/entry." in text
    # reproduction: one line linking to the overview, not a card of its own
    assert re.search(
        r"Reproduction of the seeds' numbers: 49 of 57 published numbers "
        r"reproduced \(8 explained\) ?\. Details: Published numbers ?\.",
        text,
    )
    assert page.count('href="overview.html"') == 2  # the status line and the run details
    # a report without an answer shows its first figure as its headline
    assert 'class="answer"><b>data source</b>: Spark sweep' in page
    assert COMMIT[:12] in page and "pyroaring 1.2.0" in page


def test_no_machine_path_and_no_seed_file_name(tmp_path):
    _reports(tmp_path)
    page = render_index(tmp_path)
    assert str(repo_root()) not in page
    assert "data/sweeps/smoke (20 points)" in page
    assert "b11b1d0ae919959a" not in page and "The TimeBucket blog" in page


def test_the_capacity_planner_leads_once_it_exists(tmp_path):
    _reports(tmp_path)
    page = render_index(tmp_path)
    assert f"lead slot: the answer of {LEAD_REPORT}.ipynb" in page
    assert 'class="lead"' not in page
    _meta(
        tmp_path,
        LEAD_REPORT,
        "Capacity planner",
        answer="Your topic needs 1.3 GiB of broker heap for delayed delivery.",
    )
    page = render_index(tmp_path)
    lead = page.index('class="lead"')
    # the engineer's questions come first, the reproduction status opens the research part
    assert lead < page.index('id="delayed_delivery"') < page.index("Reproduction of the seeds")
    assert "Your topic needs 1.3 GiB" in page[lead : page.index('id="delayed_delivery"')]
    assert page.count(f'id="{LEAD_REPORT}"') == 1  # not also a card


def test_failed_runs_are_listed(tmp_path):
    _reports(tmp_path)
    failed = tmp_path / "_failed"
    failed.mkdir()
    (failed / "pending_acks.json").write_text(
        json.dumps(
            {
                "name": "pending_acks",
                "finished": "2026-11-24T04:17:06Z",
                "error": "cell 3: ZeroDivisionError",
            }
        )
    )
    page = render_index(tmp_path)
    assert "Failed runs" in page and "cell 3: ZeroDivisionError" in page


def test_questions_in_the_engineers_order_then_research(tmp_path):
    """Memory for my workload, upgrade, consumer limit, best design; then research. Answers
    start upper case even when the notebook wrote them in lower case."""
    _reports(tmp_path)
    for name, title, answer in (
        (LEAD_REPORT, "Capacity planner", "A topic at 20k/s needs 1.3 GiB"),
        ("pulsar_versions", "Today's Pulsar", "upgrading from 4.0.5 to 4.1 keeps 288.8 MiB"),
        ("receiver_queue", "Receiver queue", "A consumer under 64 MiB stays under it"),
        ("design_lab", "Design lab", "Over 8 cells, hier is best"),
        ("zz_other", "Another study", "Something else."),
    ):
        _meta(tmp_path, name, title, answer=answer)
    page = render_index(tmp_path)
    order = [
        "How much memory will my workload need?",
        'id="capacity_planner"',
        "What changes if I upgrade Pulsar?",
        'id="pulsar_versions"',
        "Does my consumer stay under its memory limit?",
        'id="receiver_queue"',
        "Which tracker design is best?",
        'id="delayed_delivery"',
        "Research",
        "Reproduction of the seeds",
        'id="design_lab"',
        'id="spark_sweeps"',
        'id="zz_other"',
    ]
    positions = [page.index(mark) for mark in order]
    assert positions == sorted(positions)
    assert "Upgrading from 4.0.5 to 4.1 keeps 288.8 MiB." in page
    assert "upgrading from" not in page
