"""The real-broker report's tables and figures (``trackerlab.reporting.broker_tables``), on the
hand-made stored results of ``tests/experiments/test_real_broker_stored.py``."""

from __future__ import annotations

import matplotlib
import pytest

from tests.experiments.test_real_broker_stored import (
    folder,  # noqa: F401 (fixture)
    prov,
    row,
    write,
)
from trackerlab.experiments.real_broker import stored
from trackerlab.reporting import (
    plot_broker_heap,
    plot_broker_runs,
    show_broker_comparisons,
    show_broker_summary,
)
from trackerlab.reporting.tables import TABLE_MIME

matplotlib.use("Agg")


def test_one_comparison_table_per_experiment_without_empty_columns(folder, shown):  # noqa: F811
    show_broker_comparisons(stored.read_results(folder))
    assert len(shown) == 3  # delayed, nack, pending-acks
    delayed = shown[0]["text/plain"]
    assert delayed.splitlines()[0].startswith("delayed: the live tracker's deep size")
    assert "960" in delayed and "+8.00" in delayed  # plan 960 B; 540 vs 500: +8%
    # every column with a value, in the full table (the page shows those that fit)
    header = shown[0][TABLE_MIME]["csv"].splitlines()[0].split(",")
    assert "broker metric (B)" in header and "read lag (ms)" not in header  # no lag stored
    nack = shown[1][TABLE_MIME]["csv"].splitlines()[0].split(",")
    assert "broker metric (B)" not in nack and "plan design" in nack  # the nack rows: no metric


def test_summary_table_states_the_verdicts(folder, shown):  # noqa: F811
    show_broker_summary(stored.read_results(folder))
    (table,) = shown
    lines = table["text/plain"].splitlines()
    assert "worst error (%)" in lines[1] and "broker behind (count)" in lines[1]
    assert lines[2].split() == ["delayed", "4.0.8", "2", "0", "1", "1", "+8.00"]


def test_one_panel_per_run_with_the_plan_line(folder):  # noqa: F811
    fig = plot_broker_runs(stored.read_results(folder), "delayed")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == [
        "w1 on Pulsar 4.2.4",
        "w2 on Pulsar 4.0.8 (broker behind: not compared)",
    ]
    # the plan's dotted line in KiB: 960 B for w1's first row
    plan = [ln for ln in visible[0].get_lines() if ln.get_label() == "plan (steady state)"]
    assert plan[0].get_ydata()[0] == pytest.approx(960 / 1024)
    assert visible[1].texts[0].get_text() == "no samples stored"
    matplotlib.pyplot.close("all")


def test_heap_figure_only_when_a_sample_has_it(folder):  # noqa: F811
    assert plot_broker_heap(stored.read_results(folder)) is None
    write(folder / "delayed-w2-4.0.8-samples.parquet",
          [{"t_s": 5.0, "subscription": "sub-0", "deep_bytes": 1, "broker_heap_used_bytes": 3 << 20}],
          prov("delayed", "w2", "4.0.8"))  # fmt: skip
    fig = plot_broker_heap(stored.read_results(folder))
    lines = {ln.get_label(): list(ln.get_ydata()) for ln in fig.axes[0].get_lines()}
    assert lines["delayed w2 on 4.0.8"] == [3.0]  # 3 MiB
    matplotlib.pyplot.close("all")


def test_row_helper_is_the_stored_tests_one():
    assert row("w", "4.2.4", "s", 1.0, 1, 0.0, "within")["pulsar_version"] == "4.2.4"
