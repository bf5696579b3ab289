from trackerlab.experiments.reproduce.published import load_published
from trackerlab.experiments.reproduce.registry import (
    DEVIATES,
    EXPLAINED,
    PENDING,
    REPRODUCED,
    Reproduction,
    format_results,
    judge,
    reproduce,
)


def test_published_numbers_load_with_units():
    rows = load_published()
    assert list(rows)[:2] == ["N01", "N02"] and len(rows) == 57
    assert rows["N01"].value == 48 and rows["N05"].value is None  # 8192/M is a formula
    assert rows["N22"].unit_bytes == 1024**2 and rows["N08"].unit_bytes == 1024**2
    assert rows["N46"].unit_bytes is None


def test_judge_verdicts():
    assert judge(Reproduction("X", "100", "B", jvm_model=115)).verdict == REPRODUCED
    assert judge(Reproduction("X", "100", "B", jvm_model=125)).verdict == DEVIATES
    assert (
        judge(Reproduction("X", "100", "B", jvm_model=125, explanation="why")).verdict == EXPLAINED
    )
    assert judge(Reproduction("X", "100", "B", jvm_model=102, tolerance=0.01)).verdict == DEVIATES
    assert judge(Reproduction("X", "8192/M", "B")).verdict == PENDING


def test_reproduce_all_ids_in_order_and_formats():
    results = reproduce(["N01", "N02", "N46"])
    assert [r.id for r in results] == ["N01", "N02", "N46"]
    table = format_results(results, "table")
    assert table.splitlines()[0].startswith("id")
    assert "of 3" in table
    assert format_results(results[:1], "csv").count("\n") == 1
