"""The massive_delayed report's sentences on hand-chosen figures: each number a sentence
states is written out by hand (format_number's rules: integers in full with separators,
other values to 3 significant figures)."""

from __future__ import annotations

import pandas as pd

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
