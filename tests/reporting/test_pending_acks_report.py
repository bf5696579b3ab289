"""The pending-acks report's tables and sentences, against hand-computed numbers."""

from __future__ import annotations

import pandas as pd
import pytest

from trackerlab.reporting import pending_acks_report as report

TREEMAP, BITSET = "pending-acks-treemap", "pending-acks-open-hash-bitset"
MIB = 1024 * 1024


def test_by_dataset_orders_the_seed_datasets_and_layouts() -> None:
    cases = [
        (100, 1),
        (1_000, 1),
        (50_000, 1),
        (50_000, 5),
        (50_000, 10),
        (50_000, 20),
        (1_000, 100),
    ]
    rows = [
        {"layout": layout, "entries": e, "ledgers": n, "jvm_bytes": 10 * i + j}
        for j, layout in enumerate(report.LAYOUT_ORDER)
        for i, (e, n) in enumerate(reversed(cases))
    ]
    wide = report.by_dataset(pd.DataFrame(rows), "jvm_bytes")
    assert wide.index.tolist() == [
        "100 entries / 1 ledgers",
        "1,000 entries / 1 ledgers",
        "50,000 entries / 1 ledgers",
        "50,000 entries / 5 ledgers",
        "50,000 entries / 10 ledgers",
        "50,000 entries / 20 ledgers",
        "1,000 entries / 100 ledgers",
    ]
    assert wide.columns.tolist() == report.LAYOUT_ORDER
    assert wide.loc["100 entries / 1 ledgers", TREEMAP] == 60  # last of the reversed rows
    assert wide.loc["1,000 entries / 100 ledgers", "pending-acks-pair-hash"] == 6
    assert report.dataset_table(wide).columns[0] == "treemap"


def test_worst_reproduced_ignores_other_categories() -> None:
    repro = pd.DataFrame(
        {"category": ["reproduced", "reproduced", "deviates"], "ratio": [1.02, 0.97, 1.5]}
    )
    assert report.worst_reproduced(repro) == pytest.approx(0.03)


def test_held_bytes_is_the_last_hold_checkpoint() -> None:
    timeline = pd.DataFrame(
        {
            "layout": [TREEMAP] * 3 + [BITSET] * 3,
            "phase": ["ramp", "hold", "hold", "ramp", "hold", "hold"],
            "jvm_bytes": [900, 80, 70, 800, 600, 500],
        }
    )
    held = report.held_bytes(timeline)
    assert held[TREEMAP] == 70 and held[BITSET] == 500
    assert held.index.tolist() == report.LAYOUT_ORDER  # layouts not run are NaN
    assert report.held_table(held).loc["open-hash-bitset", "bytes"] == 500


def _frames():
    jvm = pd.DataFrame(
        {TREEMAP: [4 * MIB], BITSET: [1 * MIB], "pending-acks-packed-avl": [2 * MIB]},
        index=["50,000 entries / 1 ledgers"],
    )
    grid = pd.DataFrame(
        {
            "window": [1000] * 4,
            "ledgers": [1, 1, 5, 5],
            "layout": [TREEMAP, BITSET, TREEMAP, BITSET],
            "jvm_bytes_per_entry": [90.0, 30.0, 95.0, 120.0],
        }
    )
    held = pd.Series({TREEMAP: 10 * 1024, BITSET: 512 * 1024})
    direction = pd.DataFrame(
        {"touch_change": [-0.4, -0.2, 0.5], "touches_agree": [True, True, False]}
    )
    return jvm, grid, held, direction


def test_conclusions_state_the_numbers_of_the_frames() -> None:
    found = report.conclusions(
        *_frames(),
        worst=0.012,
        counts={"reproduced": 24},
        published=24,
        window_sizes=[1000],
        retention_peak=5000,
        retention_keep=100,
    )
    # 4 MiB / 50,000 = 83.886 B, 1 MiB / 50,000 = 20.97 B; whole numbers print without decimals
    assert found.answer == (
        "For 50,000 pending entries of one ledger, #26024's open-hash-bitset layout holds 1 MiB "
        "(21.0 B/entry) against 4 MiB (83.9 B/entry) for the TreeMap it replaces; it touches "
        "fewer cache lines in 2 of 3 benchmark cycles, but a stuck tail of 100 entries keeps "
        "512 KiB against 10 KiB."
    )
    first, second = found.headlines
    assert first.value == "1 MiB"
    assert first.note == "TreeMap 4 MiB; JVM model within 1.2% of every reproduced JOL number"
    assert (second.value, second.note.split(",")[0]) == (
        "2 of 3 cells",
        "estimated cache lines touched",
    )
    lines = found.lines
    assert lines[0].startswith("* **Reproduction** of the 24 JOL numbers")
    assert "within 1.2% of every reproduced one" in lines[0]
    # the smallest is the bitset layout; 4 MiB / 1 MiB = 4
    assert "open-hash-bitset with 1 MiB (21.0 B/entry); the TreeMap needs 4× as much" in lines[1]
    # at the widest spread (5 ledgers) treemap is cheapest, the bitset layout dearest
    assert lines[2] == (
        "* **Window of 1,000 entries over 5 ledgers:** treemap 95 B/entry, open-hash-bitset 120 B/entry."
    )
    assert (
        "after a 5,000 peak" in lines[3]
        and "open-hash-bitset 512 KiB against the TreeMap's 10 KiB" in lines[3]
    )
    assert (
        "winner in 2 of 3 cells; the primitive layout touches fewer cache lines in 2 of them"
        in lines[4]
    )
    assert len(lines) == 5


@pytest.fixture
def shown(monkeypatch):
    """The bundles the functions display."""
    out: list = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: out.append(obj))
    return out


def test_show_held_shows_the_held_table_and_returns_the_held_bytes(shown) -> None:
    timeline = pd.DataFrame(
        {
            "layout": [TREEMAP] * 2 + [BITSET] * 2,
            "phase": ["ramp", "hold", "ramp", "hold"],
            "jvm_bytes": [900, 70, 800, 500],
        }
    )
    held = report.show_held(timeline, 100_000, 1_000)
    assert held[TREEMAP] == 70 and held[BITSET] == 500
    (table,) = shown
    assert "1,000 entries pending after a peak of 100,000" in table["text/html"]


def test_show_datasets_returns_jvm_bytes_and_shows_python_only_when_asked(shown) -> None:
    table = pd.DataFrame(
        [
            {"layout": name, "entries": e, "ledgers": n, "jvm_bytes": (i + 1) * MIB,
             "python_bytes": 2 * (i + 1) * MIB}
            for i, name in enumerate(report.LAYOUT_ORDER)
            for e, n in report.sizes.SEED_CASES
        ]
    )  # fmt: skip
    jvm = report.show_datasets(table, python_sizes=False)
    assert (
        jvm.loc["50,000 entries / 1 ledgers", BITSET]
        == (report.LAYOUT_ORDER.index(BITSET) + 1) * MIB
    )
    assert len(shown) == 1 and "JVM bytes per layout (KiB)" in shown[0]["text/html"]
    report.show_datasets(table, python_sizes=True)
    assert len(shown) == 3 and "Python-real bytes per layout (KiB)" in shown[2]["text/html"]
