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


def test_repro_ids_are_n20_to_n43() -> None:
    assert len(report.REPRO_IDS) == 24
    assert report.REPRO_IDS[:2] == ["N20", "N21"] and report.REPRO_IDS[-1] == "N43"


def test_seed_sizes_cover_every_layout_and_seed_dataset() -> None:
    table = report.seed_sizes(python_sizes=False)
    assert len(table) == len(report.LAYOUT_ORDER) * len(report.sizes.SEED_CASES)
    assert table.python_bytes.isna().all()
    jvm = report.by_dataset(table, "jvm_bytes")
    assert jvm.loc["50,000 entries / 1 ledgers", TREEMAP] == 4_400_136  # 88.0 B per entry
    assert jvm.loc["100 entries / 1 ledgers", TREEMAP] == 8936


def test_window_grid_and_its_table(shown) -> None:
    grid = report.window_grid([1000], [1, 2])
    assert len(grid) == 2 * len(report.LAYOUT_ORDER)
    wide = report.window_table(grid)
    assert wide.loc[(1000, 1), "treemap"] == pytest.approx(88.136)
    assert wide.loc[(1000, 2), "open-hash-bitset"] == pytest.approx(35.44)
    assert wide.loc[(1000, 2), "pair-hash"] == pytest.approx(65.688)
    report.show_window_table(grid)
    (table,) = shown
    assert "JVM bytes per pending entry" in table["text/html"]


def test_bench_costs_and_seed_direction(shown) -> None:
    costs = report.bench_costs([1, 5], entries=2000, ops=200, repeats=1)
    assert set(costs.layout) == set(report.LAYOUT_ORDER)
    assert sorted(set(costs.ledgers)) == [1, 5]
    cell = costs[(costs.cycle == "dispatchAndAckCycle") & (costs.ledgers == 1)]
    at = cell.set_index("layout")
    assert at.loc[TREEMAP, "touch_ratio"] == 1.0
    assert at.loc[TREEMAP, "touches"] == pytest.approx(46.44)
    assert at.loc[BITSET, "touches"] == pytest.approx(28.227656)
    direction = report.seed_direction(costs)
    first = direction.iloc[0]
    assert (first.cycle, first.ledgers, first.seed_old, first.seed_new) == (
        "dispatchAndAckCycle",
        1,
        204.8,
        192.9,
    )
    assert first.touch_change == pytest.approx(28.227656 / 46.44 - 1)
    report.show_direction(direction)
    (table,) = shown
    assert "The seed&#x27;s JMH direction against the models" in table["text/html"]  # escaped


def test_conclusion_parts_by_finding() -> None:
    jvm, grid, held, direction = _frames()
    entries, row = report.one_ledger(jvm)
    assert entries == 50_000 and row[BITSET] == MIB
    assert (report.touch_wins(direction), report.touches_agree(direction)) == (2, 2)
    assert report.touches_agree(direction.iloc[:0]) == 0
    assert report.smallest_bullet(jvm) == (
        "* **Smallest layout** for 50,000 entries in one ledger: open-hash-bitset with 1 MiB "
        "(21.0 B/entry); the TreeMap needs 4× as much."
    )
    assert report.window_bullets(grid, [1000]) == [
        "* **Window of 1,000 entries over 5 ledgers:** treemap 95 B/entry, "
        "open-hash-bitset 120 B/entry."
    ]
    assert report.retention_bullet(held, 5000, 100) == (
        "* **Retention:** with 100 entries left after a 5,000 peak, the hash layouts keep their "
        "peak arrays: open-hash-bitset 512 KiB against the TreeMap's 10 KiB."
    )
    assert report.speed_bullet(direction) == (
        "* **Speed:** the cost model picks the seed's JMH winner in 2 of 3 cells; the primitive "
        "layout touches fewer cache lines in 2 of them."
    )
    assert report.reproduction_bullet({"reproduced": 24}, 24, 0.012).endswith(
        "the JVM model is within 1.2% of every reproduced one."
    )
    assert [h.value for h in report.headlines(jvm, direction, 0.012)] == ["1 MiB", "2 of 3 cells"]
