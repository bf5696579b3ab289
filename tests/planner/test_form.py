"""The capacity planner's JupyterLab form, driven headlessly as JupyterLab drives it.

A committed value (Enter or blur: every control has ``continuous_update=False``) sets the
control's ``value``, which plans once. The tests compare what the form shows with the planner
called directly and with the command line run in-process: the same table, the same figure,
and for a bad value the same one line.
"""

import html
import shlex

import pandas as pd
import pytest
from matplotlib.figure import Figure

from tests.planner.test_inputs import FLAGS, SMALL, cli_error
from trackerlab.commands.cli import main
from trackerlab.planner import PlannerForm, PlanWorkload, answer, form, parse_inputs, plan
from trackerlab.planner.defaults import defaults_for
from trackerlab.planner.frames import choice_frame, rows_frame
from trackerlab.planner.plan_report import table
from trackerlab.planner.workload import FIELD_BY_NAME

MIB = 2**20


def widgets_of(widget):
    """``widget`` and every widget inside it."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from widgets_of(child)


def commit(f: PlannerForm, name: str, value: str) -> None:
    """What JupyterLab sends when the user presses Enter in (or leaves) a control."""
    f.controls[name].value = value


@pytest.fixture(scope="module")
def small_form():
    return PlannerForm(SMALL)


def test_every_control_commits_its_value_instead_of_following_keystrokes(small_form):
    assert {"pulsar_version", "budget", "nack_precision_bits", "partitions", "topics"} <= set(
        small_form.controls
    )
    updating = [w for w in widgets_of(small_form.widget) if w.has_trait("continuous_update")]
    assert len(updating) == len(small_form.controls)
    assert [w.description for w in updating if w.continuous_update] == []
    versions = small_form.controls["pulsar_version"].options
    assert "4.0.6+" in versions and "master" in versions


def test_one_plan_per_committed_value(monkeypatch):
    f = PlannerForm(SMALL)
    calls = []
    real = form.parse_inputs
    monkeypatch.setattr(form, "parse_inputs", lambda *a: calls.append(a) or real(*a))
    commit(f, "topics", "10")
    assert len(calls) == 1
    commit(f, "topics", "10")  # the same value again: nothing to plan
    assert len(calls) == 1


def test_the_table_and_figure_are_the_planners(capsys):
    given = {**SMALL, "nacked": "2%", "batch": 10}
    typed = {
        "pulsar_version": "4.0.7",
        "partitions": "4",
        "topics": "100",
        "nack_precision_bits": "6",
    }
    f = PlannerForm(given)
    for name, value in typed.items():
        commit(f, name, value)
    assert f.error is None
    direct = plan(PlanWorkload.parse({**given, **typed}))  # the planner itself
    pd.testing.assert_frame_equal(f.table, rows_frame(direct))
    # the numbers a reader sees: 4.0.7 runs the triple heap, totals over 4 x 100 x 4
    runs = f.table[f.table.pulsar_runs_it & (f.table.tracker == "delayed-delivery index")]
    assert runs.design.tolist() == ["triple-heap"]
    row = next(r for r in direct.rows if r.default and r.tracker == "delayed-delivery index")
    assert runs.per_broker_mib.iloc[0] == row.per_broker / MIB
    assert row.per_broker == row.steady_bytes * 4 * 4 * 100
    assert f.result.workload.values["batch"] == 10  # a key without a control is kept
    assert f.result.workload.values["nack_precision_bits"] == 6
    # the figure: one panel per tracker, each with a point per design
    [fig] = f.figures
    assert isinstance(fig, Figure)
    trackers = list(dict.fromkeys(f.table.tracker))
    assert [ax.get_title() for ax in fig.axes] == trackers
    for ax, tracker in zip(fig.axes, trackers, strict=True):
        assert len(ax.collections[-1].get_offsets()) == (f.table.tracker == tracker).sum()
    assert html.escape(answer(direct)) in f.status.value
    # the command line the form shows gives the same answer
    capsys.readouterr()
    assert main(shlex.split(f.command)[1:]) == 0
    assert capsys.readouterr().out == table(direct) + "\n"


def test_a_budget_adds_the_recommendation(small_form):
    commit(small_form, "budget", "64MiB")
    try:
        direct = parse_inputs(SMALL, "64MiB").plan()
        pd.testing.assert_frame_equal(small_form.choices, choice_frame(direct))
        assert small_form.choices.chosen.sum() == 1
        assert [c.value for c in small_form.result.choices] == [c.value for c in direct.choices]
        assert len(small_form.figures) == 2
        assert all(isinstance(fig, Figure) for fig in small_form.figures)
    finally:
        commit(small_form, "budget", "")
    assert small_form.choices.empty and len(small_form.figures) == 1


@pytest.mark.parametrize(
    ("control", "value", "flags"),
    [
        ("rate", "0/s", ["--rate", "0/s"]),
        ("budget", "12 parsecs", ["--budget", "12 parsecs"]),
        ("pulsar_version", "9.9", ["--pulsar-version", "9.9"]),
        ("partitions", "0", ["--partitions", "0"]),
        ("nack_precision_bits", "eight", ["--nack-precision-bits", "eight"]),
    ],
)
def test_a_bad_value_shows_the_command_lines_one_line(capsys, small_form, control, value, flags):
    expected = cli_error(capsys, *FLAGS, *flags)
    before = small_form.controls[control].value
    commit(small_form, control, value)
    try:
        assert small_form.error == expected
        assert small_form.status.value.count("\n") == 0
        assert html.escape(expected) in small_form.status.value
        assert "Traceback" not in small_form.status.value
        assert "ValueError" not in small_form.status.value
        assert small_form.result is None and small_form.table is None
        assert small_form.figures == []
    finally:
        commit(small_form, control, before)
    assert small_form.error is None and small_form.table is not None  # corrected: planned again


def test_a_defect_is_one_line_not_a_traceback(monkeypatch, caplog):
    f = PlannerForm(SMALL)

    def broken(*args):
        raise ValueError("bitmaps must have 1..256 chunks")

    monkeypatch.setattr(form, "parse_inputs", broken)
    commit(f, "topics", "2")
    assert f.error is not None and f.error.startswith("trackerlab: ")
    assert "ValueError" not in f.status.value and "256 chunks" not in f.status.value
    assert "bitmaps must have" in caplog.text  # the traceback goes to the log


def test_the_release_defaults_show_as_placeholders(small_form):
    assert small_form.controls["rate"].placeholder == "required (e.g. 20k/s)"
    assert small_form.controls["budget"].placeholder == "none (e.g. 512MiB)"
    commit(small_form, "pulsar_version", "3.0.x")
    try:
        tick = FIELD_BY_NAME["tick"].default_text(defaults_for("3.0.x"))
        assert small_form.controls["tick"].placeholder == f"default: {tick}"
        bits = small_form.controls["nack_precision_bits"].placeholder
        assert bits.startswith("default: 8 (PIP-393's") and "has no such setting" in bits
    finally:
        commit(small_form, "pulsar_version", "")
    assert "has no such setting" not in small_form.controls["nack_precision_bits"].placeholder
