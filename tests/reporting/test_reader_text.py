"""Reader text: seeds by title, no machine paths."""

import pytest

from trackerlab.core.paths import repo_root
from trackerlab.reporting import display_path, reader_text, seed_short, seed_title
from trackerlab.reporting.seeds import SEEDS


def test_seed_titles_from_number_or_file_name():
    assert seed_title("001_b11b1d0ae919959a.txt").startswith("The TimeBucket blog")
    assert seed_title("003") == (
        "Optimization of massive delayed message scenarios (apache/pulsar #15500)"
    )
    assert seed_short("000_5da200709f59ad45") == "PIP-393"
    with pytest.raises(KeyError, match="unknown seed"):
        seed_title("009")


def test_published_numbers_name_only_known_seeds():
    from trackerlab.experiments.reproduce import load_published

    seeds = {p.seed for p in load_published().values()}
    assert {s[:3] for s in seeds} == set(SEEDS)


def test_reader_text_rewrites_paths_and_seed_files():
    root = repo_root()
    text = (
        f"Spark sweep {root}/data/sweeps/smoke (20 points); seed 002_38a42c577ede68ca.txt; "
        "also /tmp/pytest-of-me/x/out/reports and 8 msg/ms, 2 / 3"
    )
    out = reader_text(text)
    assert "data/sweeps/smoke (20 points)" in out and str(root) not in out
    assert "Cut PendingAcksMap per-entry overhead" in out and "38a42c" not in out
    assert "/tmp" not in out and "…/out/reports" in out
    assert "8 msg/ms, 2 / 3" in out  # ratios are not paths


def test_display_path():
    assert display_path(repo_root() / "data" / "sweeps" / "smoke") == "data/sweeps/smoke"
    assert display_path("/var/lib/x/y") == "…/x/y"
    assert display_path("data/sweeps") == "data/sweeps"
