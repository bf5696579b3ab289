"""The overview report (``notebooks/overview.ipynb``): the published numbers by seed and
system, their reproduction categories, and what they add up to.

The notebook keeps its parameter, calls these functions and shows what they return.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import pandas as pd

from trackerlab.experiments.reproduce import CATEGORIES, as_rows, load_published
from trackerlab.reporting.findings import Findings, Headline
from trackerlab.reporting.tables import Column

BY_SYSTEM_COLUMNS: dict[str, str] = {
    "seed": "seed",
    "system": "system",
    "numbers": "published numbers",
    "first": "first id",
    "last": "last id",
    "kinds": "kinds",
}
COUNT_COLUMNS: dict[str, str] = {"category": "category", "numbers": "published numbers"}
DETAIL_COLUMNS: dict[str, str | Column] = {
    "id": "id",
    "category": "category",
    "system": "system",
    "published": Column("published", sig=4),
    "jvm_model": Column("model", sig=4),
    "unit": "unit",
    "ratio": Column("model / published", sig=4),
    "tolerance": "tolerance",
    "why": "why",
}
CATEGORY_COLORS = {
    "reproduced": "#2a9d8f",
    "reproduced by construction": "#8ab17d",
    "seed wrong": "#e9c46a",
    "explained": "#f4a261",
    "deviates": "#e76f51",
    "pending": "#bbbbbb",
}
UNSETTLED = ("explained", "deviates", "pending")


def published_numbers() -> pd.DataFrame:
    """``data/published/published_numbers.csv`` as a frame, seeds by title (never by file)."""
    from trackerlab.reporting.seeds import seed_title

    published = pd.DataFrame([asdict(p) for p in load_published().values()])
    published["seed"] = published["seed"].map(seed_title)
    return published


def by_system(published: pd.DataFrame) -> pd.DataFrame:
    """Per (seed, system) in file order: how many numbers, the first and last id, the kinds."""
    return (
        published.groupby(["seed", "system"], sort=False)
        .agg(
            numbers=("id", "count"),
            first=("id", "first"),
            last=("id", "last"),
            kinds=("kind", lambda s: ", ".join(sorted(set(s)))),
        )
        .reset_index()
    )


def categorised(results: Sequence, published: pd.DataFrame) -> pd.DataFrame:
    """One row per reproduced number (``as_rows``) with its seed and kind."""
    return pd.DataFrame(as_rows(results)).merge(published[["id", "seed", "kind"]], on="id")


def count_table(counts: dict[str, int]) -> pd.DataFrame:
    """``summary`` counts as a two-column frame, categories in their fixed order."""
    return pd.DataFrame({"category": list(counts), "numbers": list(counts.values())})


def category_headline(counts: dict[str, int], total: int) -> Headline:
    """The headline: numbers reproduced within tolerance out of ``total``, the rest named."""
    return Headline(
        "reproduced within tolerance",
        f"{counts['reproduced']} of {total}",
        f"{counts['reproduced by construction']} by construction, {counts['seed wrong']} seed "
        f"wrong, {counts['explained']} explained, {counts['deviates']} deviating",
    )


def plot_categories(table: pd.DataFrame, counts: dict[str, int]) -> None:
    """Stacked bars: the category of every number, one bar per seed document."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside

    shown = [c for c in CATEGORIES if counts[c]]
    status = pd.crosstab(table["seed"], table["category"]).reindex(columns=shown, fill_value=0)
    _, ax = plt.subplots(figsize=(9, 3.5), layout="constrained")
    status.plot.barh(stacked=True, ax=ax, color=[CATEGORY_COLORS[c] for c in shown])
    ax.set_xlabel("published numbers")
    ax.set_ylabel("")
    ax.set_title("Category of every published number, by seed document")
    ax.invert_yaxis()
    legend_outside(ax)


def conclusions(table: pd.DataFrame, counts: dict[str, int], total: int) -> Findings:
    """The bullets and the answer (no trailing period, as published): how many of the
    ``total`` numbers reproduce, agree by construction, are wrong in the seed (by id, from
    :func:`categorised`) and are not settled."""
    strict = counts["reproduced"]
    construction = counts["reproduced by construction"]
    wrong = table[table.category == "seed wrong"]
    rest = table[table.category.isin(UNSETTLED)]
    lines = [
        f"{strict} of {total} published numbers are reproduced within the tolerance of "
        f"their kind; {construction} agree by construction.",
        f"{len(wrong)} are wrong in the seed: " + ", ".join(wrong.id) + ".",
    ]
    if len(rest):
        unsettled = "; ".join(f"{r.id} ({r.category})" for r in rest.itertuples())
        lines.append(f"Not settled: {unsettled}.")
    text = (
        f"Of the {total} numbers the seed documents publish, {strict} reproduce within the "
        f"tolerance of their kind and {construction} by construction; "
        f"{len(wrong)} are wrong in the seed and {len(rest)} are not settled"
    )
    return Findings(answer=text, lines=lines)
