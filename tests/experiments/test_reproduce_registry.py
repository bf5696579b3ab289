import re

import pytest

from trackerlab.core.paths import repo_root
from trackerlab.experiments.reproduce.number_registry import (
    BY_CONSTRUCTION,
    CATEGORIES,
    DEVIATES,
    EXPLAINED,
    FORMULA,
    PENDING,
    REPRODUCED,
    SEED_WRONG,
    SIMULATOR,
    Reproduction,
    Verdict,
    describe_counts,
    format_results,
    judge,
    load_verdicts,
    missing_evidence,
    reproduce,
    summary,
)
from trackerlab.experiments.reproduce.published import load_published

EXISTING_TEST = (
    "tests/experiments/test_reproduce_registry.py::test_formula_rows_must_hold_over_the_whole_range"
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


def _claim(category, *evidence, reason=""):
    return Verdict("X", category, tuple(evidence), reason)


def test_judge_checks_every_category_against_ratio_tolerance_and_evidence():
    def rep(model):
        return Reproduction("X", "2.25", "MB", jvm_model=model)

    # seed wrong / explained: outside the 3% band and with evidence that exists
    assert judge(rep(1.9), _claim(SEED_WRONG, "jvm-check:roaring64-bitmap")).verdict == SEED_WRONG
    assert judge(rep(1.9), _claim(EXPLAINED, EXISTING_TEST)).verdict == EXPLAINED
    inside = judge(rep(2.26), _claim(SEED_WRONG, "jvm-check:roaring64-bitmap"))
    assert inside.verdict == DEVIATES and "within the tolerance" in inside.why
    assert judge(rep(1.9), _claim(EXPLAINED)).verdict == DEVIATES  # no evidence
    gone = judge(rep(1.9), _claim(SEED_WRONG, "tests/models/test_pending_acks_jvm.py::test_x"))
    assert gone.verdict == DEVIATES and "no file tests/models/test_pending_acks_jvm.py" in gone.why
    nofunc = judge(rep(1.9), _claim(SEED_WRONG, EXISTING_TEST + "_gone"))
    assert nofunc.verdict == DEVIATES and "no function" in nofunc.why
    assert judge(rep(1.9), _claim(SEED_WRONG, "jvm-check:no-such-case")).verdict == DEVIATES
    # by construction: names an identity test (a pytest node that exists), whatever the ratio
    assert judge(rep(3.0), _claim(BY_CONSTRUCTION, EXISTING_TEST)).verdict == BY_CONSTRUCTION
    assert judge(rep(3.0), _claim(BY_CONSTRUCTION, "data/pulsar_releases.yaml")).verdict == DEVIATES
    assert judge(rep(3.0), _claim(BY_CONSTRUCTION)).verdict == DEVIATES
    # reproduced only inside; deviates stands
    assert judge(rep(3.0), _claim(REPRODUCED)).verdict == DEVIATES
    assert judge(rep(3.0), _claim(DEVIATES)).verdict == DEVIATES


def test_reasons_are_filled_from_the_reproducers_numbers():
    r = Reproduction("X", "2.25", "MB", jvm_model=1.8, values={"buckets": 1234})
    out = judge(r, _claim(SEED_WRONG, EXISTING_TEST, reason="{buckets:,} buckets, {gap:+.0%}"))
    assert out.why == "1,234 buckets, +25%"  # 2.25 / 1.8 - 1 = 0.25
    with pytest.raises(KeyError, match="X: reason"):
        judge(
            Reproduction("X", "2.25", "MB", jvm_model=1.8),
            _claim(SEED_WRONG, EXISTING_TEST, reason="{bitmaps}"),
        )


def test_the_verdict_table_is_complete_and_its_evidence_exists():
    """One reviewed row per published id; every cited test node, jvm-check case and file
    exists (a renamed test or a deleted file fails here)."""
    verdicts = load_verdicts()
    published = load_published()
    assert list(verdicts) == list(published)
    # the one rule: "seed wrong" judges the seed's own arithmetic, never a measurement
    # (N17's jmap figure deviates; N46's perf run is explained by the real-broker runs)
    wrong = [i for i, v in verdicts.items() if v.category == SEED_WRONG]
    assert {published[i].kind for i in wrong} <= {"theory", "derived"}
    assert verdicts["N17"].category == DEVIATES and verdicts["N46"].category == EXPLAINED
    cited = [e for v in verdicts.values() for e in v.evidence]
    assert cited and missing_evidence(cited) == []
    for v in verdicts.values():
        assert v.category in CATEGORIES and v.category != PENDING
        if v.category in (SEED_WRONG, EXPLAINED, BY_CONSTRUCTION):
            assert v.evidence, v.id
        if v.category == BY_CONSTRUCTION:
            assert any(e.startswith("tests/") and "::" in e for e in v.evidence), v.id
        if v.category != REPRODUCED:
            assert v.reason, v.id


def test_cited_test_files_in_the_reproducers_exist():
    """Explanations and docstrings cite test files by path: each must exist."""
    root = repo_root()
    folder = root / "lib" / "trackerlab" / "experiments" / "reproduce"
    text = "\n".join(p.read_text() for p in folder.glob("*.py"))
    text += (root / "data" / "published" / "verdicts.csv").read_text()
    cited = set(re.findall(r"tests/[\w/]+\.py(?:::\w+)?", text))
    assert cited
    assert missing_evidence(sorted(cited)) == []


def test_describe_counts_names_every_category_present():
    counts = dict.fromkeys(CATEGORIES, 0) | {REPRODUCED: 4, SEED_WRONG: 4, BY_CONSTRUCTION: 1}
    counts[DEVIATES] = 1
    text = describe_counts(counts)
    assert text == (
        "4 of 10 reproduce within tolerance, 1 is reproduced by construction, "
        "4 are seed wrong, 1 deviates"
    )
    assert describe_counts(dict.fromkeys(CATEGORIES, 0) | {EXPLAINED: 2}) == (
        "0 of 2 reproduce within tolerance, 2 are explained"
    )


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


@pytest.mark.slow
def test_every_reviewed_claim_is_upheld_and_the_readme_states_the_counts():
    """``judge`` keeps every category of the table (no claim fails its check, no deviating
    row lies within its tolerance), and the README's counts are judge's, not typed ones."""
    results = reproduce()
    verdicts = load_verdicts()
    overruled = {r.id: (verdicts[r.id].category, r.verdict, r.why) for r in results}
    assert {k: v for k, v in overruled.items() if v[0] != v[1]} == {}
    assert [r.id for r in results if r.verdict == DEVIATES and r.within_tolerance()] == []
    readme = " ".join((repo_root() / "README.md").read_text().split())
    assert f"(`trackerlab reproduce`: {describe_counts(summary(results))})" in readme


def test_a_verdict_with_an_unknown_category_is_one_line(tmp_path):
    from trackerlab.core.errors import UsageError

    path = tmp_path / "verdicts.csv"
    path.write_text("id,category,evidence,reason\nN04,seed wrongish,,\n")
    with pytest.raises(UsageError, match="N04 has category 'seed wrongish'; allowed: reproduced"):
        load_verdicts(path)
    with pytest.raises(UsageError, match="not found"):
        load_verdicts(tmp_path / "none.csv")
