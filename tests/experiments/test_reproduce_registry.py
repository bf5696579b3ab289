from trackerlab.experiments.reproduce.published import load_published
from trackerlab.experiments.reproduce.registry import (
    BY_CONSTRUCTION,
    CATEGORIES,
    DEVIATES,
    FORMULA,
    PENDING,
    REPRODUCED,
    SEED_WRONG,
    SIMULATOR,
    Reproduction,
    format_results,
    judge,
    reproduce,
    summary,
)


def test_published_numbers_load_with_units():
    rows = load_published()
    assert list(rows)[:2] == ["N01", "N02"] and len(rows) == 57
    assert rows["N01"].value == 48 and rows["N05"].value is None  # 8192/M is a formula
    assert rows["N22"].unit_bytes == 1024**2 and rows["N08"].unit_bytes == 1024**2
    assert rows["N46"].unit_bytes is None


def test_reproduced_only_within_the_tolerance_of_its_kind():
    assert judge(Reproduction("X", "100", "B", jvm_model=103)).verdict == REPRODUCED  # 3%
    assert judge(Reproduction("X", "100", "B", jvm_model=103.5)).verdict == DEVIATES
    sim = Reproduction("X", "64", "messages", jvm_model=64, basis=SIMULATOR)
    assert judge(sim).verdict == REPRODUCED
    assert judge(Reproduction("X", "64", "msg", jvm_model=63, basis=SIMULATOR)).verdict == DEVIATES
    assert judge(Reproduction("X", "8192/M", "B")).verdict == PENDING


def test_formula_rows_must_hold_over_the_whole_range():
    one_point = Reproduction("X", "8192/M", "B", range_ratios=(1.01,), basis=FORMULA)
    assert judge(one_point).verdict == REPRODUCED
    ranged = Reproduction("X", "8192/M", "B", range_ratios=(1.01, 1.19, 2.04), basis=FORMULA)
    assert judge(ranged).verdict == DEVIATES
    assert "1.010..2.040" in ranged.why


def test_stated_categories_stand_and_reproduced_cannot_be_claimed_outside():
    wrong = Reproduction("X", "2.25", "MB", jvm_model=1.9, category=SEED_WRONG, why="w")
    assert judge(wrong).verdict == SEED_WRONG
    built = Reproduction("X", "48", "B", jvm_model=48.5, category=BY_CONSTRUCTION, why="i")
    assert judge(built).verdict == BY_CONSTRUCTION
    claimed = Reproduction("X", "100", "B", jvm_model=150, category=REPRODUCED)
    assert judge(claimed).verdict == DEVIATES


def test_reproduce_formats_carry_the_category():
    results = reproduce(["N01", "N02", "N27"])
    assert [r.id for r in results] == ["N01", "N02", "N27"]
    table = format_results(results, "table")
    assert table.splitlines()[0].startswith("id") and "category" in table.splitlines()[0]
    assert "reproduced by construction 2" in table and "of 3" in table
    csv_text = format_results(results[:1], "csv")
    assert csv_text.count("\n") == 1 and "category" in csv_text.splitlines()[0]
    assert "reproduced by construction" in csv_text
    assert set(summary(results)) == set(CATEGORIES)
