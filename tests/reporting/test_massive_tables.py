"""The massive_delayed report's sentences on hand-chosen figures: each number a sentence
states is written out by hand (format_number's rules: integers in full with separators,
other values to 3 significant figures)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from trackerlab.experiments.massive_delayed import DelayedScenario
from trackerlab.experiments.massive_report import MassiveFigures
from trackerlab.reporting import massive_tables as mt

FIGURES = MassiveFigures(
    heap_mib=416.0, pip_mib=64.0, time_buckets_mib=290.5, levels_n12_mib=0.0,
    pip_snapshots_mib=12.5, single_days=32.04, single_storage_gib=31.25, levels_days=2.0,
    levels_mib=0.125, levels_storage_gib=2.5, heap_recovery=9_000_000.0,
    pip_recovery=200_000.0, levels_recovery=3000.0,
)  # fmt: skip
N12_ENTRY = pd.DataFrame({"bytes_per_entry": [25.26]}, index=["triple-heap"])


def test_answer_states_the_figures():
    text = mt.answer_text(FIGURES, 10000.0, "fixed:1d", 100, 2, "uniform:1d:30d")
    assert text == (
        "At 10,000 msg/s with every message delayed 1 d in batches of 100 (2 subscriptions), the "
        "triple heap holds 416 MiB and PIP-195 buckets 64 MiB; with delays spread uniformly from "
        "1 d to 30 d, every single-topic design keeps ledgers for up to 32 days while delay-level "
        "topics keep them 2 days and index 0.125 MiB."
    )


def test_conclusion_lines_by_hand():
    choice = pd.DataFrame(
        {"pick": ["pip195-buckets"], "write amplification of levels": [1.2345]},
        index=pd.Index(["fixed:1d"], name="delay profile"),
    )
    validation = pd.DataFrame({"within 5%": [True, False, True]})
    lines = mt.conclusion_lines(FIGURES, N12_ENTRY, choice, validation)
    assert lines == [
        "* **Memory (problem 1):** for N12 the heap holds 416 MiB (25.3 B/entry in steady state), "
        "time buckets 290 MiB, PIP-195 64 MiB and delay-level topics 0 MiB.",
        "* **Retention (problem 2):** with the mixture every single-topic design keeps ledgers up "
        "to 32 days and holds 31.2 GiB; delay-level topics keep 2 days and 2.50 GiB.",
        "* **Restart (problem 3):** after the mixture a restart rebuilds 9,000,000 indexes with "
        "the heap, 200,000 with PIP-195 and 3,000 with delay levels.",
        "* **Delays fixed at 1 d:** pip195-buckets (write amplification of delay levels 1.23).",
        "* **Checked:** 2 of 3 per-message runs agree with the aggregated model within 5 % (mean "
        "and peak bytes).",
    ]


N12 = DelayedScenario(rate_per_s=10000.0, delay="fixed:1d", days=3.0, batch_size=100)
MIXED = DelayedScenario(delay="uniform:1d:30d", days=32.0)


def test_captions_from_the_scenarios():
    assert mt.n12_caption(N12) == (
        "N12: 10,000 msg/s, delays fixed at 1 d, batches of 100, 2 subscriptions, 3 days"
    )
    mix = DelayedScenario(delay="mix:0.8*uniform:0:60s+0.2*uniform:1d:30d", days=32.0)
    assert mt.mixture_caption(mix) == (
        "Delays 80% between 0 and 1 min, 20% between 1 d and 30 d, 32 days"
    )


def test_answer_for_takes_rate_delays_batch_and_subscriptions_from_the_scenarios():
    assert mt.answer_for(FIGURES, N12, MIXED) == mt.answer_text(
        FIGURES, 10000.0, "fixed:1d", 100, 2, "uniform:1d:30d"
    )


@pytest.fixture
def shown(monkeypatch):
    """What the show functions display: ``(kind, payload, options)``."""
    calls = []
    monkeypatch.setattr(mt, "show_table", lambda frame, *a, **k: calls.append(("table", frame, k)))
    monkeypatch.setattr(mt, "answer", lambda text: calls.append(("answer", text, {})))
    monkeypatch.setattr(mt, "headline", lambda *a: calls.append(("headline", a, {})))
    monkeypatch.setattr(mt, "show_conclusions", lambda ls: calls.append(("bullets", ls, {})))
    return calls


def _fake_run(scenario, seconds=4.0):
    runs = {
        "triple-heap": SimpleNamespace(extras={"segments": 13}),
        "delay-level-topics": SimpleNamespace(extras={}),
    }
    return SimpleNamespace(scenario=scenario, runs=runs, seconds=seconds,
                           simulated_days_per_second=scenario.days / seconds)  # fmt: skip


def test_show_extras_choice_and_speed(shown):
    mt.show_extras(_fake_run(MIXED))
    _kind, frame, options = shown[0]
    assert frame.to_dict("records") == [
        {"design": "triple-heap", "quantity": "segments", "value": 13}
    ]
    assert options["caption"] == "Per-design figures of the mixture run"
    assert options["max_rows"] == 40
    results = {"fixed:1d": summary_frame()}
    choice = mt.show_choice(results)
    assert choice.loc["fixed:1d", "pick"] == "delay-level-topics"
    assert shown[1][1] is choice
    assert shown[1][2]["caption"] == "The design each profile calls for"
    mt.show_speed({"N12": _fake_run(N12)})
    assert shown[2][1].to_dict("records") == [
        {"scenario": "N12", "simulated days": 3.0, "wall time (s)": 4.0,
         "simulated days per second": 0.75}
    ]  # fmt: skip
    assert shown[2][2]["caption"] == "Aggregated simulation speed (four designs)"


def summary_frame():
    """A hand-built run summary: delay levels keep 2 h and rebuild 10 indexes, the others
    keep 30 days, so delay levels are the pick."""
    designs = ["triple-heap", "time-buckets", "pip195-buckets", "delay-level-topics"]
    mib, gib = 1024**2, 1024**3
    return pd.DataFrame({
        "memory_steady_bytes": [416 * mib, 290 * mib, 64 * mib, 0.5 * mib],
        "retention_max_h": [720.0, 720.0, 720.0, 2.0],
        "recovery_indexes": [9e6, 9e6, 2e5, 10.0],
        "extra_writes_bytes": [0.0, 0.0, 12.5 * mib, 0.0],
        "storage_end_bytes": [30 * gib, 30 * gib, 31 * gib, 2 * gib],
        "write_amplification": [1.0, 1.0, 1.0, 1.5],
    }, index=designs)  # fmt: skip


def test_show_conclusion_section_shows_answer_headlines_and_bullets(shown):
    run = SimpleNamespace(summary=summary_frame)
    n12 = SimpleNamespace(**vars(run), scenario=N12)
    mixed = SimpleNamespace(**vars(run), scenario=MIXED)
    choice = pd.DataFrame(
        {"pick": ["delay-level-topics"], "write amplification of levels": [1.5]},
        index=pd.Index(["uniform:1d:30d"], name="delay profile"),
    )
    validation = pd.DataFrame({"within 5%": [True, True]})
    mt.show_conclusion_section(n12, mixed, N12_ENTRY, choice, validation)
    assert [kind for kind, *_ in shown] == ["answer", "headline", "headline", "bullets"]
    assert shown[0][1] == (
        "At 10,000 msg/s with every message delayed 1 d in batches of 100 (2 subscriptions), the "
        "triple heap holds 416 MiB and PIP-195 buckets 64 MiB; with delays spread uniformly from "
        "1 d to 30 d, every single-topic design keeps ledgers for up to 30 days while delay-level "
        "topics keep them 0.083 days and index 0.500 MiB."
    )
    assert shown[1][1][:2] == ("N12 triple heap, 2 subscriptions", "416 MiB")
    assert shown[2][1][2] == "12.5 MiB of snapshots written in 3 days"
    bullets = shown[3][1]
    assert bullets[2] == (
        "* **Restart (problem 3):** after the mixture a restart rebuilds 9,000,000 indexes with "
        "the heap, 200,000 with PIP-195 and 10 with delay levels."
    )
    assert bullets[-1].startswith("* **Checked:** 2 of 2 per-message runs")
