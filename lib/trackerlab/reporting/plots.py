"""Small matplotlib helpers shared by the notebooks (log-log size plots).

pyplot is imported inside the functions: importing :mod:`trackerlab.reporting` (the report
kernel does, before IPython selects the inline backend) must not fix matplotlib's backend.
"""

from __future__ import annotations

import pandas as pd


def bytes_per_entry_axes(title: str, xlabel: str = "messages per bucket M"):
    """A log-log axes for bytes per entry, labelled the same way in every report."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("bytes per entry (log)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    return fig, ax


def plot_published_points(
    ax, points: pd.DataFrame, x: str, y: str, label: str = "published"
) -> None:
    """Mark the seeds' numbers (one annotated star per id)."""
    ax.scatter(points[x], points[y], marker="*", s=180, color="black", zorder=5, label=label)
    for _, p in points.iterrows():
        ax.annotate(p["id"], (p[x], p[y]), textcoords="offset points", xytext=(6, 6), fontsize=8)
