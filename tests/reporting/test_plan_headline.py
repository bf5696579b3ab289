"""The capacity plan's index figure and notes (``plan_headline``, ``plan_notes``), on plans of
``trackerlab plan``'s own parsers."""

import dataclasses

import pytest

from trackerlab.planner import parse_inputs
from trackerlab.planner.plan_report import answer as plan_answer
from trackerlab.reporting import plan_headline, plan_notes, publish_plan, show_plan_choices

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def _plan(**over):
    values = {"rate": "2k/s", "delayed": "30%", "delay": "uniform:0:10m", "nacked": "2%",
              "subscriptions": 4, "topics": 3, "pulsar_version": "4.2", **over}  # fmt: skip
    return parse_inputs(values, budget="", max_early="").plan()


def test_headline_states_the_delayed_index_per_broker():
    plan = _plan()
    label, value, note = plan_headline(plan, 3)
    number, unit = value.split()
    per_broker = plan.own("delayed-delivery index").per_broker
    assert label == "delayed index per broker"
    assert float(number) * UNITS[unit] == pytest.approx(per_broker, rel=5e-3)  # 3 figures
    assert float(number) < 1024 and float(number) >= 1  # the largest unit that keeps it >= 1
    assert note == "3 topics like this one"
    assert plan_headline(plan, 1)[2] == "1 topic like this one"
    assert plan_headline(plan, 1200)[2] == "1,200 topics like this one"


def test_headline_without_delayed_messages_counts_the_designs():
    plan = _plan(delayed="0%")
    assert plan.own("delayed-delivery index") is None
    assert plan_headline(plan, 3) == (
        "designs sized",
        str(len(plan.rows)),
        "every tracker, per unit, topic and broker",
    )


def test_notes_escape_and_close_each_warning():
    plan = dataclasses.replace(_plan(), warnings=["rate *above* 1e6", "x"])
    assert plan_notes(plan) == ["*Note: rate \\*above\\* 1e6.*", "*Note: x.*"]
    assert plan_notes(_plan()) == []


def test_choices_section_shows_the_table_and_figure_when_a_budget_is_asked(shown):
    import matplotlib

    matplotlib.use("Agg")
    values = {"rate": "2k/s", "delayed": "30%", "delay": "uniform:0:10m", "subscriptions": 4}
    plan = parse_inputs(values, budget="512MiB", max_early="").plan()
    assert plan.choices
    fig = show_plan_choices(plan)
    (table,) = shown
    assert "recommended" in table["text/plain"].splitlines()[0]  # the choice table's header
    assert fig.axes[0].get_xlabel() == "largest early delivery (s)"
    matplotlib.pyplot.close("all")


def test_choices_section_says_why_nothing_is_recommended(shown):
    assert show_plan_choices(_plan()) is None  # no budget, no precision asked
    (note,) = shown
    assert note.data == "*No budget or precision was asked: no recommendation.*"


def test_publish_plan_states_the_answer_notes_and_index_figure(shown):
    plan = dataclasses.replace(_plan(), warnings=["rate *above* 1e6"])
    publish_plan(plan, 3)
    answer_bundle, note, figure = shown
    text = plan_answer(plan).strip()
    assert answer_bundle["text/plain"] == f"Answer: {text[:1].upper()}{text[1:]}"
    assert note.data == "*Note: rate \\*above\\* 1e6.*"
    label, value, extra = plan_headline(plan, 3)
    assert figure["text/plain"] == f"{label}: {value} ({extra})"
    assert figure["text/plain"].startswith("delayed index per broker: ")
    assert figure["text/plain"].endswith(" (3 topics like this one)")
